import { deepFrozen } from '../../platform/deep-frozen.js';
import { AppError, notFound } from '../../platform/errors.js';
import { AGENTS } from '../agents/index.js';
import type { AgentDef, RunScope } from '../agents/types.js';
import type { Caller, ContentContext } from '../context.js';
import type { RunRow } from '../db/stores/runs-store.js';
import { AGENT_IDS } from '../domain.js';
import { meteredModel, meterModelUsage } from '../model/usage-meter.js';
import type { AgentRunView, AgentView, RunStepView } from '../schemas/agents.js';
import type { Page } from '../schemas/common.js';

const agentView = (a: AgentDef): AgentView => ({
  id: a.id,
  name: a.name,
  description: a.description,
  inputs: a.inputDocs,
  steps: a.steps,
  makes_model_calls: a.makesModelCalls,
});

export const listAgents = (): AgentView[] => AGENT_IDS.map((id) => agentView(AGENTS[id]));

let builtIn: { agents: AgentView[] } | undefined;

/**
 * The built-in agents are constants of the build, and nothing about a brand, a person or a key
 * changes how they are listed, so `GET /v1/agents` and MCP `list_agents` answer with one list,
 * made on first use and deeply frozen: a write to it throws (its type cannot say so; zod's
 * response types are mutable), and its JSON is made once (REST's
 * `send`, MCP's `dataJson`). A copy, since the views share their inputs and steps with the
 * definitions, which stay unfrozen. `GET /v1/agents/{id}` builds its agent anew on each request;
 * test/content/mcp-list-agents-constant.test.ts ties the three together over HTTP.
 */
export function builtInAgents(): { agents: AgentView[] } {
  builtIn ??= deepFrozen({ agents: structuredClone(listAgents()) });
  return builtIn;
}

function requireAgent(id: string): AgentDef {
  const agent = (AGENTS as Record<string, AgentDef | undefined>)[id];
  if (!agent) throw notFound('agent', id);
  return agent;
}

export const getAgent = (id: string): AgentView => agentView(requireAgent(id));

function parseInputs(agent: AgentDef, inputs: unknown) {
  const parsed = agent.inputs.safeParse(inputs);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.');
  const what =
    issue?.code === 'unrecognized_keys'
      ? `Unknown input ${issue.keys.map((k) => `'${k}'`).join(', ')}`
      : issue?.code === 'invalid_type' && issue.input === undefined
        ? `Input '${field}' is required`
        : `Input '${field}' is invalid: ${issue?.message}`;
  throw new AppError(
    400,
    'INVALID_REQUEST',
    `${what} for agent '${agent.id}'. See GET /v1/agents/${agent.id} for its inputs.`,
    {
      param: field ? `inputs.${field}` : 'inputs',
    },
  );
}

const summary = (r: RunRow) => ({
  id: r.id,
  agent_id: r.agent_id,
  brand_id: r.brand_id,
  parent_run_id: r.parent_run_id,
  status: r.status,
  source: r.source,
  key_id: r.key_id,
  person_id: r.person_id,
  automation_id: r.automation_id,
  started_at: r.started_at,
  finished_at: r.finished_at,
});

/**
 * Inputs as a run records them: parsed (static defaults applied), ids checked (404), then the
 * defaults that depend on stored data filled in. Nothing is written.
 */
async function prepareRun(ctx: ContentContext, agentId: string, rawInputs: unknown) {
  const agent = requireAgent(agentId);
  const parsed = parseInputs(agent, rawInputs ?? {});
  const brandId = await agent.brandOf(ctx, parsed);
  const inputs = agent.withDefaults ? await agent.withDefaults(ctx, parsed) : parsed;
  return { agent, inputs, brandId };
}

/**
 * Why the agent has nothing to do with these inputs, or null: its cheap precondition, asked
 * before an automation charges a fire to the daily caps. Bad inputs throw as in `runAgent`.
 */
export async function nothingToDo(
  ctx: ContentContext,
  agentId: string,
  rawInputs: unknown,
): Promise<{ code: string; message: string } | null> {
  const { agent, inputs } = await prepareRun(ctx, agentId, rawInputs);
  return agent.nothingToDo ? agent.nothingToDo(ctx, inputs) : null;
}

/**
 * Runs a built-in agent and records it: inputs, each step with its duration, child runs, the
 * approvals it queued, who started it. Bad inputs or unknown ids fail before anything is
 * recorded (400/404); a failure while running is recorded as a failed run and returned.
 */
export async function runAgent(
  ctx: ContentContext,
  agentId: string,
  rawInputs: unknown,
  caller: Caller,
  opts: { parentRunId?: string } = {},
): Promise<AgentRunView> {
  const { agent, inputs, brandId } = await prepareRun(ctx, agentId, rawInputs);
  const runId = ctx.ids.make('run');
  const steps: RunStepView[] = [];
  const store = ctx.stores.runs;
  await store.insert({
    id: runId,
    agent_id: agent.id,
    brand_id: brandId,
    parent_run_id: opts.parentRunId ?? null,
    status: 'running',
    inputs,
    steps: [],
    output: null,
    error: null,
    source: caller.source,
    key_id: caller.keyId ?? null,
    person_id: caller.personId ?? null,
    automation_id: caller.automationId ?? null,
    started_at: ctx.clock.now().toISOString(),
    finished_at: null,
  });
  const scope: RunScope = {
    ctx,
    caller,
    runId,
    async step(name, fn) {
      const started = ctx.clock.now().toISOString();
      const t0 = ctx.stopwatch();
      const outcome = await meterModelUsage((meter) => fn({ ...ctx, model: meteredModel(ctx.model, meter) }));
      const timing = { started_at: started, duration_ms: round(ctx.stopwatch() - t0), usage: outcome.usage };
      if ('error' in outcome) {
        const { error } = outcome;
        steps.push({
          name,
          status: 'failed',
          ...timing,
          detail: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
      steps.push({ name, status: 'succeeded', ...timing, detail: outcome.value.detail });
      return outcome.value.value;
    },
    skip(name, detail) {
      steps.push({
        name,
        status: 'skipped',
        started_at: ctx.clock.now().toISOString(),
        duration_ms: 0,
        usage: null,
        detail,
      });
    },
    async child(childAgent, childInputs) {
      const run = await runAgent(ctx, childAgent, childInputs, caller, { parentRunId: runId });
      return { id: run.id, status: run.status, output: run.output };
    },
  };
  let output: Record<string, unknown> | null = null;
  let error: { code: string; message: string } | null = null;
  try {
    output = await agent.run(scope, inputs);
  } catch (err) {
    if (!(err instanceof AppError)) ctx.logger.error({ err, runId }, 'agent run failed');
    error =
      err instanceof AppError
        ? { code: err.code, message: err.message }
        : { code: 'AGENT_FAILED', message: 'The agent failed unexpectedly; see the server log.' };
  }
  await store.finish(runId, {
    status: error ? 'failed' : 'succeeded',
    steps,
    output: output ?? null,
    error: error ?? null,
    finished_at: ctx.clock.now().toISOString(),
  });
  return getAgentRun(ctx, runId);
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** `get_agent_run`: the run with its steps, child runs (with their steps) and queued approvals. */
export async function getAgentRun(ctx: ContentContext, id: string): Promise<AgentRunView> {
  const store = ctx.stores.runs;
  const run = await store.get(id);
  if (!run) throw notFound('agent run', id);
  const children = await store.children(id);
  const approvals = await ctx.stores.approvals.byRun([id]);
  return {
    ...summary(run),
    inputs: run.inputs,
    steps: run.steps,
    output: run.output,
    error: run.error,
    child_runs: children.map((c) => ({
      ...summary(c),
      steps: c.steps,
      output: c.output,
    })),
    approvals: approvals.map((a) => ({ id: a.id, status: a.status, slot: a.slot })),
  };
}

export async function listAgentRuns(
  ctx: ContentContext,
  filter: { agent_id?: string | undefined; brand_id?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<ReturnType<typeof summary>>> {
  const page = await ctx.stores.runs.list(
    { agentId: filter.agent_id, brandId: filter.brand_id },
    opts.limit,
    opts.after,
  );
  return { ...page, items: page.items.map(summary) };
}
