import { DAY } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import { inTheApp } from '../app-pages.js';
import type { Caller, ContentContext } from '../context.js';
import type { IdeaRow } from '../db/stores/ideas-store.js';
import type { ContentStores } from '../db/stores/index.js';
import type { IdeaStatus } from '../domain.js';
import type { Page } from '../schemas/common.js';
import type { CreateIdeaInput, GeneratedIdeasView, IdeaView, PatchIdeaInput } from '../schemas/ideas.js';
import { memoryOf, requireBrand } from './brands.js';
import { conflict, invalidTransition, unprocessable } from './errors.js';
import { voiceOf } from './memory.js';
import { ideaView } from './views.js';

/**
 * Moves a person may make by hand. Forward one column or back one column; `scheduled` and
 * `live` are set by the service when a post from the idea is scheduled or published, so the
 * board never claims something is scheduled when nothing is.
 */
export const IDEA_MOVES: Record<IdeaStatus, IdeaStatus[]> = {
  idea: ['drafting'],
  drafting: ['idea', 'approved'],
  approved: ['drafting'],
  scheduled: [],
  live: [],
};

/** Moves the service makes itself, and why. */
export const IDEA_SYSTEM_MOVES = [
  { from: 'idea', to: 'drafting', when: 'a draft is generated or created for the idea' },
  { from: 'idea|drafting|approved', to: 'scheduled', when: 'a post from one of its drafts is scheduled' },
  {
    from: 'idea|drafting|approved|scheduled',
    to: 'live',
    when: 'a post from one of its drafts is published',
  },
  { from: 'scheduled', to: 'approved', when: 'its scheduled post is deleted before publishing' },
] as const;

export function checkIdeaMove(from: IdeaStatus, to: IdeaStatus): void {
  if (from === to) return;
  if (IDEA_MOVES[from].includes(to)) return;
  if (to === 'scheduled' || to === 'live')
    throw invalidTransition(
      `An idea becomes '${to}' when a post from it is ${to === 'live' ? 'published' : 'scheduled'}; it cannot be moved there by hand.`,
    );
  const allowed = IDEA_MOVES[from];
  throw invalidTransition(
    `An idea cannot move from '${from}' to '${to}'. ${allowed.length ? `From '${from}' it can move to: ${allowed.join(', ')}.` : `'${from}' changes only when its post does.`}`,
  );
}

/** System moves: never backwards out of `live`, never forwards past where the post is. */
export async function moveIdeaBySystem(
  tx: ContentStores,
  ideaId: string | null,
  to: 'drafting' | 'scheduled' | 'live' | 'approved',
  at: string,
): Promise<void> {
  if (!ideaId) return;
  const store = tx.ideas;
  const idea = await store.get(ideaId);
  if (!idea) return;
  const from = idea.status;
  const ok =
    (to === 'drafting' && from === 'idea') ||
    (to === 'scheduled' && from !== 'live' && from !== 'scheduled') ||
    (to === 'live' && from !== 'live') ||
    (to === 'approved' && from === 'scheduled');
  // Written only from the status the rule was checked on: a move that raced it (the person's,
  // or another post's) is not overwritten; the system's move is then simply not made.
  if (ok) await store.setStatus(ideaId, to, at, from);
}

export async function requireIdea(ctx: ContentContext, id: string) {
  const idea = await ctx.stores.ideas.get(id);
  if (!idea) throw notFound('idea', id);
  return idea;
}

async function checkCampaign(ctx: ContentContext, brandId: string, campaignId: string | null | undefined) {
  if (!campaignId) return;
  const c = await ctx.stores.campaigns.get(campaignId);
  if (!c) throw notFound('campaign', campaignId);
  if (c.brand_id !== brandId)
    throw unprocessable(
      'BRAND_MISMATCH',
      `Campaign '${campaignId}' belongs to another brand.`,
      'campaign_id',
    );
}

export async function createIdea(
  ctx: ContentContext,
  input: CreateIdeaInput,
  _caller?: Caller,
): Promise<IdeaView> {
  await requireBrand(ctx, input.brand_id);
  await checkCampaign(ctx, input.brand_id, input.campaign_id);
  const at = ctx.clock.now().toISOString();
  const row: IdeaRow = {
    id: ctx.ids.make('idea'),
    brand_id: input.brand_id,
    campaign_id: input.campaign_id ?? null,
    signal_id: null,
    title: input.title,
    angle: input.angle ?? null,
    notes: input.notes ?? null,
    status: 'idea',
    created_at: at,
    updated_at: at,
  };
  await ctx.stores.ideas.insert(row);
  return ideaView({ ...row, signal_kind: null, signal_title: null });
}

export async function getIdea(ctx: ContentContext, id: string): Promise<IdeaView> {
  return ideaView(await requireIdea(ctx, id));
}

export async function listIdeas(
  ctx: ContentContext,
  filter: {
    brand_id?: string | undefined;
    status?: IdeaStatus | undefined;
    campaign_id?: string | undefined;
  },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<IdeaView>> {
  if (filter.brand_id) await requireBrand(ctx, filter.brand_id);
  const page = await ctx.stores.ideas.list(
    { brandId: filter.brand_id, status: filter.status, campaignId: filter.campaign_id },
    opts.limit,
    opts.after,
  );
  return { ...page, items: page.items.map(ideaView) };
}

export async function updateIdea(ctx: ContentContext, id: string, input: PatchIdeaInput): Promise<IdeaView> {
  const idea = await requireIdea(ctx, id);
  if (input.status) checkIdeaMove(idea.status, input.status);
  if (input.campaign_id) await checkCampaign(ctx, idea.brand_id, input.campaign_id);
  const pick = <T>(v: T | undefined, old: T) => (v === undefined ? old : v);
  await ctx.stores.ideas.update(id, {
    campaign_id: pick(input.campaign_id, idea.campaign_id),
    title: pick(input.title, idea.title),
    angle: pick(input.angle, idea.angle),
    notes: pick(input.notes, idea.notes),
    status: input.status ?? idea.status,
    updated_at: ctx.clock.now().toISOString(),
  });
  return getIdea(ctx, id);
}

/** Drafts made from the idea stay (they lose the link); posts already out are unaffected. */
export async function deleteIdea(ctx: ContentContext, id: string): Promise<void> {
  if (!(await ctx.stores.ideas.remove(id))) throw notFound('idea', id);
}

const SIGNAL_WINDOW_DAYS = 30;

const signalsPhrase = (brandId: string, n: number) =>
  `brand '${brandId}' has ${n === 1 ? '1 signal' : `${n} signals`} from the last ${SIGNAL_WINDOW_DAYS} days`;
const recordMore = (brandId: string, what = 'new signals') =>
  `Record ${what} with POST /v1/brands/${brandId}/signals or in ${inTheApp('signals')}`;

/** The one wording of "fewer ideas than asked", for the shortfall and for the 409 when none were made. */
export function ideaShortfallMessage(brandId: string, made: number, requested: number, signals: number) {
  const why = `${signalsPhrase(brandId, signals)}, and every further suggestion from them repeats an idea the brand already has`;
  return made === 0
    ? `No new ideas could be made: ${why}. ${recordMore(brandId)}.`
    : `Made ${made} of ${requested} ideas: ${why}. ${recordMore(brandId)}, or ask for fewer.`;
}

/**
 * Why there is nothing to plan ideas from, or null: no signal in the window and no idea waiting
 * in the Idea column. Cheap (two counts, no model call), for weekly_plan's precondition.
 */
export async function nothingToPlanFrom(ctx: ContentContext, brandId: string) {
  const since = new Date(ctx.clock.now().getTime() - SIGNAL_WINDOW_DAYS * DAY).toISOString();
  if ((await ctx.stores.signals.countSince(brandId, since)) > 0) return null;
  if ((await ctx.stores.ideas.list({ brandId, status: 'idea' }, 1)).items.length > 0) return null;
  return {
    code: 'NO_SIGNALS',
    message: `Brand '${brandId}' has no signals from the last ${SIGNAL_WINDOW_DAYS} days and no ideas waiting in the Idea column, so there is nothing to plan. ${recordMore(brandId, 'a signal')}, or add an idea.`,
  };
}

/**
 * `suggest_ideas` / POST /v1/ideas/generate: new ideas from the brand's strongest recent signals,
 * each citing its signal. Returns what could be made and, when that is fewer than asked, a
 * `shortfall` saying why. Making none is a 409: `NO_SIGNALS` (nothing to suggest from) or
 * `SIGNALS_EXHAUSTED` (every suggestion repeats an idea the brand already has).
 */
export async function generateIdeas(
  ctx: ContentContext,
  input: { brand_id: string; count: number; campaign_id?: string | undefined },
  _caller?: Caller,
): Promise<GeneratedIdeasView> {
  const brand = await requireBrand(ctx, input.brand_id);
  await checkCampaign(ctx, input.brand_id, input.campaign_id);
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - SIGNAL_WINDOW_DAYS * DAY).toISOString();
  const signals = await ctx.stores.signals.strongest(brand.id, since, Math.max(input.count, 10));
  if (signals.length === 0)
    throw conflict(
      'NO_SIGNALS',
      `Brand '${brand.id}' has no signals from the last ${SIGNAL_WINDOW_DAYS} days to suggest ideas from. ${recordMore(brand.id, 'one')}.`,
    );
  const existing = await ctx.stores.ideas.titlesOf(brand.id);
  const suggestions = await ctx.model.suggestIdeas({
    voice: voiceOf(brand.name, memoryOf(brand)),
    signals: signals.map((s) => ({ id: s.id, kind: s.kind, title: s.title, summary: s.summary })),
    count: input.count,
    existingTitles: existing,
  });
  // Whatever the model returns, an idea is new (no title the brand already has), cites one of
  // the signals it was given, and there are never more than asked for.
  const byId = new Map(signals.map((s) => [s.id, s]));
  const taken = new Set(existing.map((t) => t.trim().toLowerCase()));
  const fresh = suggestions
    .filter((s) => {
      const key = s.title.trim().toLowerCase();
      if (!key || taken.has(key) || !byId.has(s.signalId)) return false;
      taken.add(key);
      return true;
    })
    .slice(0, input.count);
  if (fresh.length === 0) {
    const total = await ctx.stores.signals.countSince(brand.id, since);
    throw conflict('SIGNALS_EXHAUSTED', ideaShortfallMessage(brand.id, 0, input.count, total));
  }
  const at = now.toISOString();
  const rows: IdeaRow[] = fresh.map((s) => ({
    id: ctx.ids.make('idea'),
    brand_id: brand.id,
    campaign_id: input.campaign_id ?? null,
    signal_id: s.signalId,
    title: s.title,
    angle: s.angle,
    notes: s.notes,
    status: 'idea',
    created_at: at,
    updated_at: at,
  }));
  await ctx.transaction(async (tx) => {
    for (const row of rows) await tx.ideas.insert(row);
  });
  const ideas = rows.map((r) =>
    ideaView({
      ...r,
      signal_kind: byId.get(r.signal_id ?? '')?.kind ?? null,
      signal_title: byId.get(r.signal_id ?? '')?.title ?? null,
    }),
  );
  const short = input.count - ideas.length;
  return {
    ideas,
    requested: input.count,
    shortfall:
      short > 0
        ? {
            count: short,
            reason: 'SIGNALS_EXHAUSTED',
            message: ideaShortfallMessage(
              brand.id,
              ideas.length,
              input.count,
              await ctx.stores.signals.countSince(brand.id, since),
            ),
          }
        : null,
  };
}

/** The ideas alone, for callers that only need what was made (the demo seed). */
export async function suggestIdeas(
  ctx: ContentContext,
  input: { brand_id: string; count: number; campaign_id?: string | undefined },
  caller?: Caller,
): Promise<IdeaView[]> {
  return (await generateIdeas(ctx, input, caller)).ideas;
}
