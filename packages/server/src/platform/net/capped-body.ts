/**
 * Reading an outside answer with a size cap. The threat: a server we call (a social platform, a
 * token endpoint, the model server, anything at a configured base URL) decides how much it sends.
 * `res.text()` keeps every byte until the end, so a 1 GB body, or a chunked one that never ends,
 * fills the heap of the process both services share, or holds a request until its deadline.
 */

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** The declared `Content-Length` when it is over `maxBytes`, else null (absent or within it). */
export function declaredOver(res: Response, maxBytes: number): number | null {
  const declared = Number(res.headers.get('content-length'));
  return Number.isFinite(declared) && declared > maxBytes ? declared : null;
}

/**
 * The body as UTF-8 text, refusing more than `maxBytes`: a `Content-Length` over the cap is
 * refused before any of the body is read, and a body that grows past it while streaming (chunked,
 * or lying about its length) is cut off there. Either way the body is cancelled, which closes the
 * connection, so the sender cannot keep it busy. Throws `BodyTooLargeError`.
 */
export async function readCappedText(res: Response, maxBytes: number): Promise<string> {
  const declared = declaredOver(res, maxBytes);
  if (declared !== null) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLargeError(`The answer declares ${declared} bytes; the limit is ${maxBytes}.`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let seen = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += value.byteLength;
    if (seen > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(`The answer is larger than ${maxBytes} bytes.`);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}
