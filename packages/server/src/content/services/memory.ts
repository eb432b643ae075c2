import type { Ids } from '../../platform/ids.js';
import type { VoiceInput } from '../model/types.js';
import type { BrandMemory, Evidence, MemoryInput, MemoryRule } from '../schemas/brands.js';

export const emptyMemory = (): BrandMemory => ({
  voice: { summary: '', do: [], avoid: [], banned_words: [] },
  audiences: [],
  products: [],
  knowledge: [],
  style_rules: [],
  example_posts: [],
});

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Replacing a rule list keeps the id and evidence of every rule whose text did not change. */
function mergeRules(old: MemoryRule[], texts: string[], ids: Ids, at: string): MemoryRule[] {
  const out: MemoryRule[] = [];
  for (const text of texts) {
    if (out.some((r) => same(r.text, text))) continue;
    out.push(
      old.find((r) => same(r.text, text)) ?? { id: ids.make('mem'), text, evidence: [], created_at: at },
    );
  }
  return out;
}

/** Applies a memory input: each list given replaces the stored one; lists left out stay. */
export function applyMemoryInput(memory: BrandMemory, input: MemoryInput, ids: Ids, at: string): BrandMemory {
  const next: BrandMemory = structuredClone(memory);
  if (input.voice) {
    if (input.voice.summary !== undefined) next.voice.summary = input.voice.summary;
    if (input.voice.do) next.voice.do = mergeRules(memory.voice.do, input.voice.do, ids, at);
    if (input.voice.avoid) next.voice.avoid = mergeRules(memory.voice.avoid, input.voice.avoid, ids, at);
    if (input.voice.banned_words)
      next.voice.banned_words = [...new Set(input.voice.banned_words.map((w) => w.toLowerCase()))];
  }
  if (input.style_rules) next.style_rules = mergeRules(memory.style_rules, input.style_rules, ids, at);
  if (input.audiences)
    next.audiences = input.audiences.map((a) => ({
      id: memory.audiences.find((o) => same(o.name, a.name))?.id ?? ids.make('mem'),
      name: a.name,
      description: a.description,
    }));
  if (input.products)
    next.products = input.products.map((p) => ({
      id: memory.products.find((o) => same(o.name, p.name))?.id ?? ids.make('mem'),
      name: p.name,
      description: p.description,
      url: p.url ?? null,
    }));
  if (input.knowledge)
    next.knowledge = input.knowledge.map(
      (k) =>
        memory.knowledge.find((o) => o.title === k.title && o.body === k.body) ?? {
          id: ids.make('mem'),
          kind: 'note' as const,
          title: k.title,
          body: k.body,
          source: null,
          created_at: at,
        },
    );
  if (input.example_posts)
    next.example_posts = input.example_posts.map(
      (e) =>
        memory.example_posts.find((o) => o.text === e.text) ?? {
          id: ids.make('mem'),
          platform: e.platform ?? null,
          text: e.text,
          source: null,
          created_at: at,
        },
    );
  return next;
}

/** Removes one entry (a rule, note, audience, product or example) by its id. */
export function removeMemoryItem(memory: BrandMemory, itemId: string): BrandMemory | null {
  const next = structuredClone(memory);
  const lists = [
    next.voice.do,
    next.voice.avoid,
    next.style_rules,
    next.knowledge,
    next.audiences,
    next.products,
    next.example_posts,
  ] as { id: string }[][];
  for (const list of lists) {
    const i = list.findIndex((x) => x.id === itemId);
    if (i >= 0) {
      list.splice(i, 1);
      return next;
    }
  }
  return null;
}

export function addEvidence(rule: MemoryRule, evidence: Evidence): MemoryRule {
  if (rule.evidence.some((e) => e.kind === evidence.kind && e.id === evidence.id)) return rule;
  return { ...rule, evidence: [...rule.evidence, evidence] };
}

export function voiceOf(brandName: string, memory: BrandMemory): VoiceInput {
  return {
    brandName,
    summary: memory.voice.summary,
    do: memory.voice.do.map((r) => r.text),
    avoid: memory.voice.avoid.map((r) => r.text),
    bannedWords: memory.voice.banned_words,
    styleRules: memory.style_rules.map((r) => r.text),
    audiences: memory.audiences.map((a) => a.name),
    products: memory.products.map((p) => p.name),
    examplePosts: memory.example_posts.map((e) => e.text),
    knowledge: memory.knowledge.map((k) => ({ title: k.title, body: k.body })),
  };
}
