import { z } from 'zod';
import { isLocalRequest } from '../../platform/http/local-only.js';
import type { ContentContext } from '../context.js';
import { localMcpRelay } from '../mcp-relay.js';
import { defineRoute } from '../route.js';
import { Id, IdParams, ProposalStatus, pageOf, pageQuery } from '../schemas/common.js';
import {
  AdvanceBody,
  AdvanceResult,
  McpCall,
  McpRelay,
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
      description:
        'Reports the mode (`sandbox` or `live`) and the model kind (`simulated` or `real`), and the label every MCP tool result carries, e.g. `(sandbox · simulated)`, so an agent can tell when nothing is real.',
      summary: 'Sandbox or live, simulated or real model, and the label MCP results carry.',
      tags: ['Mode'],
      response: Mode,
      handler: () => getMode(ctx),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/mcp-relay',
      auth: 'person',
      operationId: 'getMcpRelay',
      description:
        'The command that starts the `svc-mcp` stdio relay built in this checkout (absolute paths of Node.js and of the relay), for an MCP client on this machine while `npx -y @svc/content-client` cannot fetch it; `relay` is null when there is none, and for a request that did not start on this machine (possible only with SERVICE_PUBLIC_API=all).',
      summary: 'The local stdio command for the svc-mcp relay of this checkout, if built.',
      tags: ['Mode'],
      response: McpRelay,
      // The command runs only on this machine, and its paths tell a remote caller where the server
      // lives (a home directory names its user): only a request made here gets them.
      handler: ({ req }) => ({ relay: isLocalRequest(req) ? localMcpRelay() : null }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/mcp-calls',
      auth: 'person',
      operationId: 'listMcpCalls',
      description:
        "Every MCP tool call is recorded with its source, the key that made it (by id and prefix), the tool, its arguments and the outcome. Use it to audit what an agent did. Entries are kept for the server's retention (`SERVICE_MCP_LOG_RETENTION_DAYS`, 90 days by default; 0 keeps every entry), then deleted. With `tool`, one page looks at a bounded number of the log's entries, newest first (the log has no index on `tool`): a page may then hold fewer entries than `limit`, or none at all, with `has_more` true and a `next_after` past the entries it looked at. Keep following `next_after` while `has_more` is true (the clients' auto-pagination does); an empty page is not the end of the list.",
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
      description:
        'Proposals made by the voice refresh agent: each says why, its lift and the posts behind it. Pending ones come first; the page carries counts per status.',
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
      description:
        'One proposal with its rule, why, lift and evidence posts, and whether it is pending, applied or dismissed.',
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
      description:
        'A person applies the proposal: its rule enters Brand Memory with the evidence posts linked. A proposal already applied or dismissed answers 409 PROPOSAL_DECIDED.',
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
      description:
        'A person dismisses the proposal; Brand Memory is unchanged and the proposal is kept as dismissed. A decided proposal answers 409 PROPOSAL_DECIDED.',
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
      description:
        'The time the content service runs on. In sandbox mode it can be moved forward to make time-driven things happen now; in live mode it is the real clock.',
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
      description:
        'Moves the sandbox clock forward and reports what happened: posts published at their slots, metrics snapshots taken, automations fired. Sandbox mode only (409 SANDBOX_ONLY in live mode); the clock never moves back.',
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
