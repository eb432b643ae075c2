import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { Id, IdParams, ProposalStatus, pageOf, pageQuery } from '../schemas/common.js';
import {
  AdvanceBody,
  AdvanceResult,
  McpCall,
  MemoryProposal,
  Mode,
  SandboxClockView,
} from '../schemas/workspace.js';
import { listToolCalls } from '../services/mcp-calls.js';
import { getMode } from '../services/mode.js';
import {
  applyMemoryProposal,
  dismissMemoryProposal,
  getMemoryProposal,
  listMemoryProposals,
} from '../services/proposals.js';
import { advanceSandboxClock, getSandboxClock } from '../services/sandbox.js';
import { listBody, NOT_FOUND } from './helpers.js';

export function workspaceRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/mode',
      auth: 'person',
      operationId: 'getMode',
      summary: 'Sandbox or live, simulated or real model, and the label MCP results carry.',
      tags: ['Mode'],
      response: Mode,
      handler: () => getMode(ctx),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/mcp-calls',
      auth: 'person',
      operationId: 'listMcpCalls',
      summary: 'The MCP call log, newest first: key, tool, arguments and outcome of every call.',
      tags: ['API keys'],
      query: z.strictObject({ key_id: Id.optional(), tool: z.string().max(60).optional(), ...pageQuery }),
      response: pageOf('mcp_calls', McpCall),
      handler: async ({ query }) => listBody('mcp_calls', await listToolCalls(ctx, query, query)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/memory-proposals',
      auth: 'person',
      operationId: 'listMemoryProposals',
      summary: 'Brand Memory change proposals, pending first, with counts.',
      tags: ['Memory proposals'],
      query: z.strictObject({ status: ProposalStatus.optional(), brand_id: Id.optional(), ...pageQuery }),
      response: pageOf('memory_proposals', MemoryProposal).extend({
        counts: z.object({
          pending: z.number().int(),
          applied: z.number().int(),
          dismissed: z.number().int(),
        }),
      }),
      handler: async ({ query }) => {
        const page = await listMemoryProposals(ctx, query, query);
        return { ...listBody('memory_proposals', page), counts: page.counts };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/memory-proposals/:id',
      auth: 'person',
      operationId: 'getMemoryProposal',
      summary: 'One memory proposal.',
      tags: ['Memory proposals'],
      params: IdParams,
      response: MemoryProposal,
      errors: NOT_FOUND,
      handler: ({ params }) => getMemoryProposal(ctx, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/memory-proposals/:id/apply',
      auth: 'person',
      operationId: 'applyMemoryProposal',
      summary: 'Apply: the rule enters Brand Memory with its evidence. Person only.',
      tags: ['Memory proposals'],
      params: IdParams,
      response: MemoryProposal,
      errors: { ...NOT_FOUND, 409: 'PROPOSAL_DECIDED' },
      handler: ({ params }) => applyMemoryProposal(ctx, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/memory-proposals/:id/dismiss',
      auth: 'person',
      operationId: 'dismissMemoryProposal',
      summary: 'Dismiss a proposal; Brand Memory stays as it is.',
      tags: ['Memory proposals'],
      params: IdParams,
      response: MemoryProposal,
      errors: { ...NOT_FOUND, 409: 'PROPOSAL_DECIDED' },
      handler: ({ params }) => dismissMemoryProposal(ctx, params.id),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/sandbox/clock',
      auth: 'person',
      operationId: 'getSandboxClock',
      summary: 'The time the service runs on and its offset from the real clock.',
      tags: ['Sandbox'],
      response: SandboxClockView,
      handler: () => getSandboxClock(ctx),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/sandbox/clock/advance',
      auth: 'person',
      operationId: 'advanceSandboxClock',
      summary:
        'Move the sandbox clock forward (at most 31 days): publishes due posts, grows their metrics into snapshots, fires due automations. Sandbox mode only.',
      tags: ['Sandbox'],
      body: AdvanceBody,
      response: AdvanceResult,
      errors: { 409: 'SANDBOX_ONLY, INVALID_ADVANCE' },
      handler: ({ body }) => advanceSandboxClock(ctx, body),
    }),
  ];
}
