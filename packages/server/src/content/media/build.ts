import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../platform/errors.js';
import { mediaTooLarge, unsupportedMedia } from './errors.js';
import type { MediaLimits } from './limits.js';
import { cropsAlpha, probeImage, renderCrops, renderOriginal } from './render.js';
import { probeIsoVideo, SNIFF_BYTES, sniffVideo } from './sniff.js';

async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Builds the asset's files in a staging directory from a file that is already on disk. */
export async function buildAssetFiles(source: string, bytes: number, dir: string, limits: MediaLimits) {
  const video = sniffVideo(await readHead(source));
  if (video) {
    if (bytes > limits.videoMaxBytes) throw mediaTooLarge(limits.videoMaxBytes, 'video');
    const file = `original.${video.ext}`;
    await rename(source, join(dir, file));
    const probe = video.ext === 'webm' ? null : await probeIsoVideo(join(dir, file));
    const original = {
      file,
      mime: video.mime,
      width: probe?.width ?? null,
      height: probe?.height ?? null,
      bytes,
    };
    return {
      kind: 'video' as const,
      original,
      variants: { original },
      durationMs: probe?.durationMs ?? null,
    };
  }
  if (bytes > limits.imageMaxBytes) throw mediaTooLarge(limits.imageMaxBytes, 'image');
  const { hasAlpha, animated } = await probeImage(source, limits.maxInputPixels);
  const opts = { alpha: hasAlpha, maxPixels: limits.maxInputPixels };
  // A valid header does not make a decodable image (truncated file, HEVC-coded HEIC, ...).
  const undecodable = (err: unknown) => {
    // A refusal with its own reason (a GIF no platform takes) keeps it.
    if (err instanceof AppError) throw err;
    throw unsupportedMedia(
      'The image could not be decoded; it may be truncated or use an unsupported codec.',
    );
  };
  const original = await renderOriginal(source, dir, {
    ...opts,
    animated,
    gifMaxBytes: limits.gifMaxBytes,
  }).catch(undecodable);
  // Crops are stills (the first frame), previews for the platforms that take no GIF; an animated
  // GIF's are PNG, as a recrop knows them by the original's type (cropsAlpha).
  const crops = await renderCrops(original, dir, {
    ...opts,
    alpha: cropsAlpha(original.mime, hasAlpha),
    focal: { x: 0.5, y: 0.5 },
    rev: 1,
  }).catch(undecodable);
  return { kind: 'image' as const, original, variants: { original, ...crops }, durationMs: null };
}
