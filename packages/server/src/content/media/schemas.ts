import { z } from 'zod';
import { PLATFORMS } from '../domain.js';
import { named } from '../schemas.js';
import { VARIANT_NAMES } from './platforms.js';

/** Tags are compared case-insensitively, so they are stored lower-cased and trimmed. */
export const Tag = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(40)
  .regex(/^[^,]+$/, 'tags cannot contain commas');
export const Tags = z
  .array(Tag)
  .max(20)
  .transform((tags) => [...new Set(tags)]);
export const AltText = z.string().trim().max(1500);

export const FocalPoint = named(
  'MediaFocalPoint',
  z.strictObject({
    x: z.number().min(0).max(1).describe('0 is the left edge, 1 the right edge.'),
    y: z.number().min(0).max(1).describe('0 is the top edge, 1 the bottom edge.'),
  }),
  'The point every crop keeps in view, as fractions of width and height.',
);

export const VariantName = named('MediaVariantName', z.enum(VARIANT_NAMES));

export const MediaVariant = named(
  'MediaVariant',
  z.object({
    url: z
      .string()
      .describe('Public URL; absolute when CONTENT_PUBLIC_URL is set, else a root-relative path.'),
    mime: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    bytes: z.number().int(),
  }),
);

export const MediaAsset = named(
  'MediaAsset',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    kind: z.enum(['image', 'video']),
    mime: z.string().describe('Detected from the bytes, never taken from the client.'),
    bytes: z.number().int(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    duration_ms: z.number().int().nullable().describe('Video only; null for images and unmeasured video.'),
    alt: z.string(),
    title: z
      .string()
      .describe(
        'The file name it was uploaded as, or the last segment of the URL it was imported from; empty for assets made before titles existed.',
      ),
    tags: z.array(z.string()),
    focal_point: z.object({ x: z.number(), y: z.number() }),
    variants: z
      .partialRecord(VariantName, MediaVariant)
      .describe('`original` always; images also have square, portrait, landscape and wide crops.'),
    source: z.enum(['upload', 'url']),
    source_url: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type MediaAsset = z.output<typeof MediaAsset>;

export const MediaPage = z.object({
  media: z.array(MediaAsset),
  has_more: z.boolean(),
  next_after: z.string().nullable().describe('Pass as `after` for the next page; null on the last page.'),
});

const Ratio = z.object({ min: z.number(), max: z.number() });

export const MediaPlatformFit = named(
  'MediaPlatformFit',
  z.object({
    platform: z.enum(PLATFORMS),
    preferred_variant: VariantName.describe(
      'What attach_media uses on this platform when no variant is named.',
    ),
    preferred_url: z.string(),
    accepted_ratio: Ratio.describe('Width / height the platform shows without cropping.'),
    original_ratio_fits: z
      .boolean()
      .nullable()
      .describe('null when the ratio is unknown (unmeasured video).'),
    max_bytes: z
      .number()
      .int()
      .nullable()
      .describe(
        'The largest file the platform takes for what would be posted (the preferred crop; a video or an animated GIF itself). null when the platform takes no such media at all (an animated GIF on Instagram or Threads): then `ok` is false and `warnings` say what to attach instead.',
      ),
    max_duration_s: z.number().nullable(),
    ok: z.boolean().describe('The preferred variant can be posted as is.'),
    warnings: z.array(z.string()),
    why: z.string(),
  }),
);

export const MediaFit = named(
  'MediaFit',
  z.object({
    asset_id: z.string(),
    kind: z.enum(['image', 'video']),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    aspect_ratio: z.number().nullable(),
    duration_ms: z.number().int().nullable(),
    bytes: z.number().int(),
    platforms: z.array(MediaPlatformFit),
  }),
);
export type MediaFit = z.output<typeof MediaFit>;
