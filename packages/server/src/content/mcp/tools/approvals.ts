import { z } from 'zod';
import { inTheApp } from '../../app-pages.js';
import { APPROVAL_STATUSES } from '../../domain.js';
import { Approval, ApprovalCounts } from '../../schemas/approvals.js';
import { DateTimeInput } from '../../schemas/common.js';
import { listApprovals, proposePost } from '../../services/approvals.js';
import { defineTool, Id, LIST_CAP } from '../tool.js';

export const listApprovalsTool = defineTool({
  name: 'list_approvals',
  title: 'List approvals',
  scope: 'read',
  idempotent: true,
  description: `Lists the approval queue, pending first, then newest (up to ${LIST_CAP}). Each approval has the draft (platform, version, text), the channel, the slot it would go out in, the reason and the voice-check results. The result also counts pending, approved and rejected approvals. Only a person approves or rejects, in ${inTheApp('approvals')}.`,
  input: z.strictObject({
    status: z.enum(APPROVAL_STATUSES).optional().describe('pending, approved or rejected. Default: all.'),
    brandId: Id('The brand, from list_brands. Default: every brand.').optional(),
  }),
  output: { approvals: z.array(Approval), counts: ApprovalCounts, has_more: z.boolean() },
  async run(ctx, args) {
    const page = await listApprovals(
      ctx,
      { status: args.status, brand_id: args.brandId },
      { limit: LIST_CAP },
    );
    const c = page.counts;
    return {
      summary: `${c.pending} pending, ${c.approved} approved, ${c.rejected} rejected${args.brandId ? ` for brand ${args.brandId}` : ''}; showing ${page.items.length}${args.status ? ` ${args.status}` : ', pending first'}.`,
      data: { approvals: page.items, counts: c, has_more: page.has_more },
    };
  },
});

export const proposePostTool = defineTool({
  name: 'propose_post',
  title: 'Propose a post',
  scope: 'write',
  description: `Puts a draft in the approval queue as a pending approval, for a slot: proposedFor if given, otherwise the next free best-time slot on the brand's channel for the draft's platform. Nothing is published or scheduled: a person approves, edits or rejects it in ${inTheApp('approvals')}. The result includes the voice-check results. A draft can have one pending approval at a time.`,
  input: z.strictObject({
    draftId: Id('The draft, "drf_…" from draft_idea.'),
    proposedFor: DateTimeInput.optional().describe(
      'ISO-8601 date-time with a zone, in the future, e.g. "2026-05-04T09:00:00Z". Default: the next free best-time slot.',
    ),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe('Why this post, now (shown to the person approving), 1-1,000 characters.'),
  }),
  output: { approval: Approval },
  async run(ctx, args, caller) {
    const approval = await proposePost(
      ctx,
      { draft_id: args.draftId, proposed_for: args.proposedFor, reason: args.reason },
      caller,
    );
    const check = approval.voice_check.passed ? 'voice check passed' : 'voice check found problems';
    return {
      summary: `Proposed draft ${args.draftId} for ${approval.slot} on the ${approval.channel.platform} channel ${approval.channel.handle}: approval ${approval.id} is pending; ${check}. Nothing is published or scheduled until a person approves it.`,
      data: { approval },
    };
  },
});
