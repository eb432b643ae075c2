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

/**
 * An animated GIF over the largest any platform posts (X's 15 MB), as re-encoded and as uploaded:
 * kept, it could go nowhere as an animation.
 */
export const gifTooLarge = (bytes: number, limitBytes: number) =>
  new AppError(
    413,
    'MEDIA_TOO_LARGE',
    `The animated GIF comes to ${sizeOf(bytes)}, re-encoded or as uploaded; no platform takes an animated GIF over ${sizeOf(limitBytes)} (X's limit). Make it smaller, shorter or with fewer colours.`,
    { param: 'file' },
  );

/** "15 MB", "15.2 MB"; bytes under 1 MB (a test's small cap) as bytes. */
const sizeOf = (bytes: number) =>
  bytes < 1024 * 1024 ? `${bytes} bytes` : `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;

export const fetchFailed = (message: string, cause?: unknown) =>
  new AppError(502, 'FETCH_FAILED', message, { param: 'url', ...(cause === undefined ? {} : { cause }) });

export const urlNotAllowed = (message: string, cause?: unknown) =>
  new AppError(400, 'URL_NOT_ALLOWED', message, { param: 'url', ...(cause === undefined ? {} : { cause }) });
