import { z } from 'zod';
import { named } from '../schemas.js';
import { Platform, SignalKind, Text, Timestamp } from './common.js';

export const ChannelStatus = z
  .enum(['connected', 'needs_reconnect', 'disconnected'])
  .describe(
    '`needs_reconnect`: the platform refused to refresh its access, so nothing can be published on it until the person connects the account again (Settings → Channels). Its approvals and schedule stay.',
  );

export const Channel = named(
  'Channel',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    platform: Platform,
    handle: z.string(),
    display_name: z.string(),
    kind: z
      .enum(['sandbox', 'live'])
      .describe('Sandbox channels publish nowhere; posts get sandbox permalinks.'),
    status: ChannelStatus,
    status_reason: z
      .string()
      .nullable()
      .describe('Why the channel needs the person (`needs_reconnect`); null otherwise.'),
    connected_at: Timestamp.nullable(),
    created_at: Timestamp,
  }),
);
export type ChannelView = z.output<typeof Channel>;

/**
 * What a handle may be, sandbox or live: every platform's real handles fit (X, Instagram and
 * Threads usernames; LinkedIn's member id), and nothing in it can read as markup or a new line.
 */
export const HANDLE_RULE = { pattern: /^[A-Za-z0-9_.-]+$/, max: 60 } as const;
export const DISPLAY_NAME_MAX = 120;

export const ConnectChannelBody = z.strictObject({
  platform: Platform,
  handle: z
    .string()
    .trim()
    .min(1)
    .max(HANDLE_RULE.max)
    .regex(/^@?[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only')
    .optional(),
  display_name: Text(DISPLAY_NAME_MAX).optional(),
});

export const ConnectResult = named(
  'ChannelConnectResult',
  z.object({
    channel: Channel.nullable(),
    authorize_url: z
      .string()
      .nullable()
      .describe(
        'Live mode: where to send the person to authorise. Null in sandbox: the channel is connected at once.',
      ),
  }),
);

export const Signal = named(
  'Signal',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    kind: SignalKind,
    title: z.string(),
    summary: z.string(),
    source_url: z.string().nullable(),
    strength: z.number().min(0).max(1),
    observed_at: Timestamp,
  }),
);
export type SignalView = z.output<typeof Signal>;

export const CreateSignalBody = z.strictObject({
  kind: SignalKind,
  title: Text(200),
  summary: z.string().trim().max(2000).default(''),
  source_url: z.url().max(2000).optional(),
  strength: z.number().min(0).max(1).default(0.5),
});
