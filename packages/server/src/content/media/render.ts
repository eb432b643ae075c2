import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type sharp from 'sharp';
import { readSliced } from '../../platform/sliced/work.js';
import { gifTooLarge, unsupportedMedia } from './errors.js';
import { gifWithoutText } from './gif-blocks.js';
import { CROP_NAMES, CROPS, type CropName, ORIGINAL_MAX_EDGE } from './platforms.js';

/** Formats we decode. SVG is refused: it is a document (scripts, external references), not a picture. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

export interface VariantFile {
  file: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
}

export interface FocalPoint {
  x: number;
  y: number;
}

/**
 * sharp is loaded on the first image, not at start: it maps libvips and its codecs (tens of MB of
 * native code) and its import was a noticeable part of a cold start, for a server that may never
 * see an upload. The module cache makes every later call share the one instance.
 */
let loading: Promise<typeof sharp> | null = null;
const loadSharp = () => {
  loading ??= import('sharp').then((m) => m.default);
  return loading;
};

/**
 * One input. `animated` decodes every frame (sharp stacks them into one tall image, so
 * `limitInputPixels` then bounds all frames together); without it only the first frame is read.
 */
const input = async (path: string, maxPixels: number, animated = false) =>
  (await loadSharp())(path, { limitInputPixels: maxPixels, failOn: 'error', sequentialRead: true, animated });

/**
 * Most frames an animated GIF may have: X's "Number of frames <= 350", one of the constraints its
 * media best practices give under "Animated GIF recommendations" ("A GIF may fail during Tweet
 * creation even if it is within the file size limit. Adhere to the following constraints to
 * improve success rates": resolution <= 1280x1080, frames <= 350, width * height * frames <= 300
 * million, file size <= 15Mb;
 * https://developer.twitter.com/en/docs/twitter-api/v1/media/upload-media/uploading-media/media-best-practices).
 * The number is right; it is a recommendation X gives, not a refusal it documents. It is the
 * strictest of the platforms that take a GIF, and bounds the work a tiny file that declares
 * thousands of frames can cause.
 */
export const GIF_MAX_FRAMES = 350;

/**
 * Most pixels an animated GIF may have, all frames counted (each frame is at most the image's
 * full size), under the decode budget for other images. sharp decodes every frame of an animated
 * GIF at once, 4 bytes a pixel, and the re-encode keeps them all: the old budget, the 60 million
 * pixels of a still, let one upload of a GIF take about 200 MB more memory (measured,
 * docs/content/media.md), several at once a small server's whole memory. 24 million is about
 * 80 MB: 17 frames at X's largest GIF, 1280×1080, 104 at 640×360, 185 at 480×270. X itself stops
 * at 300 million, far past what this server would decode
 * (https://docs.x.com/x-api/media/quickstart/best-practices, "Animated GIF recommendations").
 */
export const GIF_MAX_PIXELS = 24_000_000;

/**
 * The largest frame an animated original keeps: X's GIF resolution, "<= 1280x1080" (same page).
 * A larger GIF is shrunk to fit, frame by frame as it is decoded, so the re-encode, and the four
 * crops read from the original, work on frames of at most this size: the largest GIF accepted
 * before (four 4000×3750 frames) took 530 MB for one upload, most of it in those steps.
 */
export const GIF_MAX_WIDTH = 1280;
export const GIF_MAX_HEIGHT = 1080;

/** The pixels every frame of an animated GIF may hold together: GIF_MAX_PIXELS, or less if a context's budget is lower. */
const animatedBudget = (maxPixels: number) => Math.min(maxPixels, GIF_MAX_PIXELS);

export interface ImageProbe {
  hasAlpha: boolean;
  /** More than one frame: an animated GIF, kept animated. Other formats' pages are not kept. */
  animated: boolean;
}

/** Proves the bytes are an image we accept, by decoding its header; never trusts the file name or type. */
export async function probeImage(path: string, maxPixels: number): Promise<ImageProbe> {
  // Outside the try: a broken sharp install is a server fault, not a file we refuse.
  await loadSharp();
  let meta: sharp.Metadata;
  try {
    meta = await (await input(path, maxPixels)).metadata();
  } catch {
    throw unsupportedMedia(
      'The file is not an image or video we accept (JPEG, PNG, WebP, GIF, AVIF, HEIF, TIFF, MP4, MOV, WebM).',
    );
  }
  if (!meta.format || !ACCEPTED_FORMATS.has(meta.format)) {
    throw unsupportedMedia(
      `'${meta.format ?? 'unknown'}' images are not accepted. Use JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF.`,
    );
  }
  if (!meta.width || !meta.height) throw unsupportedMedia('The image has no dimensions.');
  if (meta.width * meta.height > maxPixels) {
    throw unsupportedMedia(`The image has more than ${maxPixels.toLocaleString('en')} pixels.`);
  }
  // The header tells the frame count without decoding a frame, so a frame bomb is refused here,
  // before the render decodes every frame.
  const frames = meta.format === 'gif' ? (meta.pages ?? 1) : 1;
  if (frames > GIF_MAX_FRAMES) {
    throw unsupportedMedia(
      `The GIF has ${frames} frames; at most ${GIF_MAX_FRAMES} are accepted (X's limit). Shorten it or lower its frame rate.`,
    );
  }
  const gifBudget = animatedBudget(maxPixels);
  if (frames > 1 && meta.width * meta.height * frames > gifBudget) {
    throw unsupportedMedia(
      `The GIF's ${frames} frames of ${meta.width}×${meta.height} make more than ${gifBudget.toLocaleString('en')} pixels in all. Make it smaller or shorter.`,
    );
  }
  // An alpha channel that is fully opaque (common in exported PNGs) does not need PNG output.
  let hasAlpha = false;
  try {
    hasAlpha = Boolean(meta.hasAlpha) && !(await (await input(path, maxPixels)).stats()).isOpaque;
  } catch {
    throw unsupportedMedia(
      'The image could not be decoded; it may be truncated or use an unsupported codec.',
    );
  }
  return { hasAlpha, animated: frames > 1 };
}

/**
 * Whether an asset's crops are PNG: a PNG original's are (it has transparency), and so are an
 * animated GIF's (its palette may hold a transparent colour, and the type alone must tell a
 * recrop which encoding to use).
 */
export const cropsAlpha = (originalMime: string, hasAlpha: boolean) =>
  originalMime === 'image/gif' || hasAlpha;

/** JPEG unless the image has transparency, which JPEG would flatten onto black. */
const encode = (img: sharp.Sharp, alpha: boolean) =>
  alpha ? img.png({ compressionLevel: 9 }) : img.jpeg({ quality: 85, mozjpeg: true });
const extOf = (alpha: boolean) => (alpha ? 'png' : 'jpg');
const mimeOf = (alpha: boolean) => (alpha ? 'image/png' : 'image/jpeg');

async function written(
  dir: string,
  file: string,
  alpha: boolean,
  info: sharp.OutputInfo,
): Promise<VariantFile> {
  const { size } = await stat(join(dir, file));
  return { file, mime: mimeOf(alpha), width: info.width, height: info.height, bytes: size };
}

/**
 * The served `original`: upright (EXIF orientation applied), re-encoded so camera metadata
 * (GPS, serial numbers) is dropped, and capped so crops render quickly. An animated GIF stays an
 * animated GIF (every frame, its delays and loop count), so it posts as an animation.
 */
export async function renderOriginal(
  source: string,
  dir: string,
  opts: { alpha: boolean; maxPixels: number; animated?: boolean; gifMaxBytes: number },
): Promise<VariantFile> {
  if (opts.animated) return renderAnimatedOriginal(source, dir, opts);
  const file = `original.${extOf(opts.alpha)}`;
  const img = (await input(source, opts.maxPixels))
    .rotate()
    .resize({ width: ORIGINAL_MAX_EDGE, height: ORIGINAL_MAX_EDGE, fit: 'inside', withoutEnlargement: true });
  const info = await encode(img, opts.alpha).toFile(join(dir, file));
  return written(dir, file, opts.alpha, info);
}

/**
 * An animated GIF, re-encoded frame by frame: sharp writes no comment or application extension
 * but the loop count, so whatever text the upload carried is dropped, as EXIF is for stills. GIF
 * has no EXIF orientation, so nothing is rotated. Width and height are one frame's, at most
 * GIF_MAX_WIDTH × GIF_MAX_HEIGHT.
 *
 * A re-encode can come out larger than the upload (a GIF from an optimiser that draws only what
 * changes between frames, or with a small palette), and X refuses a GIF over 15 MB. So when the
 * re-encode is not smaller, the upload itself, without its text blocks, is kept if its frames
 * already fit X's size; and a GIF that fits `gifMaxBytes` neither way is refused, since no
 * platform would take it.
 */
async function renderAnimatedOriginal(
  source: string,
  dir: string,
  opts: { maxPixels: number; gifMaxBytes: number },
): Promise<VariantFile> {
  const file = 'original.gif';
  const path = join(dir, file);
  // The probe refused a GIF over this budget from its header; sharp enforces it again while decoding.
  const img = (await input(source, animatedBudget(opts.maxPixels), true)).resize({
    width: GIF_MAX_WIDTH,
    height: GIF_MAX_HEIGHT,
    fit: 'inside',
    withoutEnlargement: true,
  });
  const info = await img.gif().toFile(path);
  const reencoded = (await stat(path)).size;
  let kept: VariantFile = {
    file,
    mime: 'image/gif',
    width: info.width,
    height: info.pageHeight ?? info.height,
    bytes: reencoded,
  };
  const own = await uploadIfSmaller(source, reencoded);
  if (own) {
    await writeFile(path, own.bytes);
    kept = { ...kept, width: own.width, height: own.height, bytes: own.bytes.length };
  }
  if (kept.bytes > opts.gifMaxBytes) throw gifTooLarge(kept.bytes, opts.gifMaxBytes);
  return kept;
}

/**
 * The upload without its text blocks, when that is smaller than the re-encode and its frames fit
 * X's GIF size; null otherwise. Read whole: it is at most the image cap (20 MB), a quarter of what
 * the decode above may take. The walk over its blocks is sliced (gif-blocks.ts): the upload is
 * outside input, and may be millions of tiny blocks.
 */
async function uploadIfSmaller(source: string, reencodedBytes: number) {
  const own = await readSliced(gifWithoutText(await readFile(source), reencodedBytes));
  if (!own || own.width > GIF_MAX_WIDTH || own.height > GIF_MAX_HEIGHT) return null;
  return own;
}

/** The largest window of `ratio` inside w×h, centred on the focal point and kept inside the image. */
export function cropBox(w: number, h: number, ratio: number, focal: FocalPoint) {
  const width = w / h > ratio ? Math.max(1, Math.round(h * ratio)) : w;
  const height = w / h > ratio ? h : Math.max(1, Math.round(w / ratio));
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);
  return {
    left: clamp(Math.round(focal.x * w - width / 2), w - width),
    top: clamp(Math.round(focal.y * h - height / 2), h - height),
    width,
    height,
  };
}

/** Every crop from the (already upright, re-encoded) original. `rev` keeps each render at a new URL. */
export async function renderCrops(
  original: VariantFile,
  dir: string,
  /**
   * `signal`: the asset's lease was lost (locks.ts). Checked once a crop's input is open, before
   * its encode starts; the crops run side by side in sharp's pool, so most of the time all have
   * started by then. What makes a lost lease safe is the fence: the caller's row write is refused
   * and this revision's files are removed (service.ts). The check only saves work.
   */
  opts: { focal: FocalPoint; rev: number; alpha: boolean; maxPixels: number; signal?: AbortSignal },
): Promise<Record<CropName, VariantFile>> {
  const out = {} as Record<CropName, VariantFile>;
  await Promise.all(
    CROP_NAMES.map(async (name) => {
      const spec = CROPS[name];
      const box = cropBox(original.width, original.height, spec.ratio, opts.focal);
      const file = `${name}.${opts.rev}.${extOf(opts.alpha)}`;
      const opened = await input(join(dir, original.file), opts.maxPixels);
      opts.signal?.throwIfAborted();
      const img = opened
        .extract(box)
        .resize({ width: spec.width, height: spec.height, fit: 'fill', withoutEnlargement: true });
      const info = await encode(img, opts.alpha).toFile(join(dir, file));
      out[name] = await written(dir, file, opts.alpha, info);
    }),
  );
  return out;
}
