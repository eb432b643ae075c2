import busboy from 'busboy';
import type { Request, RequestHandler } from 'express';
import { AppError, invalidRequest } from '../../platform/errors.js';
import { bodyTooLarge, closeAfterResponse, refuseDeclaredLength } from '../../platform/http/body.js';
import { newTempFile, removeQuietly, writeCapped } from './files.js';
import type { MediaLimits } from './limits.js';

/**
 * The uploaded file after streaming to a temporary path. Only the multipart parser creates
 * these, so a text field named `file` can never pass the body schema as a file.
 */
export class UploadedFile {
  constructor(
    readonly path: string,
    readonly bytes: number,
    readonly filename: string,
  ) {}
}

/** Which requests skip the JSON body parser: only the upload route, which parses multipart itself. */
export const isMediaUploadRequest = (req: Request) =>
  req.method === 'POST' && /^\/v1\/brands\/[^/]+\/media\/?$/.test(req.path);

const notMultipart = () =>
  new AppError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    "Send the upload as multipart/form-data with the file in a field named 'file'.",
  );

/** Room beside the largest file for the part headers, the boundaries and the small fields. */
const ENVELOPE_BYTES = 1024 * 1024;

/**
 * Streams one multipart upload to a temporary file (busboy: no buffering in memory, limits
 * on every part) and puts `{ file, alt, tags }` on `req.body` for the route's schema.
 * The temporary file is removed when the response ends, whatever happened; the service
 * moves it away first when it keeps it.
 */
export function multipartUpload(opts: { root: string; limits: MediaLimits }): RequestHandler {
  // The most a whole upload may hold. The per-part limits below count only what is inside a part:
  // bytes before the first boundary (the preamble) or after the last are no part's, so a body of
  // nothing but preamble was read for as long as the client sent it (a declared 1 GB, in full).
  const bodyMaxBytes = opts.limits.videoMaxBytes + ENVELOPE_BYTES;
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next(notMultipart());
    // Declared too large: answered before a byte is read, and the connection closed, as JSON bodies are.
    const declared = refuseDeclaredLength(req, bodyMaxBytes);
    if (declared) {
      closeAfterResponse(res);
      return next(declared);
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        // fileSize is a backstop; writeCapped applies the per-kind cap while streaming.
        limits: {
          files: 1,
          fileSize: opts.limits.videoMaxBytes + 1,
          fields: 10,
          fieldSize: 8 * 1024,
          parts: 12,
        },
      });
    } catch {
      return next(invalidRequest('The multipart body has no boundary.'));
    }

    const fields: Record<string, unknown> = {};
    const tags: string[] = [];
    let failure: AppError | null = null;
    let writing: Promise<UploadedFile | null> = Promise.resolve(null);
    const fail = (err: AppError) => {
      failure ??= err;
    };

    bb.on('file', (name, stream, info) => {
      // busboy destroys the part with the parse error; it is reported through bb's own 'error'.
      // Without a listener here that second copy would be an uncaught exception.
      stream.on('error', () => {});
      if (name !== 'file') {
        fail(invalidRequest(`Unknown file field '${name}'; send the file as 'file'.`, name));
        stream.resume();
        return;
      }
      writing = (async () => {
        const path = await newTempFile(opts.root);
        res.once('close', () => void removeQuietly(path));
        // destroyOnReturn: false so a refused file is drained, not torn down mid-parse.
        const { bytes } = await writeCapped(stream.iterator({ destroyOnReturn: false }), path, opts.limits);
        return new UploadedFile(path, bytes, info.filename ?? 'upload');
      })().catch((err) => {
        stream.resume();
        fail(err instanceof AppError ? err : invalidRequest('The upload could not be stored.'));
        return null;
      });
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(invalidRequest(`The field '${name}' is too long.`, name));
      // `tags` may repeat and/or be comma-separated: both are how HTML forms send lists.
      else if (name === 'tags') tags.push(...value.split(',').filter((t) => t.trim() !== ''));
      else fields[name] = value;
    });
    for (const event of ['filesLimit', 'fieldsLimit', 'partsLimit'] as const) {
      bb.on(event, () => fail(invalidRequest('Send one file and at most the alt and tags fields.')));
    }
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      const file = await writing;
      if (failure) return next(failure);
      req.body = { ...fields, ...(tags.length ? { tags } : {}), ...(file ? { file } : {}) };
      next();
    };
    bb.on('error', () => {
      fail(invalidRequest('The multipart body is malformed.'));
      req.unpipe(bb);
      req.resume();
      void finish();
    });
    bb.on('close', () => void finish());
    // A chunked body declares no length: its bytes are counted as they come, and past the limit
    // busboy is stopped (its open file part fails with it) and the connection closed after the 413.
    let received = 0;
    const countBytes = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= bodyMaxBytes) return;
      req.off('data', countBytes);
      fail(bodyTooLarge(bodyMaxBytes));
      closeAfterResponse(res);
      bb.destroy(new Error('upload body over its limit'));
    };
    req.on('data', countBytes);
    req.on('error', () => fail(new AppError(400, 'REQUEST_ABORTED', 'The client closed the request.')));
    req.on('aborted', () => fail(new AppError(400, 'REQUEST_ABORTED', 'The client closed the request.')));
    req.pipe(bb);
  };
}
