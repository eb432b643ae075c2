/**
 * Reads a `text/event-stream` body and yields each event's `data`, as the Streamable HTTP
 * transport sends one JSON-RPC message per event. Multi-line data is joined with newlines,
 * comments (`:`) and other fields are skipped, and an event is only complete at a blank line.
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const lineOf = function* (flush: boolean): Generator<string> {
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      if (end < 0) {
        if (flush && buffer) {
          const rest = buffer;
          buffer = '';
          yield rest;
        }
        return;
      }
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      yield line;
    }
  };
  const take = (line: string): string | null => {
    if (line === '') {
      const event = data.length ? data.join('\n') : null;
      data = [];
      return event;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    return null;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (const line of lineOf(false)) {
      const event = take(line);
      if (event !== null) yield event;
    }
  }
  buffer += decoder.decode();
  for (const line of lineOf(true)) {
    const event = take(line);
    if (event !== null) yield event;
  }
  // A stream that ends without the final blank line still delivers its last event.
  const last = take('');
  if (last !== null) yield last;
}
