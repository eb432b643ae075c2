// Reads a response body up to a byte cap. Without one, an endless chunked body or a huge one,
// from a compromised server or a proxy in between, is held in memory until the timeout (and a
// 60 s timeout at network speed is gigabytes).
import { ResponseTooLargeError, requestLabel } from './errors.js';
import type { ResponseHead } from './transport.js';

/**
 * The body's bytes, or a ResponseTooLargeError once more than `maxBytes` have arrived or been
 * announced. The body is cancelled first, which closes its connection, so nothing more is read.
 * `trustLength`: the runtime's own fetch ends a body at its Content-Length (a longer one is a
 * protocol error), so a declared, undecoded length within the cap lets the whole body be read in
 * one call; a custom fetch, or a decoded (gzip, br) body, is counted as it arrives.
 * `method` and `url` name the request in the error.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  trustLength: boolean,
  method: string,
  url: string,
): Promise<Uint8Array<ArrayBuffer>> {
  // Read once: every read of `response.headers` is a checked getter in undici.
  const headers = response.headers;
  const declared = headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    throw tooLarge(response, maxBytes, requestLabel(method, url), `its Content-Length is ${declared}`);
  }
  if (trustLength && declared !== null && !headers.has('content-encoding')) {
    return new Uint8Array(await response.arrayBuffer());
  }
  const body = response.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      reader.cancel().catch(() => {});
      throw tooLarge(response, maxBytes, requestLabel(method, url), `more than that arrived`);
    }
    chunks.push(value);
  }
  return concat(chunks, length);
}

/** The chunks as one array; a body that came in one chunk is that chunk. */
export function concat(chunks: Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1) return chunks[0] as Uint8Array<ArrayBuffer>;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(
  response: Response,
  maxBytes: number,
  where: string,
  detail: string,
): ResponseTooLargeError {
  // Cancelling an unread body closes the connection; a body already locked by the reader is
  // cancelled by the caller.
  if (!response.bodyUsed) response.body?.cancel().catch(() => {});
  return responseTooLarge(response, response.headers.get('service-request-id'), maxBytes, where, detail);
}

/** The error for a body over the cap, whichever transport read it; closing it is the caller's. */
export function responseTooLarge(
  head: ResponseHead,
  requestId: string | null,
  maxBytes: number,
  where: string,
  detail: string,
): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `${where}: the response body is over maxResponseBytes (${maxBytes} bytes; ${detail}), so it was not read. ` +
      'If the API really sends this much, raise maxResponseBytes in the client options; otherwise the server, ' +
      'or a proxy between you and it, is misbehaving.',
    { status: head.status, requestId, headers: head.headers, maxResponseBytes: maxBytes },
  );
}
