import { z } from 'zod';
import {
  AGENT_IDS,
  APPROVAL_STATUSES,
  CALLER_SOURCES,
  DRAFT_STATUSES,
  EVENT_NAMES,
  IDEA_STATUSES,
  PAGE,
  PLATFORMS,
  POST_STATUSES,
  PROPOSAL_STATUSES,
  REPLY_THEMES,
  RUN_STATUSES,
  SIGNAL_KINDS,
  VERDICTS,
} from '../domain.js';
import { named } from '../schemas.js';

export const Platform = named('Platform', z.enum(PLATFORMS));
export const IdeaStatus = named('IdeaStatus', z.enum(IDEA_STATUSES));
export const ApprovalStatus = named('ApprovalStatus', z.enum(APPROVAL_STATUSES));
export const PostStatus = named('PostStatus', z.enum(POST_STATUSES));
export const DraftStatus = named('DraftStatus', z.enum(DRAFT_STATUSES));
export const RunStatus = named('AgentRunStatus', z.enum(RUN_STATUSES));
export const ProposalStatus = named('MemoryProposalStatus', z.enum(PROPOSAL_STATUSES));
export const Verdict = named(
  'Verdict',
  z
    .enum(VERDICTS)
    .describe(
      'Against the brand median at the same age: outperforming ≥ 1.2×, underperforming ≤ 0.8×; too_early before the first snapshot; not_enough_data with fewer than 3 other posts.',
    ),
);
export const ReplyTheme = named('ReplyTheme', z.enum(REPLY_THEMES));
export const SignalKind = named('SignalKind', z.enum(SIGNAL_KINDS));
export const CallerSource = named('CallerSource', z.enum(CALLER_SOURCES));
export const AgentId = named('AgentId', z.enum(AGENT_IDS));
export const EventName = named('EventName', z.enum(EVENT_NAMES));

export const Id = z.string().min(1).max(100);
export const Timestamp = z.string().describe('ISO-8601 UTC timestamp.');
export const DateTimeInput = z.iso.datetime({ offset: true }).describe('ISO-8601 date-time with a zone.');
export const Text = (max: number) => z.string().trim().min(1).max(max);

/**
 * Post text in a request: `parts`, or `text` for a single part. The platform limits (characters
 * per part, parts per post) are rules the service checks for every platform alike (422 TOO_LONG,
 * TOO_MANY_PARTS); these bounds only keep requests sane and sit well above every limit.
 */
export const PART_INPUT_BOUNDS = { chars: 10_000, parts: 100 } as const;
const PartText = z.string().trim().min(1).max(PART_INPUT_BOUNDS.chars);
export const partsOrText = {
  parts: z
    .array(z.strictObject({ text: PartText }))
    .min(1)
    .max(PART_INPUT_BOUNDS.parts)
    .optional()
    .describe('The parts of the post, in order; how many and how long each may be depends on the platform.'),
  text: PartText.optional().describe('Shorthand for a single part.'),
};

export const IdParams = z.strictObject({ id: Id });

/** `limit` (default 20, max 100) and the opaque `after` cursor from the previous page's `next_after`. */
export const pageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGE.maxLimit)
    .default(PAGE.defaultLimit)
    .describe(`Page size, 1-${PAGE.maxLimit}; default ${PAGE.defaultLimit}.`),
  after: z.string().min(1).max(500).optional().describe('Cursor: `next_after` of the previous page.'),
};

export const pageOf = <K extends string, S extends z.ZodType>(key: K, item: S) =>
  z.object({
    [key]: z.array(item),
    has_more: z.boolean(),
    next_after: z.string().nullable(),
  } as { [P in K]: z.ZodArray<S> } & { has_more: z.ZodBoolean; next_after: z.ZodNullable<z.ZodString> });

export const Deleted = named('Deleted', z.object({ id: z.string(), deleted: z.literal(true) }));

export interface Page<T> {
  items: T[];
  has_more: boolean;
  next_after: string | null;
}
