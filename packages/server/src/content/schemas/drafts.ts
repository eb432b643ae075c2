import { z } from 'zod';
import { named } from '../schemas.js';
import { DraftStatus, Id, Platform, partsOrText, Text, Timestamp } from './common.js';

export const DraftMedia = named(
  'DraftMedia',
  z.object({ asset_id: z.string(), variant: z.string(), url: z.string().nullable(), kind: z.string() }),
);
export const DraftPart = named(
  'DraftPart',
  z.object({
    text: z.string(),
    chars: z.number().int(),
    media: z.array(DraftMedia).describe('Only the first part carries media.'),
  }),
);
export type DraftPartView = z.output<typeof DraftPart>;

export const DRAFT_ACTIONS = ['create', 'generate', 'rewrite', 'edit', 'attach_media'] as const;
export const DraftVersion = named(
  'DraftVersion',
  z.object({
    version: z.number().int(),
    action: z.enum(DRAFT_ACTIONS),
    note: z.string().nullable(),
    parts: z.array(DraftPart),
    source: z.string(),
    created_at: Timestamp,
  }),
);

export const Draft = named(
  'Draft',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    idea_id: z.string().nullable(),
    platform: Platform,
    status: DraftStatus,
    version: z.number().int().describe('The current version number; versions start at 1.'),
    parts: z.array(DraftPart),
    limit: z.number().int().describe('Characters per part on this platform.'),
    fits: z.boolean().describe('Every part is within the platform limit.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export type DraftView = z.output<typeof Draft>;
export const DraftDetail = named(
  'DraftDetail',
  Draft.extend({ versions: z.array(DraftVersion).describe('Every version, oldest first.') }),
);

export const CreateDraftBody = z.strictObject({
  brand_id: Id,
  platform: Platform,
  idea_id: Id.optional(),
  ...partsOrText,
});
export const EditDraftBody = z.strictObject({ ...partsOrText, note: Text(500).optional() });
export const GenerateDraftsBody = z.strictObject({
  idea_id: Id,
  platforms: z.array(Platform).min(1).max(4),
});
export const RewriteDraftBody = z.strictObject({
  instruction: Text(500).describe('e.g. "shorter", "more formal", "open with a question", "punchier".'),
});
export const AttachMediaBody = z.strictObject({
  asset_id: Id,
  variant: z.string().min(1).max(40).optional().describe("Defaults to the platform's preferred crop."),
});
