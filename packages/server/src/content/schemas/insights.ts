import { z } from 'zod';
import { named } from '../schemas.js';
import { Platform, ReplyTheme, Timestamp } from './common.js';

export const Citation = named(
  'DigestItem',
  z.object({
    text: z.string(),
    post_ids: z.array(z.string()),
    signal_ids: z.array(z.string()),
  }),
);
export const Digest = named(
  'Digest',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    run_id: z.string().nullable(),
    period_start: Timestamp,
    period_end: Timestamp,
    headline: z.string(),
    stats: z.object({
      posts_published: z.number().int(),
      impressions: z.number().int(),
      engagements: z.number().int(),
      engagement_rate: z.number(),
      change_vs_previous: z.number().nullable().describe('Engagements vs the period before, as a fraction.'),
      replies: z.number().int(),
    }),
    wins: z.array(Citation),
    misses: z.array(Citation),
    patterns: z.array(Citation),
    recommendations: z.array(Citation),
    created_at: Timestamp,
  }),
);
export type DigestView = z.output<typeof Digest>;

export const Overview = named(
  'InsightsOverview',
  z.object({
    brand_id: z.string().nullable(),
    days: z.number().int(),
    period_start: Timestamp,
    period_end: Timestamp,
    posts_published: z.number().int(),
    impressions: z.number().int(),
    engagements: z.number().int(),
    engagement_rate: z.number(),
    change_vs_previous: z.number().nullable(),
    replies: z.number().int(),
    scheduled: z.number().int(),
    pending_approvals: z.number().int(),
    by_platform: z.array(
      z.object({
        platform: Platform,
        posts: z.number().int(),
        impressions: z.number().int(),
        engagements: z.number().int(),
      }),
    ),
    verdicts: z
      .object({
        outperforming: z.number().int(),
        on_par: z.number().int(),
        underperforming: z.number().int(),
        not_enough_data: z.number().int().describe('Fewer than 3 comparable posts at its age.'),
        too_early: z.number().int().describe('No snapshot yet.'),
      })
      .describe('Each published post of the period once, by its verdict: the counts sum to posts_published.'),
    top_post: z
      .object({ id: z.string(), platform: Platform, engagements: z.number().int(), excerpt: z.string() })
      .nullable(),
  }),
);

export const Conversation = named(
  'Conversation',
  z.object({
    brand_id: z.string(),
    days: z.number().int(),
    total_replies: z.number().int(),
    themes: z.array(
      z.object({
        id: z.string().describe('Usable as `from` in memory save: theme_<kind>_<brand id>.'),
        theme: ReplyTheme,
        label: z.string(),
        count: z.number().int(),
        share: z.number(),
        top_terms: z.array(z.string()),
        examples: z.array(z.object({ reply_id: z.string(), post_id: z.string(), text: z.string() })),
      }),
    ),
  }),
);
export type ConversationView = z.output<typeof Conversation>;

export const BestTimes = named(
  'BestTimes',
  z.object({
    brand_id: z.string(),
    timezone: z.string().describe('Server local time zone; weekday and hour are in it.'),
    platforms: z.array(
      z.object({
        platform: Platform,
        source: z.enum(['history', 'default']).describe('default: too little history; platform defaults.'),
        sample_size: z.number().int(),
        slots: z.array(
          z.object({
            weekday: z.number().int().min(0).max(6).describe('0 = Sunday.'),
            hour: z.number().int().min(0).max(23),
            score: z.number().min(0).max(1),
          }),
        ),
        next_free: z
          .object({ channel_id: z.string(), at: Timestamp })
          .nullable()
          .describe('The next free best-time slot on the connected channel.'),
      }),
    ),
  }),
);
export type BestTimesView = z.output<typeof BestTimes>;
