import type { Config } from '../../config.js';
import type { ContentContext } from '../context.js';
import { PLATFORMS } from '../domain.js';

/** The label every MCP tool result carries, e.g. "(sandbox · simulated)". */
export const modeLabel = (config: Pick<Config, 'mode' | 'model'>) => `(${config.mode} · ${config.model})`;

/** Simulated in the sandbox; live when at least one platform can really publish. */
function publishing(ctx: ContentContext): 'simulated' | 'live' | 'unavailable' {
  if (ctx.publisher.kind === 'sandbox') return 'simulated';
  const can = PLATFORMS.some((p) => {
    try {
      ctx.publisher.assertCanPublish(p);
      return true;
    } catch {
      return false;
    }
  });
  return can ? 'live' : 'unavailable';
}

export function getMode(ctx: ContentContext) {
  return {
    mode: ctx.config.mode,
    model: ctx.config.model,
    label: modeLabel(ctx.config),
    publishing: publishing(ctx),
    model_ready: ctx.model.kind === 'simulated' || ctx.config.realModel !== undefined,
    sandbox_clock: ctx.config.mode === 'sandbox',
  };
}
