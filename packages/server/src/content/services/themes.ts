import { DAY } from '../../platform/clock.js';
import type { ContentContext } from '../context.js';
import type { ReplyRow } from '../db/stores/posts-store.js';
import { REPLY_THEMES, type ReplyTheme } from '../domain.js';
import type { ConversationView } from '../schemas/insights.js';
import { requireBrand } from './brands.js';

const LABELS: Record<ReplyTheme, string> = {
  question: 'Questions',
  objection: 'Objections',
  praise: 'Praise',
  request: 'Requests',
};

/** Sorts a reply into one theme. Requests before questions: "could you add X?" is a request. */
export function classifyReply(text: string): ReplyTheme {
  const t = text.toLowerCase();
  if (/\b(please add|could you|can you add|would love|wish|feature request|any plans|please)\b/.test(t))
    return 'request';
  if (
    /\b(but|too expensive|pricey|not sure|doesn't|does not|won't|disagree|sceptical|skeptical|concern)\b/.test(
      t,
    )
  )
    return 'objection';
  if (t.includes('?')) return 'question';
  return 'praise';
}

const STOP = new Set(
  'the a an and or but to of in on for with is it this that you your we our i my me be are was so how what do does can could would at as from have has just not'.split(
    ' ',
  ),
);

function topTerms(replies: ReplyRow[], n: number): string[] {
  const counts = new Map<string, number>();
  for (const r of replies)
    for (const w of new Set(r.text.toLowerCase().match(/[a-z][a-z'-]{2,}/g) ?? []))
      if (!STOP.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([w]) => w);
}

export const themeId = (theme: ReplyTheme, brandId: string) => `theme_${theme}_${brandId}`;

/** Reply themes over the last `days`, largest first (ties in the fixed theme order). */
export async function getConversation(
  ctx: ContentContext,
  brandId: string,
  days = 30,
): Promise<ConversationView> {
  await requireBrand(ctx, brandId);
  const since = new Date(ctx.clock.now().getTime() - days * DAY).toISOString();
  const replies = await ctx.stores.posts.repliesSince(brandId, since);
  const themes = REPLY_THEMES.map((theme) => {
    const list = replies.filter((r) => r.theme === theme);
    return {
      id: themeId(theme, brandId),
      theme,
      label: LABELS[theme],
      count: list.length,
      share: replies.length ? Math.round((list.length / replies.length) * 100) / 100 : 0,
      top_terms: topTerms(list, 5),
      examples: list.slice(0, 3).map((r) => ({ reply_id: r.id, post_id: r.post_id, text: r.text })),
    };
  })
    .filter((t) => t.count > 0)
    .sort((a, b) => b.count - a.count);
  return { brand_id: brandId, days, total_replies: replies.length, themes };
}

/** The text memory save quotes for a reply theme: its label and example replies. */
export async function themeSource(ctx: ContentContext, brandId: string, theme: ReplyTheme) {
  const conv = await getConversation(ctx, brandId, 90);
  const t = conv.themes.find((x) => x.theme === theme);
  if (!t) return null;
  return { label: `${t.label} (${t.count} replies)`, text: t.examples.map((e) => e.text).join('\n') };
}
