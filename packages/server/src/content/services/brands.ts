import { notFound } from '../../platform/errors.js';
import type { Caller, ContentContext } from '../context.js';
import type { BrandRow } from '../db/stores/brands-store.js';
import type { ActiveChannelRow } from '../db/stores/channels-store.js';
import type { BrandMemory, BrandSummaryView, BrandView, MemoryInput } from '../schemas/brands.js';
import type { Page } from '../schemas/common.js';
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from '../time-zones.js';
import { conflict } from './errors.js';
import { applyMemoryInput, emptyMemory, removeMemoryItem } from './memory.js';
import { checkedMemoryJson } from './memory-limits.js';

const summary = (b: BrandRow, channels: ActiveChannelRow[]): BrandSummaryView => ({
  id: b.id,
  name: b.name,
  time_zone: b.time_zone,
  channels: channels
    .filter((c) => c.brand_id === b.id)
    .map((c) => ({
      id: c.id,
      platform: c.platform,
      handle: c.handle,
      kind: c.kind,
      status: c.status,
    })),
  created_at: b.created_at,
  updated_at: b.updated_at,
});

export async function requireBrand(ctx: ContentContext, brandId: string): Promise<BrandRow> {
  const brand = await ctx.stores.brands.get(brandId);
  if (!brand) throw notFound('brand', brandId);
  return brand;
}

export const memoryOf = (brand: BrandRow): BrandMemory => brand.memory;

export async function listBrands(
  ctx: ContentContext,
  opts: { limit: number; after?: string },
): Promise<Page<BrandSummaryView>> {
  const page = await ctx.stores.brands.list(opts.limit, opts.after);
  const channels = await ctx.stores.channels.connectedOfMany(page.items.map((b) => b.id));
  return { ...page, items: page.items.map((b) => summary(b, channels)) };
}

export async function getBrand(ctx: ContentContext, brandId: string): Promise<BrandView> {
  const brand = await requireBrand(ctx, brandId);
  const channels = await ctx.stores.channels.connectedOf(brandId);
  return { ...summary(brand, channels), memory: memoryOf(brand) };
}

export async function getBrandMemory(ctx: ContentContext, brandId: string): Promise<BrandMemory> {
  return memoryOf(await requireBrand(ctx, brandId));
}

export async function createBrand(
  ctx: ContentContext,
  input: { name: string; time_zone?: string | undefined; memory?: MemoryInput | undefined },
  _caller?: Caller,
): Promise<BrandView> {
  const at = ctx.clock.now().toISOString();
  const memory = input.memory ? applyMemoryInput(emptyMemory(), input.memory, ctx.ids, at) : emptyMemory();
  const row: BrandRow = {
    id: ctx.ids.make('brd'),
    name: input.name,
    time_zone: input.time_zone ? canonicalTimeZone(input.time_zone) : DEFAULT_TIME_ZONE,
    memory,
    created_at: at,
    updated_at: at,
  };
  await ctx.stores.brands.insert(row, checkedMemoryJson(memory));
  return { ...summary(row, []), memory };
}

/** The memory read for a change was overwritten before the change was written. */
const memoryChanged = (brandId: string) =>
  conflict(
    'MEMORY_CHANGED',
    `Brand '${brandId}' memory changed while this request ran; read it again (GET /v1/brands/${brandId}) and apply your change to it.`,
  );

export async function updateBrand(
  ctx: ContentContext,
  brandId: string,
  input: { name?: string | undefined; time_zone?: string | undefined; memory?: MemoryInput | undefined },
): Promise<BrandView> {
  await ctx.transaction(async (tx) => {
    const store = tx.brands;
    const brand = await store.get(brandId);
    if (!brand) throw notFound('brand', brandId);
    const at = ctx.clock.now().toISOString();
    const memory = input.memory ? applyMemoryInput(memoryOf(brand), input.memory, ctx.ids, at) : undefined;
    const written = await store.update(
      brandId,
      {
        name: input.name,
        time_zone: input.time_zone ? canonicalTimeZone(input.time_zone) : undefined,
        memory: memory ? checkedMemoryJson(memory) : undefined,
      },
      at,
      brand.memory_as_read,
    );
    if (!written) throw memoryChanged(brandId);
  });
  return getBrand(ctx, brandId);
}

/** Deleting a brand deletes everything that belongs to it (channels, posts, drafts, media rows…). */
export async function deleteBrand(ctx: ContentContext, brandId: string): Promise<void> {
  if (!(await ctx.stores.brands.remove(brandId))) throw notFound('brand', brandId);
}

export async function writeMemory(
  ctx: ContentContext,
  brandId: string,
  change: (memory: BrandMemory, at: string) => BrandMemory,
): Promise<BrandMemory> {
  return ctx.transaction(async (tx) => {
    const store = tx.brands;
    const brand = await store.get(brandId);
    if (!brand) throw notFound('brand', brandId);
    const at = ctx.clock.now().toISOString();
    const next = change(memoryOf(brand), at);
    if (!(await store.update(brandId, { memory: checkedMemoryJson(next) }, at, brand.memory_as_read)))
      throw memoryChanged(brandId);
    return next;
  });
}

/** `add_knowledge`: a knowledge note with a title and body, no source. */
export async function addKnowledge(
  ctx: ContentContext,
  brandId: string,
  input: { title: string; body: string },
  _caller?: Caller,
) {
  let noteId = '';
  const memory = await writeMemory(ctx, brandId, (m, at) => {
    noteId = ctx.ids.make('mem');
    return {
      ...m,
      knowledge: [
        ...m.knowledge,
        { id: noteId, kind: 'note', title: input.title, body: input.body, source: null, created_at: at },
      ],
    };
  });
  const note = memory.knowledge.find((k) => k.id === noteId);
  if (!note) throw new Error('knowledge note vanished');
  return { note, memory };
}

export async function deleteMemoryItem(
  ctx: ContentContext,
  brandId: string,
  itemId: string,
): Promise<BrandMemory> {
  return writeMemory(ctx, brandId, (m) => {
    const next = removeMemoryItem(m, itemId);
    if (!next) throw notFound('memory entry', itemId);
    return next;
  });
}
