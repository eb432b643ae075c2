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
      summary: 'Approve: schedules the post into the slot (or the slot given). Person only.',
      tags,
      params: IdParams,
      body: ApproveBody,
      response: Approval,
      errors: { ...NOT_FOUND, ...DECIDED, 501: 'PUBLISHER_NOT_CONFIGURED (live mode)' },
      handler: ({ params, body, auth }) => approveApproval(ctx, params.id, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/approvals/:id/reject',
      auth: 'person',
      operationId: 'rejectApproval',
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
