import { z } from 'zod';
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
