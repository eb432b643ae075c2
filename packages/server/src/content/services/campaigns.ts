import { notFound } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import type { CampaignRow, CanvasItemRow } from '../db/stores/campaigns-store.js';
import type { CampaignView, CanvasItemView } from '../schemas/campaigns.js';
import type { Page } from '../schemas/common.js';
import { requireBrand } from './brands.js';
import { unprocessable } from './errors.js';

/** Sticky notes are 200×160; a new one goes 40 to the right of the rightmost edge on the canvas. */
export const NOTE_SIZE = { w: 200, h: 160 } as const;
export const NOTE_GAP = 40;

const view = (r: CampaignRow): CampaignView => ({ ...r });
const itemView = (r: CanvasItemRow): CanvasItemView => ({
  ...r,
  kind: r.kind as CanvasItemView['kind'],
  color: r.color as CanvasItemView['color'],
});

async function requireCampaign(ctx: ContentContext, id: string) {
  const c = await ctx.stores.campaigns.get(id);
  if (!c) throw notFound('campaign', id);
  return c;
}

function checkDates(starts: string | null, ends: string | null) {
  if (starts && ends && ends < starts)
    throw unprocessable('INVALID_DATES', `'ends_on' (${ends}) is before 'starts_on' (${starts}).`, 'ends_on');
}

export async function createCampaign(
  ctx: ContentContext,
  input: {
    brand_id: string;
    name: string;
    goal?: string | undefined;
    starts_on?: string | undefined;
    ends_on?: string | undefined;
  },
): Promise<CampaignView> {
  await requireBrand(ctx, input.brand_id);
  checkDates(input.starts_on ?? null, input.ends_on ?? null);
  const at = ctx.clock.now().toISOString();
  const row: CampaignRow = {
    id: ctx.ids.make('cmp'),
    brand_id: input.brand_id,
    name: input.name,
    goal: input.goal ?? null,
    starts_on: input.starts_on ?? null,
    ends_on: input.ends_on ?? null,
    created_at: at,
    updated_at: at,
  };
  await ctx.stores.campaigns.insert(row);
  return view(row);
}

export async function getCampaign(ctx: ContentContext, id: string) {
  return view(await requireCampaign(ctx, id));
}

/** `list_campaigns`: newest first, for one brand or all. */
export async function listCampaigns(
  ctx: ContentContext,
  filter: { brand_id?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<CampaignView>> {
  if (filter.brand_id) await requireBrand(ctx, filter.brand_id);
  const page = await ctx.stores.campaigns.list({ brandId: filter.brand_id }, opts.limit, opts.after);
  return { ...page, items: page.items.map(view) };
}

export async function updateCampaign(
  ctx: ContentContext,
  id: string,
  input: {
    name?: string | undefined;
    goal?: string | null | undefined;
    starts_on?: string | null | undefined;
    ends_on?: string | null | undefined;
  },
) {
  const c = await requireCampaign(ctx, id);
  const pick = <T>(v: T | undefined, old: T) => (v === undefined ? old : v);
  const next = {
    name: input.name ?? c.name,
    goal: pick(input.goal, c.goal),
    starts_on: pick(input.starts_on, c.starts_on),
    ends_on: pick(input.ends_on, c.ends_on),
    updated_at: ctx.clock.now().toISOString(),
  };
  checkDates(next.starts_on, next.ends_on);
  await ctx.stores.campaigns.update(id, next);
  return getCampaign(ctx, id);
}

/** Deleting a campaign removes its canvas; its ideas stay, unlinked. */
export async function deleteCampaign(ctx: ContentContext, id: string) {
  if (!(await ctx.stores.campaigns.remove(id))) throw notFound('campaign', id);
}

export async function getCanvas(ctx: ContentContext, id: string) {
  await requireCampaign(ctx, id);
  return { campaign_id: id, items: (await ctx.stores.campaigns.items(id)).map(itemView) };
}

/**
 * `add_canvas_note`: the note goes right of everything already on the canvas, top-aligned
 * with the item that reaches furthest right, so it never covers anything.
 */
export async function addCanvasNote(
  ctx: ContentContext,
  campaignId: string,
  input: { text: string; color?: string | undefined },
) {
  await requireCampaign(ctx, campaignId);
  return ctx.transaction(async (tx) => {
    const store = tx.campaigns;
    const edge = await store.rightEdge(campaignId);
    const at = ctx.clock.now().toISOString();
    const row: CanvasItemRow = {
      id: ctx.ids.make('note'),
      campaign_id: campaignId,
      kind: 'note',
      ref_id: null,
      text: input.text,
      color: input.color ?? 'yellow',
      x: edge ? edge.right + NOTE_GAP : 0,
      y: edge ? edge.y : 0,
      w: NOTE_SIZE.w,
      h: NOTE_SIZE.h,
      created_at: at,
      updated_at: at,
    };
    await store.addItem(row);
    return itemView(row);
  });
}

export async function updateCanvasItem(
  ctx: ContentContext,
  campaignId: string,
  itemId: string,
  input: Partial<Pick<CanvasItemRow, 'text' | 'color' | 'x' | 'y' | 'w' | 'h'>>,
) {
  await requireCampaign(ctx, campaignId);
  const store = ctx.stores.campaigns;
  const item = await store.item(campaignId, itemId);
  if (!item) throw notFound('canvas item', itemId);
  const next = {
    text: input.text ?? item.text,
    color: input.color ?? item.color,
    x: input.x ?? item.x,
    y: input.y ?? item.y,
    w: input.w ?? item.w,
    h: input.h ?? item.h,
    updated_at: ctx.clock.now().toISOString(),
  };
  await store.updateItem(itemId, next);
  return itemView({ ...item, ...next });
}

export async function deleteCanvasItem(ctx: ContentContext, campaignId: string, itemId: string) {
  await requireCampaign(ctx, campaignId);
  const store = ctx.stores.campaigns;
  if (!(await store.item(campaignId, itemId))) throw notFound('canvas item', itemId);
  await store.removeItem(itemId);
}
