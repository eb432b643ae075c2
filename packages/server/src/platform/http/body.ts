import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../errors.js';
import { fromFrameworkError } from './errors-middleware.js';
import { jsonTextOverLimits, tooDeep, tooManyValues } from './json-depth.js';
import { lingerBeforeClosing } from './lingering-close.js';
import { markCheckedText } from './text-checks.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding']) return true;
  return length !== undefined && length !== '0';
}

/** 413 for a body over `limitBytes`, declared or counted. */
export const bodyTooLarge = (limitBytes: number) =>
  new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${limitBytes} bytes.`);

/**
 * Request bodies are never compressed: a JSON API gains little from it, and inflating would
 * make the size limit apply to the compressed bytes (a zip bomb's best friend). `identity`
 * is the only coding accepted, on every body, multipart included.
 */
export function refuseContentEncoding(req: IncomingMessage): AppError | null {
  const coding = req.headers['content-encoding']?.trim().toLowerCase();
  if (!coding || coding === 'identity') return null;
  return new AppError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    `Compressed request bodies are not accepted (Content-Encoding: ${coding}). Send the body uncompressed.`,
  );
}

/**
 * Refuses a body that declares more than the limit in `Content-Length` before a byte of it is
 * read. The caller answers (with `Connection: close`, so the unread body dies with the socket).
 */
export function refuseDeclaredLength(req: IncomingMessage, limitBytes: number): AppError | null {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > limitBytes ? bodyTooLarge(limitBytes) : null;
}

/**
 * Answers this request and then closes the connection rather than draining an unwanted body, after
 * a short linger so the client reads the answer rather than a reset (lingering-close.ts).
 */
export function closeAfterResponse(res: Response): void {
  res.set('Connection', 'close');
  if (res.socket) lingerBeforeClosing(res.socket);
  // A body refused after some of it was read (a counted 413) was paused by its reader, and node
  // throws away only a body nobody began to read: the parser would stop feeding the paused
  // request, the socket stop reading, and the linger discard nothing and end in a reset. Resumed
  // once answered, with its readers gone, the rest of the body is discarded like any other.
  res.once('finish', () => res.req.resume());
}

/** Reads the body, at most `limitBytes` of it. Over the limit it stops reading at once. */
function readLimited(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        req.pause();
        reject(bodyTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // A small body (every MCP call, most JSON) arrives in one chunk: no copy of it then.
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    };
    const aborted = () =>
      new AppError(400, 'REQUEST_ABORTED', 'The client closed the request before the body arrived.');
    const onError = () => {
      cleanup();
      reject(aborted());
    };
    const onAborted = onError;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/**
 * The body when all of it has already arrived, else null. A small request (every MCP call, most
 * JSON) comes in one packet with its headers: by the time a handler that awaited anything reads
 * it, node's parser has pushed the whole body into the stream's buffer, so one `read()` takes it,
 * without the flowing mode's listeners, `resume` and the ticks between them (about 2 % of a
 * loaded MCP list_agents profile). "Whole" is exact: the parser frames the body by its
 * Content-Length and never buffers more, so a buffer holding the declared length holds all of it
 * (the end of the message is flagged a turn later, which is why `req.complete` cannot tell).
 * Chunked bodies, bodies still arriving and anything past the limit take the stream path, which
 * answers them as it always did.
 */
function readArrived(req: IncomingMessage): Buffer | null {
  const declared = Number(req.headers['content-length']);
  // Over the limit it never gets here: readArrivedJsonBody refused the declared length first.
  if (!(declared > 0) || req.readableLength !== declared) return null;
  if (req.headers['transfer-encoding'] !== undefined) return null;
  if (req.readableFlowing || req.readableObjectMode || req.readableEncoding) return null;
  const chunk: unknown = req.read();
  // Cannot happen with no encoding set; thrown rather than returning null after taking the bytes.
  if (!Buffer.isBuffer(chunk)) throw new Error('a buffered request body read as something other than bytes');
  return chunk;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The whole JSON body of a request, read strictly: the declared length and the bytes read are
 * both held to the limit, the bytes must be UTF-8 (invalid sequences are refused, never
 * replaced), the top level must be an object or an array, and it may nest at most
 * `MAX_JSON_DEPTH` levels and hold at most `MAX_JSON_VALUES` values, both checked on the text
 * before it is parsed (json-depth.ts says why). An
 * empty body reads as `{}`. Failures are AppErrors in the documented codes.
 */
export async function readJsonBody(req: Request, limitBytes: number): Promise<unknown> {
  const now = readArrivedJsonBody(req, limitBytes);
  return now === NOT_ARRIVED ? readJsonBodyOnItsWay(req, limitBytes) : now;
}

/** What `readArrivedJsonBody` answers when the body is still on its way: then `readJsonBodyOnItsWay`. */
export const NOT_ARRIVED: unique symbol = Symbol('body not arrived');

/**
 * The rest of `readJsonBody` once `readArrivedJsonBody` has answered `NOT_ARRIVED`: its header
 * checks (encoding, declared length, charset) already passed, so only the streamed read, with its
 * counted limit, and the parse are left. Called only after it: on its own it would skip them.
 */
export async function readJsonBodyOnItsWay(req: Request, limitBytes: number): Promise<unknown> {
  return parseJsonBody(await readLimited(req, limitBytes));
}

/**
 * `readJsonBody` without a promise when the whole declared body has already arrived, as a small
 * request's usually has by the time its handler runs: the same checks, the same AppErrors (thrown
 * here), and the parsed body. `NOT_ARRIVED` otherwise. The MCP endpoint paid an async frame and
 * a turn of the microtask queue a call for bytes it already held (issue 20).
 */
export function readArrivedJsonBody(req: Request, limitBytes: number): unknown {
  const refused = refuseContentEncoding(req) ?? refuseDeclaredLength(req, limitBytes);
  if (refused) throw refused;
  const type = req.headers['content-type'];
  // The exact type every client sends has no charset to read.
  const charset =
    type === 'application/json' ? undefined : /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type ?? '')?.[1];
  if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
    throw new AppError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `The request body must be UTF-8 JSON (got charset=${charset}).`,
    );
  }
  const bytes = readArrived(req);
  return bytes ? parseJsonBody(bytes) : NOT_ARRIVED;
}

/** The bytes of a body, read: strict UTF-8, an object or array, within the limits, parsed and marked. */
function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError(400, 'INVALID_JSON', 'The request body is not valid UTF-8.');
  }
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') {
    throw new AppError(400, 'INVALID_JSON', 'The request body must be a JSON object or array.');
  }
  const over = jsonTextOverLimits(text);
  if (over === 'depth') throw tooDeep();
  if (over === 'values') throw tooManyValues();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new AppError(
      400,
      'INVALID_JSON',
      `The request body is not valid JSON: ${err instanceof Error ? err.message : 'parse error'}.`,
    );
  }
  // What the text already showed, so the route's walks (mount.ts) skip this body.
  markCheckedText(body, text);
  return body;
}

/**
 * JSON bodies only, within a size limit. A body with another content type is refused here
 * rather than silently ignored (which would also open the door to form-post CSRF).
 * Routes that take multipart opt out with `isMultipartRoute` (compressed bodies are refused
 * for them too). A body refused for its size is answered with `Connection: close` and never read.
 */
export function jsonBody(opts: {
  limitBytes: number;
  isMultipartRoute?: (req: Request) => boolean;
}): RequestHandler[] {
  const guard: RequestHandler = (req, res, next) => {
    if (!hasBody(req)) return next();
    const compressed = refuseContentEncoding(req);
    if (compressed) return next(compressed);
    if (opts.isMultipartRoute?.(req)) return next();
    // On any method: a GET that declares 50 MB would otherwise be drained after its answer.
    const declared = refuseDeclaredLength(req, opts.limitBytes);
    if (declared) {
      closeAfterResponse(res);
      return next(declared);
    }
    if (!METHODS_WITH_BODY.has(req.method)) return next();
    if (!req.is('application/json')) {
      return next(
        new AppError(
          415,
          'UNSUPPORTED_MEDIA_TYPE',
          "Send the request body as JSON with 'Content-Type: application/json'.",
        ),
      );
    }
    readJsonBody(req, opts.limitBytes).then(
      (body) => {
        req.body = body;
        next();
      },
      (err: unknown) => {
        if (err instanceof AppError && err.status === 413) closeAfterResponse(res);
        next(err);
      },
    );
  };
  return [guard];
}

/**
 * The urlencoded form parser of the HTML pages, held to the same rules as JSON bodies (no
 * compression, the declared length checked before reading). Its failures (too large, too many
 * fields) go to `onError` as AppErrors, so the page can answer them in HTML.
 */
export function formBody(
  opts: { limitBytes: number; parameterLimit: number },
  onError: (req: Request, res: Response, err: AppError) => void,
): RequestHandler {
  const parse = express.urlencoded({
    extended: false,
    limit: opts.limitBytes,
    parameterLimit: opts.parameterLimit,
    inflate: false,
  });
  const fail = (req: Request, res: Response, err: AppError) => {
    if (err.status === 413) closeAfterResponse(res);
    onError(req, res, err);
  };
  return (req, res, next) => {
    const refused = refuseContentEncoding(req) ?? refuseDeclaredLength(req, opts.limitBytes);
    if (refused) return fail(req, res, refused);
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const known = err instanceof AppError ? err : fromFrameworkError(req, err);
      if (!known) return next(err);
      fail(req, res, known);
    });
  };
}
