import { ProviderError, type ProviderMedia } from '../provider.js';
import type { XHttp } from './http.js';

/** Image types X takes as `tweet_image` (InitializeMediaUploadRequest's media_type enum). */
export const X_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export const X_MAX_IMAGES = 4;
/** Bytes per APPEND segment (before base64); X takes up to 1,000 segments. */
const SEGMENT_BYTES = 1024 * 1024;

interface Data<T> {
  data?: T;
}

/**
 * The v2 chunked upload: POST /2/media/upload/initialize, then /2/media/upload/{id}/append for
 * each segment (JSON, the chunk base64 in `media`), then /2/media/upload/{id}/finalize (no body).
 * Returns the media id to put in `media.media_ids`.
 */
export async function uploadImage(call: XHttp, token: string, media: ProviderMedia): Promise<string> {
  const init = await call<Data<{ id?: string }>>({
    method: 'POST',
    path: '/2/media/upload/initialize',
    token,
    json: { media_type: media.mimeType, total_bytes: media.data.byteLength, media_category: 'tweet_image' },
  });
  const id = init?.data?.id;
  if (!id || !/^[0-9]{1,19}$/.test(id)) {
    throw new ProviderError('x', 'rejected', 'X’s media upload answered without an upload id.');
  }
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
  const done = await call<Data<{ id?: string; processing_info?: { state?: string } }>>({
    method: 'POST',
    path: `/2/media/upload/${id}/finalize`,
    token,
  });
  const state = done?.data?.processing_info?.state;
  if (state && state !== 'succeeded') {
    // Images are ready at finalize; processing is for video, which this provider does not send.
    throw new ProviderError('x', 'rejected', `X did not accept the image (processing ${state}).`);
  }
  return done?.data?.id ?? id;
}
