import { DAY } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import type { ProposalRow } from '../db/stores/misc-stores.js';
import type { ProposalStatus } from '../domain.js';
import type { Page } from '../schemas/common.js';
import type { MemoryProposalView } from '../schemas/workspace.js';
import { patternLifts, scoredPosts } from './analysis.js';
import { getBrandMemory, requireBrand, writeMemory } from './brands.js';
import { conflict } from './errors.js';

const view = (r: ProposalRow): MemoryProposalView => ({
  id: r.id,
  brand_id: r.brand_id,
  run_id: r.run_id,
  status: r.status,
  change: r.change,
  why: r.why,
  lift: r.lift,
  evidence: r.evidence,
  decided_at: r.decided_at,
  created_at: r.created_at,
});

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * voice_refresh: compares how posts with each pattern do against the rest (scores relative to
 * the brand median) and proposes a do or avoid rule where the lift is ≥ 1.2× or ≤ 0.8×. Rules
 * already in memory or already proposed are not proposed again.
 */
export async function proposeMemoryChanges(
  ctx: ContentContext,
  brandId: string,
  days: number,
  runId: string | null,
) {
  const memory = await getBrandMemory(ctx, brandId);
  const now = ctx.clock.now().getTime();
  const posts = await scoredPosts(ctx, brandId, new Date(now - days * DAY).toISOString());
  const pending = (await ctx.stores.proposals.pendingOf(brandId)).map((p) => p.change.text);
  const existing = [...memory.voice.do, ...memory.voice.avoid].map((r) => r.text);
  const rows: ProposalRow[] = [];
  for (const l of patternLifts(posts)) {
    if (l.lift < 1.2 && l.lift > 0.8) continue;
    const target = l.lift >= 1.2 ? ('voice.do' as const) : ('voice.avoid' as const);
    const text = target === 'voice.do' ? l.pattern.doRule : l.pattern.avoidRule;
    if ([...existing, ...pending].some((t) => same(t, text))) continue;
    const evidence = [...l.withIt]
      .sort((a, b) => (target === 'voice.do' ? b.score - a.score : a.score - b.score))
      .slice(0, 5)
      .map((p) => ({ post_id: p.post.id, permalink: p.post.permalink, excerpt: p.excerpt }));
    rows.push({
      id: ctx.ids.make('prop'),
      brand_id: brandId,
      run_id: runId,
      change: { target, op: 'add', text },
      why: `${l.withIt.length} posts with ${l.pattern.label} got ${l.lift.toFixed(2)}× the engagement (vs the brand median) of the ${l.without.length} without, over the last ${days} days.`,
      lift: l.lift,
      evidence,
      status: 'pending',
      pending_rank: 1,
      decided_at: null,
      created_at: ctx.clock.now().toISOString(),
    });
  }
  await ctx.transaction(async (tx) => {
    for (const r of rows) await tx.proposals.insert(r);
  });
  return { analysed: posts.length, proposals: rows.map(view) };
}

export async function listMemoryProposals(
  ctx: ContentContext,
  filter: { status?: ProposalStatus | undefined; brand_id?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<MemoryProposalView> & { counts: { pending: number; applied: number; dismissed: number } }> {
  if (filter.brand_id) await requireBrand(ctx, filter.brand_id);
  const store = ctx.stores.proposals;
  const page = await store.list({ brandId: filter.brand_id, status: filter.status }, opts.limit, opts.after);
  return { ...page, items: page.items.map(view), counts: await store.counts(filter.brand_id) };
}

export async function getMemoryProposal(ctx: ContentContext, id: string) {
  const row = await ctx.stores.proposals.get(id);
  if (!row) throw notFound('memory proposal', id);
  return view(row);
}

/** A person applies a proposal: the rule enters Brand Memory with the posts behind it as evidence. */
export async function applyMemoryProposal(ctx: ContentContext, id: string) {
  const p = await getMemoryProposal(ctx, id);
  if (p.status !== 'pending')
    throw conflict('PROPOSAL_DECIDED', `Memory proposal '${id}' is already ${p.status}.`);
  await writeMemory(ctx, p.brand_id, (m, at) => {
    const evidence = p.evidence.map((e) => ({
      kind: 'post' as const,
      id: e.post_id,
      excerpt: e.excerpt,
      url: e.permalink,
    }));
    const list =
      p.change.target === 'voice.do'
        ? m.voice.do
        : p.change.target === 'voice.avoid'
          ? m.voice.avoid
          : m.style_rules;
    if (!list.some((r) => same(r.text, p.change.text)))
      list.push({ id: ctx.ids.make('mem'), text: p.change.text, evidence, created_at: at });
    return m;
  });
  await decide(ctx, id, 'applied');
  return getMemoryProposal(ctx, id);
}

export async function dismissMemoryProposal(ctx: ContentContext, id: string) {
  const p = await getMemoryProposal(ctx, id);
  if (p.status !== 'pending')
    throw conflict('PROPOSAL_DECIDED', `Memory proposal '${id}' is already ${p.status}.`);
  await decide(ctx, id, 'dismissed');
  return getMemoryProposal(ctx, id);
}

async function decide(ctx: ContentContext, id: string, status: 'applied' | 'dismissed') {
  const changed = await ctx.stores.proposals.decide(id, status, ctx.clock.now().toISOString());
  if (changed === 0) throw conflict('PROPOSAL_DECIDED', `Memory proposal '${id}' was decided meanwhile.`);
}
