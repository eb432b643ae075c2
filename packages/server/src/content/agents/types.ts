import type { z } from 'zod';
import type { Caller, ContentContext } from '../context.js';
import type { AgentId } from '../domain.js';

export interface StepResult<T> {
  detail: string;
  value: T;
}

/** What an agent sees while it runs: named, timed steps and a way to start child runs. */
export interface RunScope {
  ctx: ContentContext;
  caller: Caller;
  runId: string;
  /**
   * Runs a named, timed step. `fn` gets the context to do its work with: the run's, with a model
   * that counts this step's token usage. Model calls made through any other context (`scope.ctx`)
   * are not counted in the step.
   */
  step<T>(name: string, fn: (ctx: ContentContext) => Promise<StepResult<T>>): Promise<T>;
  skip(name: string, detail: string): void;
  /** Starts another built-in agent as a child of this run. */
  child(
    agentId: AgentId,
    inputs: Record<string, unknown>,
  ): Promise<{ id: string; status: string; output: unknown }>;
}

export interface AgentDef<I extends Record<string, unknown> = Record<string, unknown>> {
  id: AgentId;
  name: string;
  description: string;
  inputs: z.ZodType<I>;
  inputDocs: { name: string; type: string; required: boolean; description: string }[];
  steps: { name: string; description: string }[];
  makesModelCalls: boolean;
  /** Checks the ids in the inputs (404 before a run is recorded) and returns the brand. */
  brandOf(ctx: ContentContext, inputs: I): Promise<string>;
  /**
   * Fills in the defaults that depend on stored data (e.g. the brand's connected platforms), so
   * the run records the inputs it really ran with. Static defaults live in `inputs` (zod).
   */
  withDefaults?(ctx: ContentContext, inputs: I): Promise<I>;
  /**
   * A cheap check (no model call, nothing written): why the agent has nothing to do with these
   * inputs, or null. Automations ask it before a fire is charged to the daily caps; a fire with
   * nothing to do is recorded as `skipped`, not run.
   */
  nothingToDo?(ctx: ContentContext, inputs: I): Promise<{ code: string; message: string } | null>;
  run(scope: RunScope, inputs: I): Promise<Record<string, unknown>>;
}

export const defineAgent = <I extends Record<string, unknown>>(def: AgentDef<I>) =>
  def as unknown as AgentDef;
