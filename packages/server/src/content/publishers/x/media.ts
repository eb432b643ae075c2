import { ProviderError, type ProviderMedia } from '../provider.js';
import type { XHttp } from './http.js';

/** Image types X takes as `tweet_image` (InitializeMediaUploadRequest's media_type enum). */
export const X_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export const X_MAX_IMAGES = 4;
/** Bytes per APPEND segment (before base64); X takes up to 1,000 segments. */
const SEGMENT_BYTES = 1024 * 1024;

/**
 * The one-request upload's limit for an image: "Image: 5 MB" (https://docs.x.com/x-api/media,
 * "Media types & size restrictions"). svc's media pipeline caps X images at the same 5 MB
 * (PLATFORM_MEDIA.x.imageMaxBytes) but only warns in `fit`; an upload may hold up to 20 MB
 * (media/limits.ts), so a larger image still goes through the chunked flow and X decides.
 */
const SIMPLE_UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
/**
 * Types the one-request upload takes as an image. GIF is left to the chunked flow: X's docs say
 * the simple upload is for images only and the chunked one for GIFs (an animated GIF is
 * `tweet_gif`, up to 15 MB), and X's own SDK lists no GIF among the one-shot upload's media types
 * (https://docs.x.com/xdks/typescript/reference/interfaces/Schemas.MediaUploadRequestOneShot).
 */
const SIMPLE_UPLOAD_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/webp'];

interface Data<T> {
  data?: T;
}
type Uploaded = Data<{ id?: string; processing_info?: { state?: string } }>;

/**
 * Uploads one image and returns the media id to put in `media.media_ids`: in one request when
 * the image fits the simple upload (the usual case: one call instead of three), chunked when not.
 */
export async function uploadImage(call: XHttp, token: string, media: ProviderMedia): Promise<string> {
  const fits =
    SIMPLE_UPLOAD_TYPES.includes(media.mimeType) && media.data.byteLength <= SIMPLE_UPLOAD_MAX_BYTES;
  return fits ? uploadWhole(call, token, media) : uploadChunked(call, token, media);
}

/**
 * POST /2/media/upload (MediaUploadRequest, `additionalProperties: false`: no `media_type`, X
 * reads the type from the bytes). JSON with the image base64-encoded in `media`, as the page says
 * (https://docs.x.com/x-api/media/image-or-subtitle-media-upload: "base64-encoded in JSON bodies
 * (raw bytes in multipart bodies)"), rather than multipart: it is the encoding the chunked flow's
 * append already sends (so no new body builder), and at 5 MB the third more bytes base64 costs is
 * small beside the round trips it saves.
 */
async function uploadWhole(call: XHttp, token: string, media: ProviderMedia): Promise<string> {
  const done = await call<Uploaded>({
    method: 'POST',
    path: '/2/media/upload',
    token,
    json: { media: Buffer.from(media.data).toString('base64'), media_category: 'tweet_image' },
  });
  return mediaIdOf(done, undefined);
}

/**
 * The v2 chunked upload: POST /2/media/upload/initialize, then /2/media/upload/{id}/append for
 * each segment (JSON, the chunk base64 in `media`), then /2/media/upload/{id}/finalize (no body).
 */
async function uploadChunked(call: XHttp, token: string, media: ProviderMedia): Promise<string> {
  const init = await call<Data<{ id?: string }>>({
    method: 'POST',
    path: '/2/media/upload/initialize',
    token,
    json: { media_type: media.mimeType, total_bytes: media.data.byteLength, media_category: 'tweet_image' },
  });
  const id = validId(init?.data?.id);
  const segments = Math.max(1, Math.ceil(media.data.byteLength / SEGMENT_BYTES));
  for (let i = 0; i < segments; i++) {
    const chunk = media.data.subarray(i * SEGMENT_BYTES, (i + 1) * SEGMENT_BYTES);
    await call({
      method: 'POST',
      path: `/2/media/upload/${id}/append`,
      token,
      json: { media: Buffer.from(chunk).toString('base64'), segment_index: i },
    });
  }
  const done = await call<Uploaded>({ method: 'POST', path: `/2/media/upload/${id}/finalize`, token });
  return mediaIdOf(done, id);
}

/** The id goes into a later request's body and a path: only X's numeric ids pass. */
function validId(id: string | undefined): string {
  if (!id || !/^[0-9]{1,19}$/.test(id)) {
    throw new ProviderError('x', 'rejected', 'X’s media upload answered without an upload id.');
  }
  return id;
}

/** The id of a finished upload; `fallback` is the chunked upload's own id (finalize may omit it). */
function mediaIdOf(done: Uploaded | undefined, fallback: string | undefined): string {
  const state = done?.data?.processing_info?.state;
  if (state && state !== 'succeeded') {
    // Images are ready once uploaded; processing is for video, which this provider does not send.
    throw new ProviderError('x', 'rejected', `X did not accept the image (processing ${state}).`);
  }
  return validId(done?.data?.id ?? fallback);
}
