// Content-Encoding on the Node transport. svc never compresses and the client asks for nothing
// (no Accept-Encoding is sent), but a proxy in between may compress anyway. Such a body is
// decoded as Node's fetch would (gzip, x-gzip, deflate, br; an unknown coding is left as is), and
// the cap counts the decoded bytes: a small gzip that inflates to gigabytes (a zip bomb) is
// stopped at maxResponseBytes like any other large body.
import { type NodeReadable, type NodeWritable, type NodeZlib, nodeBuiltin } from './node-builtins.js';

/**
 * At most this many codings in one Content-Encoding: each is a decoder stream with its own
 * buffers, and a header listing hundreds would cost that many before a byte arrives.
 */
export const MAX_CONTENT_CODINGS = 5;

type Decoder = NodeReadable & NodeWritable;

/**
 * The decoders for `encoding`, last applied first, or an empty list when the body is to be read
 * as sent (no coding, or one this client does not know, as Node's fetch does). Throws a
 * TypeError for more than MAX_CONTENT_CODINGS.
 */
export function decodersFor(encoding: string): Decoder[] {
  const codings = encoding.toLowerCase().split(',');
  if (codings.length > MAX_CONTENT_CODINGS) {
    throw new TypeError(
      `the response lists ${codings.length} content codings; the client decodes at most ${MAX_CONTENT_CODINGS}`,
    );
  }
  const known = codings.map((coding) => coding.trim()).filter((coding) => coding !== 'identity');
  if (!known.every((coding) => DECODERS.has(coding))) return [];
  const zlib = nodeBuiltin<NodeZlib>('node:zlib') as NodeZlib;
  return known.reverse().map((coding) => (DECODERS.get(coding) as (zlib: NodeZlib) => Decoder)(zlib));
}

// Lenient about a truncated stream, as Node's fetch is: it ends the body rather than failing.
// A Map, not an object literal: a coding named `toString` must not find Object's.
const DECODERS = new Map<string, (zlib: NodeZlib) => Decoder>([
  ['gzip', gunzip],
  ['x-gzip', gunzip],
  ['deflate', (zlib) => zlib.createInflate(zlibFlush(zlib))],
  [
    'br',
    (zlib) =>
      zlib.createBrotliDecompress({
        flush: zlib.constants.BROTLI_OPERATION_FLUSH,
        finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
      }),
  ],
]);

function gunzip(zlib: NodeZlib): Decoder {
  return zlib.createGunzip(zlibFlush(zlib));
}

function zlibFlush(zlib: NodeZlib): object {
  return { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
}
