import { AsyncLocalStorage } from 'node:async_hooks';
import type { TokenUsage } from './chat-completions.js';

/**
 * Counts the tokens a piece of work spends on model calls, so each agent run step can record
 * its usage. Model calls happen deep in services (drafts, ideas) that know nothing of runs; the
 * meter travels with the async work instead of through every signature. Each answer the model
 * server gives is counted, retries included: a failed step still spent its tokens.
 */
const meters = new AsyncLocalStorage<{ usage: TokenUsage | null }>();

/**
 * Runs `fn` with a fresh meter. A meter inside another (a child run started by a step) counts
 * only its own calls, so a parent step never double-counts its children's tokens.
 */
export async function meterModelUsage<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; usage: TokenUsage | null } | { error: unknown; usage: TokenUsage | null }> {
  const meter: { usage: TokenUsage | null } = { usage: null };
  try {
    const value = await meters.run(meter, fn);
    return { value, usage: meter.usage };
  } catch (error) {
    return { error, usage: meter.usage };
  }
}

/** Called for every answer from a model server; a no-op outside a meter (plain REST calls). */
export function reportModelUsage(usage: TokenUsage | null | undefined): void {
  const meter = meters.getStore();
  if (!meter || !usage) return;
  const was = meter.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  meter.usage = {
    prompt_tokens: was.prompt_tokens + usage.prompt_tokens,
    completion_tokens: was.completion_tokens + usage.completion_tokens,
    total_tokens: was.total_tokens + usage.total_tokens,
  };
}
