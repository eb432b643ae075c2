import { z } from 'zod';
import { named } from '../schemas.js';
import {
  DateTimeInput,
  Id,
  Platform,
  PostStatus,
  partsOrText,
  ReplyTheme,
  Timestamp,
  Verdict,
} from './common.js';
import { DraftPart } from './drafts.js';

export const Metrics = named(
  'PostMetrics',
  z.object({
    age_h: z.number().int().describe('Hours after publishing when the snapshot was taken.'),
    taken_at: Timestamp,
    impressions: z.number().int(),
    likes: z.number().int(),
    comments: z.number().int(),
    shares: z.number().int(),
    clicks: z.number().int(),
    engagements: z.number().int().describe('likes + comments + shares + clicks'),
  }),
);
export type MetricsView = z.output<typeof Metrics>;

export const Post = named(
  'Post',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    channel_id: z.string(),
    platform: Platform,
    status: PostStatus,
    parts: z.array(DraftPart),
    draft_id: z.string().nullable(),
    draft_version: z.number().int().nullable(),
    idea_id: z.string().nullable(),
    scheduled_for: Timestamp.nullable(),
    published_at: Timestamp.nullable(),
    permalink: z.string().nullable(),
    sandbox: z.boolean().describe('Published by the sandbox publisher: nothing left the machine.'),
    failure: z.string().nullable(),
    notice: z
      .string()
      .nullable()
      .describe(
        'What the person should know about publishing: why an `unconfirmed` post may be live and what to do, or why a scheduled post waits until `retry_at`.',
      ),
    retry_at: Timestamp.nullable().describe(
      'A scheduled post the platform asked to wait (429 Retry-After) or that failed on a call that changed nothing (5xx) goes out again at this time.',
    ),
    metrics: Metrics.nullable().describe('The latest snapshot.'),
    verdict: Verdict,
    settled_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export type PostView = z.output<typeof Post>;

export const Outcome = named(
  'PostOutcome',
  z.object({
    post_id: z.string(),
    verdict: Verdict,
    ratio: z.number().nullable().describe('Engagements ÷ brand median at the same age.'),
    age_h: z.number().int().nullable(),
    engagements: z.number().int().nullable(),
    baseline_engagements: z.number().nullable(),
    compared_with: z.number().int().describe('How many of the brand’s other posts formed the median.'),
    settled: z.boolean(),
  }),
);
export type OutcomeView = z.output<typeof Outcome>;

export const PostDetail = named(
  'PostDetail',
  Post.extend({
    outcome: Outcome,
    growth: z.array(Metrics).describe('Every snapshot, oldest first.'),
    baseline: z
      .array(z.object({ age_h: z.number().int(), engagements: z.number() }))
      .describe("The brand's median curve over its other published posts on the same platform."),
  }),
);

export const CreatePostBody = z.strictObject({
  draft_id: Id.optional().describe("Publishes the draft's current version."),
  channel_id: Id.optional().describe("Defaults to the brand's connected channel for the draft's platform."),
  ...partsOrText,
  scheduled_for: DateTimeInput.optional().describe('Leave out to publish now.'),
});
export const ConfirmPostBody = z.strictObject({
  published: z
    .boolean()
    .describe(
      'true: the post is on the platform. false: it is not; it goes back in the schedule and out now.',
    ),
  external_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      "The platform's id of the post (the number at the end of an X post's URL), so its metrics can be read. Checked on the platform.",
    ),
  permalink: z.string().url().max(2000).optional().describe("The post's address on the platform."),
});
export const PatchPostBody = z.strictObject({
  ...partsOrText,
  scheduled_for: DateTimeInput.optional(),
});

export const Reply = named(
  'Reply',
  z.object({
    id: z.string(),
    post_id: z.string(),
    author: z.string(),
    text: z.string(),
    theme: ReplyTheme,
    created_at: Timestamp,
  }),
);
