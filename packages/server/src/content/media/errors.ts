import { AppError } from '../../platform/errors.js';

/** Media error codes; the table with statuses is in docs/content/media.md. */
export const unsupportedMedia = (message: string) =>
  new AppError(415, 'UNSUPPORTED_MEDIA', message, { param: 'file' });

export const mediaTooLarge = (limitBytes: number, kind: 'image' | 'video' | 'file') =>
  new AppError(
    413,
    'MEDIA_TOO_LARGE',
    `The ${kind} is larger than the limit of ${Math.floor(limitBytes / (1024 * 1024))} MB.`,
    { param: 'file' },
  );

export const fetchFailed = (message: string, cause?: unknown) =>
  new AppError(502, 'FETCH_FAILED', message, { param: 'url', ...(cause === undefined ? {} : { cause }) });

export const urlNotAllowed = (message: string, cause?: unknown) =>
  new AppError(400, 'URL_NOT_ALLOWED', message, { param: 'url', ...(cause === undefined ? {} : { cause }) });
