import type { TokenUsage } from './chat-completions.js';
import type { ContentModel } from './types.js';

/**
 * Counts the tokens a piece of work spends on model calls, so each agent run step can record
 * its usage. Each answer the model server gives is counted, retries included: a failed step
 * still spent its tokens.
 *
 * The meter is handed to the model calls explicitly (`meteredModel` below), not carried by an
 * AsyncLocalStorage: on Node 20 the first `run()` of one turns on async hooks for every promise
 * in the process, for good, and every request after the first agent run would pay for it (the
 * idempotency wrapper dropped its own for the same reason). Explicit passing also states in the
 * types which calls are counted: the ones made through the context a step hands its work.
 */
export interface UsageMeter {
  /** Adds one answer's usage; an answer without usage adds nothing. */
  add(usage: TokenUsage | null | undefined): void;
}

class Meter implements UsageMeter {
  usage: TokenUsage | null = null;
  add(usage: TokenUsage | null | undefined): void {
    if (!usage) return;
    const was = this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    this.usage = {
      prompt_tokens: was.prompt_tokens + usage.prompt_tokens,
      completion_tokens: was.completion_tokens + usage.completion_tokens,
      total_tokens: was.total_tokens + usage.total_tokens,
    };
  }
}

/**
 * The same model, every call of which reports to `meter` (and to no other: a meter given to
 * a model that already has one replaces it, so a child run's meter never also counts into its
 * parent's step).
 */
export function meteredModel(model: ContentModel, meter: UsageMeter): ContentModel {
  const base = unmetered.get(model) ?? model;
  const metered: ContentModel = {
    kind: base.kind,
    suggestIdeas: (input) => base.suggestIdeas({ ...input, meter }),
    draft: (input) => base.draft({ ...input, meter }),
    rewrite: (input) => base.rewrite({ ...input, meter }),
  };
  unmetered.set(metered, base);
  return metered;
}

/** Each metered model's own model, so metering again wraps that one, not the meter before. */
const unmetered = new WeakMap<ContentModel, ContentModel>();

/**
 * Runs `fn` with a fresh meter, handed to it: what `fn` spends through `meteredModel(…, meter)`
 * is the usage returned, whether it succeeds or throws.
 */
export async function meterModelUsage<T>(
  fn: (meter: UsageMeter) => Promise<T>,
): Promise<{ value: T; usage: TokenUsage | null } | { error: unknown; usage: TokenUsage | null }> {
  const meter = new Meter();
  try {
    const value = await fn(meter);
    return { value, usage: meter.usage };
  } catch (error) {
    return { error, usage: meter.usage };
  }
}
