import { ProviderError, type ProviderMedia } from '../provider.js';
import { pauseUnlessStopped } from '../stop-wait.js';
import type { XHttp } from './http.js';

/** Image types X takes as `tweet_image` (InitializeMediaUploadRequest's media_type enum). */
export const X_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export const X_MAX_IMAGES = 4;
/** "GIF: 15 MB" (https://docs.x.com/x-api/media, "Media types & size restrictions"). */
export const X_GIF_MAX_BYTES = 15 * 1024 * 1024;
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

/**
 * The longest total wait for X to process a GIF, by default. X's GIFs usually take seconds; a
 * publish now waits in its request, so the bound is what a person would still wait for.
 */
const PROCESSING_WAIT_MS = 60_000;
/** The shortest pause between status checks, whatever `check_after_secs` says (0 or missing). */
const MIN_CHECK_MS = 1_000;

interface Data<T> {
  data?: T;
}
/**
 * `processing_info` as the X API v2 document has it (`state`, `check_after_secs`,
 * `progress_percent`). `error` is not in the document's schema, but X's STATUS page shows it on a
 * failed upload, so its message is used when it comes.
 */
interface ProcessingInfo {
  state?: string;
  check_after_secs?: number;
  progress_percent?: number;
  error?: { message?: string; name?: string };
}
/** `expires_after_secs`: how long X keeps the id for posting (FinalizeMediaUploadResponse). */
type Uploaded = Data<{ id?: string; processing_info?: ProcessingInfo; expires_after_secs?: number }>;

/** How an upload waits for X's processing: the service clock's wait, and the bound on it. */
export interface ProcessingWait {
  wait: (ms: number) => Promise<void>;
  /** The most all of one post's media wait together (the bound is per post, not per GIF). */
  maxMs?: number;
  /**
   * What this post's media have waited so far, shared by its uploads: a post of four GIFs once
   * waited up to four times `maxMs`. One per publish (x/index.ts).
   */
  waited?: { ms: number };
  /** The service stopping: the wait ends at once, and the post is left to be tried again. */
  signal?: AbortSignal | undefined;
}

/**
 * One pause, ended early by the stop. The service clock's wait takes the signal itself; the race
 * covers a wait that does not (an embedder's clock), so a stop never waits out a pause.
 */
const pause = (processing: ProcessingWait, ms: number): Promise<void> =>
  pauseUnlessStopped(() => processing.wait(ms), processing.signal);

/**
 * Uploads one image and returns the media id to put in `media.media_ids`: in one request when
 * the image fits the simple upload (the usual case: one call instead of three), chunked when not.
 * A GIF is chunked as `tweet_gif` and the id comes back only once X has processed it.
 */
export async function uploadImage(
  call: XHttp,
  token: string,
  media: ProviderMedia,
  processing: ProcessingWait,
): Promise<string> {
  if (media.uploadedId) {
    const resumed = await resumeUpload(call, token, media, media.uploadedId, processing);
    if (resumed) return resumed;
  }
  const fits =
    SIMPLE_UPLOAD_TYPES.includes(media.mimeType) && media.data.byteLength <= SIMPLE_UPLOAD_MAX_BYTES;
  return fits ? uploadWhole(call, token, media) : uploadChunked(call, token, media, processing);
}

/**
 * An id X gave for these bytes on an earlier attempt of this post (a GIF still processing when
 * svc stopped waiting, or a post that was then rate-limited): one status check instead of the
 * upload, and X's processing goes on from where it was. Null when X no longer knows the id (a
 * 4xx): the caller uploads anew. A failed processing or an outage is an answer, not a reason to
 * upload again, so those throw as they would after a fresh upload.
 */
async function resumeUpload(
  call: XHttp,
  token: string,
  media: ProviderMedia,
  id: string,
  processing: ProcessingWait,
): Promise<string | null> {
  const mediaId = validId(id);
  let status: Uploaded;
  try {
    status = await statusOf(call, token, mediaId);
  } catch (err) {
    if (err instanceof ProviderError && (err.kind === 'rejected' || err.kind === 'invalid')) return null;
    throw err;
  }
  const what = media.mimeType === 'image/gif' ? 'the GIF' : 'the image';
  await awaitProcessing(call, token, { id: mediaId, what }, status?.data?.processing_info, processing);
  return mediaId;
}

const statusOf = (call: XHttp, token: string, id: string) =>
  call<Uploaded>({ method: 'GET', path: `/2/media/upload?command=STATUS&media_id=${id}`, token });

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
  return mediaIdOf(done);
}

/**
 * The v2 chunked upload: POST /2/media/upload/initialize, then /2/media/upload/{id}/append for
 * each segment (JSON, the chunk base64 in `media`), then /2/media/upload/{id}/finalize (no body).
 *
 * A GIF goes as `tweet_gif`: X plays a GIF as animated only in that category. X processes it after
 * finalize, which then answers with `processing_info`; the id may be posted only once a status
 * check says `succeeded` (awaitProcessing).
 */
async function uploadChunked(
  call: XHttp,
  token: string,
  media: ProviderMedia,
  processing: ProcessingWait,
): Promise<string> {
  const category = media.mimeType === 'image/gif' ? 'tweet_gif' : 'tweet_image';
  const init = await call<Data<{ id?: string }>>({
    method: 'POST',
    path: '/2/media/upload/initialize',
    token,
    json: { media_type: media.mimeType, total_bytes: media.data.byteLength, media_category: category },
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
  // Remembered before the wait, so a retry after svc stops waiting (or after an outage) checks
  // this id again instead of uploading and restarting X's processing.
  const keepSecs = Number(done?.data?.expires_after_secs);
  if (Number.isFinite(keepSecs) && keepSecs > 0) media.onUploaded?.(validId(done?.data?.id ?? id), keepSecs);
  const what = category === 'tweet_gif' ? 'the GIF' : 'the image';
  await awaitProcessing(call, token, { id, what }, done?.data?.processing_info, processing);
  return validId(done?.data?.id ?? id);
}

/**
 * Polls GET /2/media/upload?command=STATUS&media_id=<id> (getMediaUploadStatus in the X API v2
 * document; https://docs.x.com/x-api/media/media-upload-status) until X has processed the upload.
 * X's STATUS page: the state goes "pending" -> "in_progress" -> "failed" | "succeeded", and "You
 * can not use the media_id to create Tweet or other entities before the state field is set to
 * succeeded" (https://developer.x.com/en/docs/media/upload-media/api-reference/get-media-upload-status).
 * FINALIZE answers without `processing_info` when the media is ready at once
 * (https://developer.x.com/en/docs/twitter-api/v1/media/upload-media/api-reference/post-media-upload-finalize).
 *
 * Each pause is X's `check_after_secs` (at least 1 s, so a 0 never makes a busy loop), on the
 * injected wait. The pauses together stay under `maxMs`: a post never waits on X without bound.
 * Nothing is posted until `succeeded`, so giving up or a failure leaves nothing half-published.
 */
async function awaitProcessing(
  call: XHttp,
  token: string,
  { id, what }: { id: string; what: string },
  first: ProcessingInfo | undefined,
  processing: ProcessingWait,
): Promise<void> {
  const maxMs = processing.maxMs ?? PROCESSING_WAIT_MS;
  let info = first;
  const waited = processing.waited ?? { ms: 0 };
  while (info?.state && info.state !== 'succeeded') {
    if (info.state === 'failed') {
      const message = info.error?.message;
      const why = typeof message === 'string' && message ? `: ${message}` : '';
      throw new ProviderError(
        'x',
        'rejected',
        `X could not process ${what} (media ${id})${why}. Nothing was posted. Attach another GIF (X takes animated GIFs up to 15 MB) or a still image, then post again.`,
      );
    }
    if (info.state !== 'pending' && info.state !== 'in_progress') {
      throw new ProviderError(
        'x',
        'rejected',
        `X answered an unknown processing state '${info.state}' for media ${id}.`,
      );
    }
    // Not a number (or none) is the shortest pause: NaN would slip past the bound below.
    const askedMs = Number(info.check_after_secs) * 1000;
    const pauseMs = Number.isFinite(askedMs) ? Math.max(MIN_CHECK_MS, askedMs) : MIN_CHECK_MS;
    if (waited.ms + pauseMs > maxMs) {
      const progress = typeof info.progress_percent === 'number' ? `, ${info.progress_percent}% done` : '';
      throw new ProviderError(
        'x',
        'unavailable',
        `X was still processing ${what} (media ${id}${progress}) after ${waited.ms / 1000} s, and svc waits at most ${maxMs / 1000} s for a post's media. Nothing was posted; the post will be tried again later.`,
      );
    }
    try {
      await pause(processing, pauseMs);
    } catch (err) {
      if (!processing.signal?.aborted) throw err;
      // X keeps processing; the id is remembered (onUploaded), so the retry checks it, not re-uploads.
      throw new ProviderError(
        'x',
        'unavailable',
        `svc stopped while X was still processing ${what} (media ${id}). Nothing was posted; the post will be tried again later.`,
      );
    }
    waited.ms += pauseMs;
    info = (await statusOf(call, token, id))?.data?.processing_info;
  }
}

/** The id goes into a later request's body and a path: only X's numeric ids pass. */
function validId(id: string | undefined): string {
  if (!id || !/^[0-9]{1,19}$/.test(id)) {
    throw new ProviderError('x', 'rejected', 'X’s media upload answered without an upload id.');
  }
  return id;
}

/** The id of a one-request upload: a still image is ready once uploaded. */
function mediaIdOf(done: Uploaded | undefined): string {
  const state = done?.data?.processing_info?.state;
  if (state && state !== 'succeeded') {
    throw new ProviderError('x', 'rejected', `X did not accept the image (processing ${state}).`);
  }
  return validId(done?.data?.id);
}
