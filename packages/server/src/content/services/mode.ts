import type { Config } from '../../config.js';
import type { ContentContext } from '../context.js';

/** The label every MCP tool result carries, e.g. "(sandbox · simulated)". */
export const modeLabel = (config: Pick<Config, 'mode' | 'model'>) => `(${config.mode} · ${config.model})`;

export function getMode(ctx: ContentContext) {
  return {
    mode: ctx.config.mode,
    model: ctx.config.model,
    label: modeLabel(ctx.config),
    publishing: ctx.publisher.kind === 'sandbox' ? ('simulated' as const) : ('unavailable' as const),
    model_ready: ctx.model.kind === 'simulated' || ctx.config.realModel !== undefined,
    sandbox_clock: ctx.config.mode === 'sandbox',
  };
}
