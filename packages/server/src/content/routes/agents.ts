import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { Agent, AgentRun, AgentRunSummary, StartRunBody } from '../schemas/agents.js';
import { AgentId, Id, IdParams, pageOf, pageQuery } from '../schemas/common.js';
import { builtInAgents, getAgent, getAgentRun, listAgentRuns, runAgent } from '../services/agent-runs.js';
import { callerOf, listBody, NOT_FOUND } from './helpers.js';

const tags = ['Agents'];

export function agentRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/agents',
      auth: 'person',
      operationId: 'listAgents',
      description:
        'The five built-in agents (`weekly_plan`, `repurpose_winner`, `voice_check`, `digest`, `voice_refresh`) with what each does, its inputs and its steps.',
      summary: 'The five built-in agents: what each does, its inputs and steps.',
      tags,
      response: z.object({ agents: z.array(Agent) }),
      // The agents are built-in definitions: nothing is read, the sandbox time least of all.
      readsTime: false,
      // One answer made once, the one list_agents gives (services/agent-runs.ts).
      handler: () => builtInAgents(),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/agents/:id',
      auth: 'person',
      operationId: 'getAgent',
      description: 'One built-in agent with its inputs (and their defaults) and its steps.',
      summary: 'One built-in agent.',
      tags,
      params: IdParams,
      response: Agent,
      errors: NOT_FOUND,
      handler: ({ params }) => getAgent(params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/agents/:id/runs',
      auth: 'person',
      operationId: 'runAgent',
      description:
        'Runs the agent now with the inputs given and records the run (inputs after defaults, steps with timings, child runs, approvals it queued). Bad inputs answer 400 and unknown ids 404 before anything is recorded; a failure while running is a recorded run with status `failed`.',
      summary:
        'Run an agent now and record the run. Bad inputs give 400 and unknown ids 404 before anything is recorded; a failure while running is a recorded run with status failed.',
      tags,
      status: 201,
      params: IdParams,
      body: StartRunBody,
      response: AgentRun,
      errors: NOT_FOUND,
      handler: ({ params, body, auth }) => runAgent(ctx, params.id, body.inputs, callerOf(auth)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/agent-runs',
      auth: 'person',
      operationId: 'listAgentRuns',
      description:
        'Top-level agent runs, newest first, from any source (the app, an automation or an MCP key).',
      summary: 'Top-level agent runs, newest first.',
      tags,
      query: z.strictObject({ agent_id: AgentId.optional(), brand_id: Id.optional(), ...pageQuery }),
      response: pageOf('agent_runs', AgentRunSummary),
      handler: async ({ query }) => listBody('agent_runs', await listAgentRuns(ctx, query, query)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/agent-runs/:id',
      auth: 'person',
      operationId: 'getAgentRun',
      description:
        'One run: its inputs, its steps with timings, its child runs, the approvals it queued, and who started it (source and key).',
      summary: 'One run: inputs, steps with timings, child runs, approvals it queued, source and key.',
      tags,
      params: IdParams,
      response: AgentRun,
      errors: NOT_FOUND,
      handler: ({ params }) => getAgentRun(ctx, params.id),
    }),
  ];
}
