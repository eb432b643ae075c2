import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import {
  Approval,
  ApprovalCounts,
  ApproveBody,
  BulkBody,
  ProposeBody,
  RejectBody,
} from '../schemas/approvals.js';
import {
  ApprovalStatus,
  DateTimeInput,
  Id,
  IdParams,
  pageOf,
  pageQuery,
  partsOrText,
} from '../schemas/common.js';
import {
  approveApproval,
  bulkApprovals,
  editApproval,
  getApproval,
  listApprovals,
  proposePost,
  rejectApproval,
} from '../services/approvals.js';
import { callerOf, listBody, NOT_FOUND } from './helpers.js';

const tags = ['Approvals'];
const DECIDED = { 409: 'APPROVAL_DECIDED, SLOT_TAKEN, CHANNEL_DISCONNECTED', 422: 'SLOT_IN_PAST' };

export function approvalRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/approvals',
      auth: 'person',
      operationId: 'listApprovals',
      description:
        'The approval queue: pending first, then newest; filterable by brand and status. The page carries counts of pending, approved and rejected.',
      summary:
        'The approval queue: pending first, then newest; with counts of pending, approved and rejected.',
      tags,
      query: z.strictObject({ status: ApprovalStatus.optional(), brand_id: Id.optional(), ...pageQuery }),
      response: pageOf('approvals', Approval).extend({ counts: ApprovalCounts }),
      handler: async ({ query }) => {
        const page = await listApprovals(ctx, query, query);
        return { ...listBody('approvals', page), counts: page.counts };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/approvals',
      auth: 'person',
      operationId: 'proposePost',
      description:
        'Puts a draft in the approval queue for a channel, in `proposed_for` or else the next free best-time slot. Nothing is published or scheduled until a person approves. The same as the MCP tool `propose_post`.',
      summary:
        'Propose a draft for publishing: a pending approval in proposed_for or the next free best-time slot. Nothing is scheduled until approved.',
      tags,
      status: 201,
      body: ProposeBody,
      response: Approval,
      errors: {
        ...NOT_FOUND,
        409: 'ALREADY_PROPOSED, DRAFT_LOCKED, NO_CHANNEL, SLOT_TAKEN, NO_FREE_SLOT',
        422: 'SLOT_IN_PAST',
      },
      handler: ({ body, auth }) => proposePost(ctx, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/approvals/bulk',
      auth: 'person',
      operationId: 'bulkApprovals',
      description:
        'Approves, edits-then-approves and rejects many approvals in one request. All or nothing: if one item fails, nothing changes and the error names it.',
      summary:
        'Approve, edit and reject many approvals at once. All or nothing: one failure changes nothing.',
      tags,
      body: BulkBody,
      response: z.object({ approvals: z.array(Approval), counts: ApprovalCounts }),
      errors: { ...NOT_FOUND, ...DECIDED },
      handler: ({ body, auth }) => bulkApprovals(ctx, body.actions, callerOf(auth)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/approvals/:id',
      auth: 'person',
      operationId: 'getApproval',
      description:
        'One approval with its draft version as the platform will show it, the channel, the slot, the reason, the voice-check results and who proposed it (agent run or MCP key).',
      summary: 'One approval with its draft version, channel, slot, reason and voice check.',
      tags,
      params: IdParams,
      response: Approval,
      errors: NOT_FOUND,
      handler: ({ params }) => getApproval(ctx, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/approvals/:id',
      auth: 'person',
      operationId: 'editApproval',
      description:
        'Edits a pending approval: new text (saved as a new draft version and checked again) and/or a new slot.',
      summary: "Edit a pending approval's text (a new draft version, re-checked) or slot.",
      tags,
      params: IdParams,
      body: z.strictObject({
        ...partsOrText,
        slot: DateTimeInput.optional(),
      }),
      response: Approval,
      errors: { ...NOT_FOUND, ...DECIDED },
      handler: ({ params, body, auth }) => editApproval(ctx, params.id, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/approvals/:id/approve',
      auth: 'person',
      operationId: 'approveApproval',
      description:
        "A person approves: the post is scheduled into the approval's slot (or the slot sent). Only the local person can do this, never an API key. A decided approval answers 409.",
      summary: 'Approve: schedules the post into the slot (or the slot given). Person only.',
      tags,
      params: IdParams,
      body: ApproveBody,
      response: Approval,
      errors: {
        ...NOT_FOUND,
        ...DECIDED,
        501: "OAUTH_NOT_CONFIGURED (live mode: the platform's app is not configured)",
      },
      handler: ({ params, body, auth }) => approveApproval(ctx, params.id, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/approvals/:id/reject',
      auth: 'person',
      operationId: 'rejectApproval',
      description:
        'A person rejects with a reason; the reason is kept and the draft is editable again. A decided approval answers 409.',
      summary: 'Reject with a reason; the draft goes back to editable. Person only.',
      tags,
      params: IdParams,
      body: RejectBody,
      response: Approval,
      errors: { ...NOT_FOUND, 409: 'APPROVAL_DECIDED' },
      handler: ({ params, body, auth }) => rejectApproval(ctx, params.id, body, callerOf(auth)),
    }),
  ];
}
