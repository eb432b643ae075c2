import { notFound } from '../../platform/errors.js';
import type { Caller, ContentContext } from '../context.js';
import { type Platform, REPLY_THEMES } from '../domain.js';
import type { BrandMemory, Evidence, MemorySaveInput } from '../schemas/brands.js';
import { truncate } from '../text.js';
import { memoryOf, writeMemory } from './brands.js';
import { unprocessable } from './errors.js';
import { addEvidence } from './memory.js';
import { themeSource } from './themes.js';
import type { StoredPart } from './views.js';

type SourceKind = Evidence['kind'];

interface ResolvedSource {
  evidence: Evidence;
  text: string;
  platform: Platform | null;
  title: string;
}

const PREFIXES: [string, SourceKind][] = [
  ['post_', 'post'],
  ['rpl_', 'reply'],
  ['theme_', 'reply_theme'],
  ['sig_', 'signal'],
  ['drf_', 'draft'],
];

function refOf(from: MemorySaveInput['from']): { kind: SourceKind; id: string } {
  if (typeof from !== 'string') return from;
  const hit = PREFIXES.find(([p]) => from.startsWith(p));
  if (!hit)
    throw unprocessable(
      'UNKNOWN_SOURCE',
      `Cannot tell what '${from}' is. Pass { kind, id } or an id starting with post_, rpl_, theme_, sig_ or drf_.`,
      'from',
    );
  return { kind: hit[1], id: from };
}

const partsText = (parts: StoredPart[]) => parts.map((p) => p.text).join('\n\n');

async function resolveSource(
  ctx: ContentContext,
  brandId: string,
  from: MemorySaveInput['from'],
): Promise<ResolvedSource> {
  const ref = refOf(from);
  const missing = () => notFound(ref.kind.replace('_', ' '), ref.id);
  const excerpt = (t: string) => truncate(t.replace(/\s+/g, ' '), 200);
  switch (ref.kind) {
    case 'post': {
      const post = await ctx.stores.posts.get(ref.id);
      if (!post || post.brand_id !== brandId) throw missing();
      const text = partsText(post.parts);
      return {
        evidence: { kind: 'post', id: post.id, excerpt: excerpt(text), url: post.permalink },
        text,
        platform: post.platform,
        title: truncate(text.split('\n')[0] ?? text, 80),
      };
    }
    case 'reply': {
      const store = ctx.stores.posts;
      const reply = await store.getReply(ref.id);
      if (!reply || reply.brand_id !== brandId) throw missing();
      const post = await store.get(reply.post_id);
      return {
        evidence: { kind: 'reply', id: reply.id, excerpt: excerpt(reply.text), url: post?.permalink ?? null },
        text: reply.text,
        platform: null,
        title: `Reply from ${reply.author}`,
      };
    }
    case 'reply_theme': {
      const match = /^theme_([a-z]+)_(.+)$/.exec(ref.id);
      const theme = REPLY_THEMES.find((t) => t === match?.[1]);
      if (!match || !theme || match[2] !== brandId) throw missing();
      const src = await themeSource(ctx, brandId, theme);
      if (!src) throw missing();
      return {
        evidence: { kind: 'reply_theme', id: ref.id, excerpt: excerpt(src.text), url: null },
        text: src.text,
        platform: null,
        title: src.label,
      };
    }
    case 'signal': {
      const signal = await ctx.stores.signals.get(ref.id);
      if (!signal || signal.brand_id !== brandId) throw missing();
      const text = signal.summary ? `${signal.title}: ${signal.summary}` : signal.title;
      return {
        evidence: { kind: 'signal', id: signal.id, excerpt: excerpt(text), url: signal.source_url },
        text,
        platform: null,
        title: signal.title,
      };
    }
    case 'draft': {
      const draft = await ctx.stores.drafts.get(ref.id);
      if (!draft || draft.brand_id !== brandId) throw missing();
      const text = partsText(draft.parts);
      return {
        evidence: { kind: 'draft', id: draft.id, excerpt: excerpt(text), url: null },
        text,
        platform: draft.platform,
        title: truncate(text.split('\n')[0] ?? text, 80),
      };
    }
  }
}

type Change = {
  op: 'add' | 'add_evidence';
  target: 'knowledge' | 'voice.do' | 'voice.avoid' | 'example_posts';
  item:
    | BrandMemory['knowledge'][number]
    | BrandMemory['voice']['do'][number]
    | BrandMemory['example_posts'][number];
};

/** Pure: what saving `src` as `input.as` does to `memory`. Shared by save and preview. */
function planSave(
  ctx: ContentContext,
  memory: BrandMemory,
  src: ResolvedSource,
  input: MemorySaveInput,
  at: string,
): { memory: BrandMemory; change: Change } {
  const next = structuredClone(memory);
  const id = ctx.ids.make('mem');
  switch (input.as) {
    case 'knowledge': {
      const body = `${input.text ?? src.text}${input.note ? `\n\nNote: ${input.note}` : ''}`;
      const item = {
        id,
        kind: 'note' as const,
        title: input.title ?? src.title,
        body,
        source: src.evidence,
        created_at: at,
      };
      next.knowledge.push(item);
      return { memory: next, change: { op: 'add', target: 'knowledge', item } };
    }
    case 'excerpt': {
      const quote = input.text ?? src.text;
      if (input.text && !src.text.toLowerCase().includes(input.text.toLowerCase()))
        throw unprocessable(
          'EXCERPT_NOT_IN_SOURCE',
          'An excerpt quotes its source: `text` must occur in it.',
          'text',
        );
      const item = {
        id,
        kind: 'excerpt' as const,
        title: input.title ?? src.title,
        body: quote,
        source: src.evidence,
        created_at: at,
      };
      next.knowledge.push(item);
      return { memory: next, change: { op: 'add', target: 'knowledge', item } };
    }
    case 'example_post': {
      const item = {
        id,
        platform: src.platform,
        text: input.text ?? src.text,
        source: src.evidence,
        created_at: at,
      };
      next.example_posts.push(item);
      return { memory: next, change: { op: 'add', target: 'example_posts', item } };
    }
    case 'do':
    case 'avoid': {
      const text = input.note ?? input.text;
      if (!text)
        throw unprocessable(
          'RULE_TEXT_REQUIRED',
          `Saving as a '${input.as}' rule needs the rule in 'note' (or 'text'); the source is linked as its evidence.`,
          'note',
        );
      const list = input.as === 'do' ? next.voice.do : next.voice.avoid;
      const target = input.as === 'do' ? 'voice.do' : 'voice.avoid';
      const i = list.findIndex((r) => r.text.trim().toLowerCase() === text.trim().toLowerCase());
      if (i >= 0) {
        const existing = list[i];
        if (!existing) throw new Error('unreachable');
        const updated = addEvidence(existing, src.evidence);
        list[i] = updated;
        return { memory: next, change: { op: 'add_evidence', target, item: updated } };
      }
      const item = { id, text, evidence: [src.evidence], created_at: at };
      list.push(item);
      return { memory: next, change: { op: 'add', target, item } };
    }
  }
}

/** `save_to_memory` and POST /v1/brands/:id/memory/save. */
export async function saveToMemory(
  ctx: ContentContext,
  brandId: string,
  input: MemorySaveInput,
  _caller?: Caller,
) {
  if (!(await ctx.stores.brands.exists(brandId))) throw notFound('brand', brandId);
  const src = await resolveSource(ctx, brandId, input.from);
  let change: Change | undefined;
  const memory = await writeMemory(ctx, brandId, (m, at) => {
    const planned = planSave(ctx, m, src, input, at);
    change = planned.change;
    return planned.memory;
  });
  if (!change) throw new Error('memory save produced no change');
  return { saved: true, change, memory };
}

/** Same as save, without writing: shows the change and the memory it would produce. */
export async function previewMemorySave(ctx: ContentContext, brandId: string, input: MemorySaveInput) {
  const brand = await ctx.stores.brands.get(brandId);
  if (!brand) throw notFound('brand', brandId);
  const src = await resolveSource(ctx, brandId, input.from);
  const planned = planSave(ctx, memoryOf(brand), src, input, ctx.clock.now().toISOString());
  return { saved: false, change: planned.change, memory: planned.memory };
}
