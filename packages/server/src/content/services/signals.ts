import type { ContentContext } from '../context.js';
import type { SignalRow } from '../db/stores/signals-store.js';
import type { SignalKind } from '../domain.js';
import type { SignalView } from '../schemas/channels.js';
import type { Page } from '../schemas/common.js';
import { requireBrand } from './brands.js';

export const signalView = (r: SignalRow): SignalView => ({
  id: r.id,
  brand_id: r.brand_id,
  kind: r.kind,
  title: r.title,
  summary: r.summary,
  source_url: r.source_url,
  strength: r.strength,
  observed_at: r.observed_at,
});

export async function listSignals(
  ctx: ContentContext,
  brandId: string,
  filter: { kind?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<SignalView>> {
  await requireBrand(ctx, brandId);
  const page = await ctx.stores.signals.list(brandId, filter, opts.limit, opts.after);
  return { ...page, items: page.items.map(signalView) };
}

/** Records a signal by hand (a trend, a competitor move); the app's "note a signal". */
export async function createSignal(
  ctx: ContentContext,
  brandId: string,
  input: {
    kind: SignalKind;
    title: string;
    summary: string;
    source_url?: string | undefined;
    strength: number;
  },
): Promise<SignalView> {
  await requireBrand(ctx, brandId);
  const at = ctx.clock.now().toISOString();
  const row: SignalRow = {
    id: ctx.ids.make('sig'),
    brand_id: brandId,
    kind: input.kind,
    title: input.title,
    summary: input.summary,
    source_url: input.source_url ?? null,
    strength: input.strength,
    observed_at: at,
    created_at: at,
  };
  await ctx.stores.signals.insert(row);
  return signalView(row);
}
