import { z } from 'zod';
import { named } from '../schemas.js';
import { AgentId, CallerSource, RunStatus, Timestamp } from './common.js';

export const Agent = named(
  'Agent',
  z.object({
    id: AgentId,
    name: z.string(),
    description: z.string(),
    inputs: z.array(
      z.object({ name: z.string(), type: z.string(), required: z.boolean(), description: z.string() }),
    ),
    steps: z.array(z.object({ name: z.string(), description: z.string() })),
    makes_model_calls: z.boolean(),
  }),
);
export type AgentView = z.output<typeof Agent>;

export const TokenUsage = named(
  'TokenUsage',
  z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
);

export const RunStep = named(
  'AgentRunStep',
  z.object({
    name: z.string(),
    status: z.enum(['succeeded', 'failed', 'skipped']),
    started_at: Timestamp,
    duration_ms: z.number(),
    detail: z.string(),
    usage: TokenUsage.nullable().describe(
      "Tokens the step's model calls spent, retries included; null when it made none (and always with the simulated model).",
    ),
  }),
);
export type RunStepView = z.output<typeof RunStep>;

export const AgentRunSummary = named(
  'AgentRunSummary',
  z.object({
    id: z.string(),
    agent_id: AgentId,
    brand_id: z.string().nullable(),
    parent_run_id: z.string().nullable(),
    status: RunStatus,
    source: CallerSource,
    key_id: z.string().nullable(),
    person_id: z.string().nullable(),
    automation_id: z.string().nullable(),
    started_at: Timestamp,
    finished_at: Timestamp.nullable(),
  }),
);

export const AgentRun = named(
  'AgentRun',
  AgentRunSummary.extend({
    inputs: z.record(z.string(), z.unknown()),
    steps: z.array(RunStep),
    output: z.record(z.string(), z.unknown()).nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    child_runs: z.array(AgentRunSummary.extend({ steps: z.array(RunStep), output: z.unknown() })),
    approvals: z.array(z.object({ id: z.string(), status: z.string(), slot: Timestamp })),
  }),
);
export type AgentRunView = z.output<typeof AgentRun>;

export const StartRunBody = z.strictObject({
  inputs: z.record(z.string(), z.unknown()).default({}),
});
