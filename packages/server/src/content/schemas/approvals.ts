import { z } from 'zod';
import { named } from '../schemas.js';
import { ChannelStatus } from './channels.js';
import {
  ApprovalStatus,
  CallerSource,
  DateTimeInput,
  Id,
  Platform,
  partsOrText,
  Text,
  Timestamp,
} from './common.js';
import { DraftPart } from './drafts.js';

export const VoiceCheck = named(
  'VoiceCheck',
  z.object({
    passed: z.boolean().describe('No check failed (warnings allowed).'),
    checks: z.array(
      z.object({
        id: z.enum(['banned_words', 'length', 'hashtags', 'media', 'empty_hook']),
        status: z.enum(['pass', 'warn', 'fail']),
        message: z.string(),
      }),
    ),
  }),
);
export type VoiceCheckView = z.output<typeof VoiceCheck>;

export const Approval = named(
  'Approval',
  z.object({
    id: z.string(),
    brand_id: z.string(),
    status: ApprovalStatus,
    draft: z.object({
      id: z.string(),
      platform: Platform,
      version: z.number().int(),
      parts: z.array(DraftPart),
    }),
    channel: z.object({
      id: z.string(),
      platform: Platform,
      handle: z.string(),
      status: ChannelStatus,
      warning: z
        .string()
        .nullable()
        .describe(
          'Set while the approval is pending on a channel that cannot publish (`needs_reconnect` or `disconnected`): what is wrong and what the person does about it.',
        ),
    }),
    slot: Timestamp.describe('When the post goes out once approved.'),
    slot_passed: z
      .boolean()
      .describe(
        'Pending, and the slot is no longer in the future. Approving without a `slot` then schedules into the next free best-time slot on the channel; or edit the slot first.',
      ),
    reason: z.string().nullable(),
    voice_check: VoiceCheck,
    source: CallerSource,
    key_id: z.string().nullable(),
    run_id: z.string().nullable(),
    post_id: z.string().nullable().describe('The scheduled post, once approved.'),
    decided_at: Timestamp.nullable(),
    decided_by: z.string().nullable(),
    decision_reason: z
      .string()
      .nullable()
      .describe(
        'Why it was rejected; on an approval whose slot had passed, the slot it was moved from and to.',
      ),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export type ApprovalView = z.output<typeof Approval>;

export const ApprovalCounts = named(
  'ApprovalCounts',
  z.object({ pending: z.number().int(), approved: z.number().int(), rejected: z.number().int() }),
);

export const ProposeBody = z.strictObject({
  draft_id: Id,
  proposed_for: DateTimeInput.optional().describe(
    'Leave out for the next free best-time slot on the channel.',
  ),
  reason: Text(1000).optional(),
  channel_id: Id.optional(),
});
export type ProposeInput = z.output<typeof ProposeBody>;

export const ApproveBody = z.strictObject({
  slot: DateTimeInput.optional().describe(
    'Overrides the proposed slot. Left out while the proposed slot has passed: the next free best-time slot on the channel.',
  ),
});
export const RejectBody = z.strictObject({ reason: Text(1000) });

export const BulkAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('approve'), id: Id, slot: DateTimeInput.optional() }),
  z.strictObject({ action: z.literal('reject'), id: Id, reason: Text(1000) }),
  z.strictObject({
    action: z.literal('edit'),
    id: Id,
    ...partsOrText,
    slot: DateTimeInput.optional(),
  }),
]);
export type BulkActionInput = z.output<typeof BulkAction>;
export const BulkBody = z.strictObject({ actions: z.array(BulkAction).min(1).max(50) });
