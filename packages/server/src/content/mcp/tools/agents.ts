import { z } from 'zod';
import { AppError } from '../../../platform/errors.js';
import { AGENT_IDS } from '../../domain.js';
import { Agent, AgentRun } from '../../schemas/agents.js';
import { builtInAgents, getAgentRun, runAgent } from '../../services/agent-runs.js';
import { sentence } from '../../text.js';
import { deepFrozen, defineTool, Id, plural } from '../tool.js';

/** The run's output in a few words: counts of its lists, its short values. */
function outline(output: Record<string, unknown> | null): string {
  if (!output) return '';
  const parts = Object.entries(output)
    .map(([k, v]) =>
      Array.isArray(v)
        ? `${k} ${v.length}`
        : typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= 40)
          ? `${k} ${v}`
          : null,
    )
    .filter(Boolean)
    .slice(0, 6);
  return parts.length ? `; output: ${parts.join(', ')}` : '';
}

export const listAgentsTool = defineTool({
  name: 'list_agents',
  title: 'List built-in agents',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description:
    'Lists the built-in agents (weekly_plan, repurpose_winner, voice_check, digest, voice_refresh) with what each does, its inputs (name, type, required) and its steps. Start one with run_agent.',
  input: z.strictObject({}),
  output: { agents: z.array(Agent) },
  async run() {
    return builtInAgentsAnswer();
  },
});

let answer: { summary: string; data: ReturnType<typeof builtInAgents> } | undefined;

/**
 * The built-in agents are constants of the build, so list_agents' answer is too: its summary is
 * made once, and its data is the deeply frozen list `GET /v1/agents` answers with
 * (`builtInAgents`), which is what lets callTool keep its JSON (`frozenJson`).
 */
function builtInAgentsAnswer() {
  if (!answer) {
    const data = builtInAgents();
    answer = deepFrozen({
      summary: `${plural(data.agents.length, 'agent')}: ${data.agents.map((a) => `${a.id} (${a.inputs.map((i) => `${i.name}${i.required ? '' : '?'}`).join(', ')})`).join('; ')}.`,
      data,
    });
  }
  return answer;
}

export const getAgentRunTool = defineTool({
  name: 'get_agent_run',
  title: 'Get an agent run',
  scope: 'read',
  idempotent: true,
  description:
    'Returns one agent run: its inputs, status, each step with its duration, child runs, output, error and the approvals it queued, and who started it (source and key).',
  input: z.strictObject({ runId: Id('The run, "run_…" from run_agent.') }),
  output: { run: AgentRun },
  async run(ctx, args) {
    const run = await getAgentRun(ctx, args.runId);
    return {
      summary: `Run ${run.id} of ${run.agent_id} ${run.status}: ${plural(run.steps.length, 'step')}, ${plural(run.child_runs.length, 'child run')}, ${plural(run.approvals.length, 'queued approval')}.`,
      data: { run },
    };
  },
});

export const runAgentTool = defineTool({
  name: 'run_agent',
  title: 'Run a built-in agent',
  scope: 'write',
  description:
    'Runs a built-in agent and waits for it. weekly_plan { brandId, platforms?, count? } plans the week and queues pending approvals; repurpose_winner { postId, platforms? } drafts a winning post for the other platforms; voice_check { draftId } checks a draft; digest { brandId, days? } writes a digest; voice_refresh { brandId, days? } proposes Brand Memory changes. list_agents has every input. Agents never publish: what they want out becomes a pending approval. The run is recorded with this key; read it again with get_agent_run.',
  input: z.strictObject({
    agentId: z
      .enum(AGENT_IDS)
      .describe('Which agent: weekly_plan, repurpose_winner, voice_check, digest, voice_refresh.'),
    inputs: z
      .record(z.string(), z.unknown())
      .describe('The agent\'s inputs as an object, e.g. { "brandId": "brd_…" }. See list_agents.'),
  }),
  output: { run: AgentRun },
  async run(ctx, args, caller) {
    let run: Awaited<ReturnType<typeof runAgent>>;
    try {
      run = await runAgent(ctx, args.agentId, args.inputs, caller);
    } catch (err) {
      // The service points at GET /v1/agents/:id; over MCP the inputs are one tool away.
      if (err instanceof AppError && err.code === 'INVALID_REQUEST')
        throw new AppError(
          400,
          err.code,
          `${err.message.replace(/ See GET .*$/, '')} list_agents shows each agent's inputs.`,
        );
      throw err;
    }
    if (run.status === 'failed')
      throw new AppError(
        422,
        run.error?.code ?? 'AGENT_FAILED',
        `${sentence(`Agent ${run.agent_id} failed in run ${run.id}: ${run.error?.message ?? 'no detail'}`)} The run is recorded; read it with get_agent_run.`,
      );
    return {
      summary: `Ran ${run.agent_id}: run ${run.id} ${run.status} in ${plural(run.steps.length, 'step')}${run.approvals.length ? `, queued ${plural(run.approvals.length, 'pending approval')} for a person to review` : ''}${outline(run.output)}.`,
      data: { run },
    };
  },
});
