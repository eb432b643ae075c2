import type { Platform } from '../domain.js';

/**
 * Crops we render for every image. Target sizes follow what the platforms recommend for
 * feed images; smaller sources are cropped but never upscaled.
 */
export const CROPS = {
  square: { ratio: 1, width: 1080, height: 1080 },
  portrait: { ratio: 4 / 5, width: 1080, height: 1350 },
  landscape: { ratio: 1.91, width: 1200, height: 628 },
  wide: { ratio: 16 / 9, width: 1280, height: 720 },
} as const;
export type CropName = keyof typeof CROPS;
export const CROP_NAMES = Object.keys(CROPS) as CropName[];

/** `original` is the whole image, re-encoded (metadata stripped) and capped; or the video as uploaded. */
export const VARIANT_NAMES = ['original', ...CROP_NAMES] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

/**
 * Assets posted as uploaded rather than as a crop: video (it has no crops) and an animated GIF
 * (its crops are stills). The library keeps a GIF as GIF only when it is animated; a still GIF
 * becomes JPEG or PNG, so the original's type is enough to tell.
 */
export const goesWhole = (asset: { kind?: unknown; mime?: unknown }) =>
  asset.kind === 'video' || asset.mime === 'image/gif';

/** Longest edge of the re-encoded `original`: large enough for any feed, small enough to re-crop fast. */
export const ORIGINAL_MAX_EDGE = 4096;

export interface PlatformMediaRules {
  /** The crop `attach_media` uses when no variant is named. */
  preferred: CropName;
  /** Width / height the platform shows without cropping it itself. */
  ratio: { min: number; max: number };
  imageMaxBytes: number;
  videoMaxBytes: number;
  videoMaxSeconds: number;
  /** Largest animated GIF the platform posts as an animation; null where it takes no GIF. */
  gifMaxBytes: number | null;
  /** Why the preferred crop is the preferred one; returned by `fit`. */
  why: string;
}

const MB = 1024 * 1024;

/**
 * What we check against, taken from each platform's published limits for organic posts
 * (kept conservative where platforms differ between app and API).
 */
export const PLATFORM_MEDIA: Record<Platform, PlatformMediaRules> = {
  x: {
    preferred: 'wide',
    ratio: { min: 0.5, max: 3 },
    imageMaxBytes: 5 * MB,
    videoMaxBytes: 512 * MB,
    videoMaxSeconds: 140,
    // "Animated GIF size: <= 15 MB" (https://docs.x.com/x-api/media/quickstart/best-practices).
    gifMaxBytes: 15 * MB,
    why: 'X shows single images at 16:9 in the timeline without cropping.',
  },
  linkedin: {
    preferred: 'landscape',
    ratio: { min: 0.5, max: 2.4 },
    imageMaxBytes: 8 * MB,
    videoMaxBytes: 500 * MB,
    videoMaxSeconds: 600,
    // The Images API takes JPG, PNG and GIF (publishers/linkedin); held to its image cap.
    gifMaxBytes: 8 * MB,
    why: 'LinkedIn link-style feed images are 1.91:1 (1200×628).',
  },
  instagram: {
    preferred: 'portrait',
    ratio: { min: 0.8, max: 1.91 },
    imageMaxBytes: 8 * MB,
    videoMaxBytes: 300 * MB,
    videoMaxSeconds: 90,
    // The Graph API publishes JPEG images only (publishers/instagram).
    gifMaxBytes: null,
    why: 'Instagram feed images from 4:5 to 1.91:1; 4:5 portrait takes the most screen.',
  },
  threads: {
    preferred: 'portrait',
    ratio: { min: 0.5, max: 1.91 },
    imageMaxBytes: 8 * MB,
    videoMaxBytes: 1024 * MB,
    videoMaxSeconds: 300,
    // Threads takes JPEG and PNG images (publishers/threads).
    gifMaxBytes: null,
    why: 'Threads shows images up to 4:5 portrait uncropped, like Instagram.',
  },
};
