/** Enumerations and limits shared by schemas, services and the simulated model. */

export const PLATFORMS = ['x', 'linkedin', 'instagram', 'threads'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Characters per part. X and Threads posts can run as a thread of several parts. */
export const PLATFORM_LIMITS: Record<Platform, number> = {
  x: 280,
  linkedin: 3000,
  instagram: 2200,
  threads: 500,
};

/** How many parts a draft may have: only X and Threads support threads of posts. */
export const MAX_PARTS: Record<Platform, number> = { x: 25, linkedin: 1, instagram: 1, threads: 10 };

/** Above this many hashtags the voice check warns; it reads as spam on that platform. */
export const HASHTAG_LIMITS: Record<Platform, number> = { x: 2, linkedin: 5, instagram: 15, threads: 3 };

export const IDEA_STATUSES = ['idea', 'drafting', 'approved', 'scheduled', 'live'] as const;
export type IdeaStatus = (typeof IDEA_STATUSES)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const POST_STATUSES = ['scheduled', 'publishing', 'published', 'failed', 'unconfirmed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export const DRAFT_STATUSES = ['draft', 'proposed', 'scheduled', 'published'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

export const RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const PROPOSAL_STATUSES = ['pending', 'applied', 'dismissed'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

export const VERDICTS = [
  'outperforming',
  'on_par',
  'underperforming',
  'too_early',
  'not_enough_data',
] as const;
export type Verdict = (typeof VERDICTS)[number];

export const REPLY_THEMES = ['question', 'objection', 'praise', 'request'] as const;
export type ReplyTheme = (typeof REPLY_THEMES)[number];

/** Why `POST /v1/ideas/generate` / `suggest_ideas` made fewer ideas than asked (docs/content/errors.md). */
export const IDEA_SHORTFALL_REASONS = ['SIGNALS_EXHAUSTED'] as const;
export type IdeaShortfallReason = (typeof IDEA_SHORTFALL_REASONS)[number];

export const SIGNAL_KINDS = ['trend', 'question', 'competitor', 'mention', 'news'] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

export const CALLER_SOURCES = ['app', 'api', 'mcp', 'automation'] as const;
export type CallerSource = (typeof CALLER_SOURCES)[number];

export const CHANNEL_KINDS = ['sandbox', 'live'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export const CHANNEL_STATUSES = ['connected', 'needs_reconnect', 'disconnected'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

export const AGENT_IDS = [
  'weekly_plan',
  'repurpose_winner',
  'voice_check',
  'digest',
  'voice_refresh',
] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/** Events automations can listen to. Documented in docs/content/automations.md. */
export const EVENT_NAMES = ['post.published', 'post.metrics_settled'] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Snapshot ages (hours after publishing). The last one settles a post's metrics. */
export const SNAPSHOT_AGES_H = [1, 3, 6, 12, 24, 48, 72] as const;
export const SETTLE_AGE_H = 72;

/** A post is outperforming at ≥ 1.2× the brand median at the same age, underperforming at ≤ 0.8×. */
export const VERDICT_THRESHOLD = { above: 1.2, below: 0.8, minComparablePosts: 3 } as const;

export const PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

export const AUTOMATION_CAPS = {
  /** Default per-automation runs per day (server local date). */
  defaultPerAutomation: 3,
  maxPerAutomation: 24,
  /** All automations together, per day. */
  perWorkspace: 20,
} as const;

export const SANDBOX = {
  /** One advance moves at most this far, so one call cannot run for minutes. */
  maxAdvanceMs: 31 * 24 * 3_600_000,
  permalinkBase: 'https://sandbox.svc.local',
} as const;
