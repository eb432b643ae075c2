import { z } from 'zod';
import { IDEA_SHORTFALL_REASONS } from '../domain.js';
import { named } from '../schemas.js';
import { Id, IdeaStatus, SignalKind, Text, Timestamp } from './common.js';

export const Idea = named(
  'Idea',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    campaign_id: z.string().nullable(),
    title: z.string(),
    angle: z.string().nullable(),
    notes: z.string().nullable(),
    status: IdeaStatus,
    signal: z
      .object({ id: z.string(), kind: SignalKind, title: z.string() })
      .nullable()
      .describe('The signal the idea was suggested from.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export type IdeaView = z.output<typeof Idea>;

export const CreateIdeaBody = z.strictObject({
  brand_id: Id,
  title: Text(200),
  angle: Text(500).optional(),
  notes: Text(5000).optional(),
  campaign_id: Id.optional(),
});
export type CreateIdeaInput = z.output<typeof CreateIdeaBody>;

export const PatchIdeaBody = z.strictObject({
  title: Text(200).optional(),
  angle: Text(500).nullable().optional(),
  notes: Text(5000).nullable().optional(),
  status: IdeaStatus.optional().describe('Allowed moves: see docs/content/states.md.'),
  campaign_id: Id.nullable().optional(),
});
export type PatchIdeaInput = z.output<typeof PatchIdeaBody>;

export const GenerateIdeasBody = z.strictObject({
  brand_id: Id,
  count: z.number().int().min(1).max(10).default(3),
  campaign_id: Id.optional(),
});

export const IdeaShortfall = named(
  'IdeaShortfall',
  z
    .object({
      count: z.number().int().min(1).describe('How many fewer ideas were made than requested.'),
      reason: z
        .enum(IDEA_SHORTFALL_REASONS)
        .describe(
          "SIGNALS_EXHAUSTED: the brand's signals of the last 30 days gave no more new ideas; every further suggestion repeated an idea the brand already has.",
        ),
      message: z.string().describe('The reason in a sentence, with what to do about it.'),
    })
    .describe('Why fewer ideas were made than requested; null when all were made.'),
);
export type IdeaShortfallView = z.output<typeof IdeaShortfall>;

/**
 * What `POST /v1/ideas/generate` and the MCP tool `suggest_ideas` return: at least one idea
 * (making none is a 409), how many were asked for, and why fewer were made if they were.
 */
export const GeneratedIdeas = named(
  'GeneratedIdeas',
  z.object({
    ideas: z.array(Idea).min(1),
    requested: z.number().int().describe('The `count` asked for.'),
    shortfall: IdeaShortfall.nullable(),
  }),
);
export type GeneratedIdeasView = z.output<typeof GeneratedIdeas>;
