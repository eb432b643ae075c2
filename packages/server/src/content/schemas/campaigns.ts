import { z } from 'zod';
import { named } from '../schemas.js';
import { Id, Text, Timestamp } from './common.js';

const day = z.iso.date().describe('YYYY-MM-DD');

export const Campaign = named(
  'Campaign',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    name: z.string(),
    goal: z.string().nullable(),
    starts_on: z.string().nullable(),
    ends_on: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export type CampaignView = z.output<typeof Campaign>;

export const CreateCampaignBody = z.strictObject({
  brand_id: Id,
  name: Text(120),
  goal: Text(1000).optional(),
  starts_on: day.optional(),
  ends_on: day.optional(),
});
export const PatchCampaignBody = z.strictObject({
  name: Text(120).optional(),
  goal: Text(1000).nullable().optional(),
  starts_on: day.nullable().optional(),
  ends_on: day.nullable().optional(),
});

export const COLORS = ['yellow', 'pink', 'blue', 'green', 'purple'] as const;

export const CanvasItem = named(
  'CanvasItem',
  z.object({
    id: z.string(),
    campaign_id: z.string(),
    kind: z.enum(['note', 'idea']),
    ref_id: z.string().nullable(),
    text: z.string(),
    color: z.enum(COLORS),
    x: z.number(),
    y: z.number(),
    w: z.number(),
    h: z.number(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export type CanvasItemView = z.output<typeof CanvasItem>;
export const Canvas = named('Canvas', z.object({ campaign_id: z.string(), items: z.array(CanvasItem) }));

export const AddNoteBody = z.strictObject({ text: Text(2000), color: z.enum(COLORS).default('yellow') });
const coord = z.number().min(-1_000_000).max(1_000_000);
const size = z.number().min(20).max(5000);
export const PatchCanvasItemBody = z.strictObject({
  text: Text(2000).optional(),
  color: z.enum(COLORS).optional(),
  x: coord.optional(),
  y: coord.optional(),
  w: size.optional(),
  h: size.optional(),
});
export const CanvasItemParams = z.strictObject({ id: Id, itemId: Id });
