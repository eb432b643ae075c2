import { HASHTAG_LIMITS, type Platform } from '../domain.js';
import { fitToPlatform, hash32, pick, removeBannedWords, truncate } from '../text.js';
import type { ContentModel, SuggestedIdea, VoiceInput } from './types.js';

/**
 * A deterministic stand-in for a language model: templates chosen by a hash of the input, so
 * the same input always gives the same text and no network is touched. It still follows the
 * brand's voice rules, strips banned words and fits platform limits, so every flow downstream
 * (voice check, approvals, limits) sees realistic input.
 */

const HOOKS = [
  (t: string) => `${t}.`,
  (t: string) => `Here's what nobody tells you about ${lower(t)}.`,
  (t: string) => `We learned this the hard way: ${lower(t)}.`,
  (t: string) => `3 things about ${lower(t)} worth knowing.`,
  (t: string) => `Quick one on ${lower(t)}.`,
];
const QUESTION_HOOKS = [
  (t: string) => `What if ${lower(t)} was simpler than you think?`,
  (t: string) => `Ever wondered about ${lower(t)}?`,
];
const CTAS: Record<Platform, string[]> = {
  x: ['What would you add?', 'Agree?'],
  linkedin: ['How does your team handle this? Tell me in the comments.', 'Curious how others approach it.'],
  instagram: ['Save this for later.', 'Tag someone who needs this.'],
  threads: ['Thoughts?', 'What did I miss?'],
};
const ANGLES = [
  'a practical how-to',
  'a behind-the-scenes story',
  'a myth worth busting',
  'a quick checklist',
  'a customer lesson',
];

const lower = (s: string) =>
  s.length > 1 && s[1] === s[1]?.toLowerCase() ? s[0]?.toLowerCase() + s.slice(1) : s;
const wantsQuestions = (v: VoiceInput) => v.do.some((d) => /question/i.test(d));
const avoidsEmoji = (v: VoiceInput) => [...v.avoid, ...v.styleRules].some((r) => /emoji/i.test(r));
const tagOf = (s: string) =>
  `#${s
    .replace(/[^\p{L}\p{N} ]/gu, '')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('')}`;

function hashtags(voice: VoiceInput, platform: Platform, seed: number): string {
  const pool = [...voice.products, ...voice.audiences].map(tagOf).filter((t) => t.length > 2);
  const n = Math.min(pool.length, Math.max(1, Math.floor(HASHTAG_LIMITS[platform] / 2)));
  const out: string[] = [];
  for (let i = 0; i < pool.length && out.length < n; i++) {
    const tag = pick(pool, seed + i);
    if (!out.includes(tag)) out.push(tag);
  }
  return out.join(' ');
}

function finish(voice: VoiceInput, platform: Platform, text: string): string[] {
  const clean = removeBannedWords(text, voice.bannedWords);
  return fitToPlatform(clean, platform).map((p) => removeBannedWords(p, voice.bannedWords));
}

export const simulatedModel: ContentModel = {
  kind: 'simulated',

  async suggestIdeas({ voice, signals, count, existingTitles }) {
    const taken = new Set(existingTitles.map((t) => t.toLowerCase()));
    const out: SuggestedIdea[] = [];
    for (let i = 0; out.length < count && i < count * 4 && signals.length > 0; i++) {
      const signal = signals[i % signals.length];
      if (!signal) break;
      const seed = hash32(`${signal.id}:${i}`);
      const angle = pick(ANGLES, seed);
      const product = voice.products.length ? pick(voice.products, seed >> 3) : voice.brandName;
      const base = signal.title.replace(/[.?!]+$/, '');
      const title = removeBannedWords(
        i < signals.length ? `${base}: ${angle}` : `${base}, through ${product}`,
        voice.bannedWords,
      );
      if (taken.has(title.toLowerCase())) continue;
      taken.add(title.toLowerCase());
      out.push({
        title: truncate(title, 200),
        angle: `${angle[0]?.toUpperCase()}${angle.slice(1)} for ${voice.audiences[0] ?? 'our audience'}`,
        notes: removeBannedWords(
          `From the ${signal.kind} signal "${signal.title}": ${signal.summary}`,
          voice.bannedWords,
        ),
        signalId: signal.id,
      });
    }
    return out;
  },

  async draft({ voice, platform, idea, sourceText }) {
    const seed = hash32(`${platform}:${idea.title}:${idea.angle ?? ''}:${sourceText ?? ''}`);
    const hook = wantsQuestions(voice) && seed % 2 === 0 ? pick(QUESTION_HOOKS, seed) : pick(HOOKS, seed);
    const lines = [hook(idea.title.replace(/[.?!]+$/, ''))];
    if (sourceText) lines.push(sourceText.split('\n').slice(1).join(' ').trim() || sourceText);
    if (idea.angle) lines.push(`${idea.angle.replace(/[.]+$/, '')}.`);
    if (idea.notes && platform !== 'x') lines.push(idea.notes);
    if (voice.do[0] && platform === 'linkedin') lines.push(`Our rule of thumb: ${lower(voice.do[0])}.`);
    if (voice.products[0] && platform !== 'threads')
      lines.push(`That's why we built ${pick(voice.products, seed >> 2)}.`);
    lines.push(pick(CTAS[platform], seed >> 4));
    const tags = hashtags(voice, platform, seed);
    let text = lines.join('\n\n');
    if (!avoidsEmoji(voice) && platform === 'instagram') text = `${text} ✨`;
    if (tags) text = `${text}\n\n${tags}`;
    return { parts: finish(voice, platform, text) };
  },

  async rewrite({ voice, platform, parts, instruction }) {
    const text = parts.join('\n\n');
    const ins = instruction.toLowerCase();
    let out: string;
    if (/short|tight|concise|brief/.test(ins)) {
      const paragraphs = text.split(/\n\n+/);
      out = [paragraphs[0], paragraphs.find((p) => p.startsWith('#'))].filter(Boolean).join('\n\n');
    } else if (/formal|professional/.test(ins)) {
      out = text
        .replace(/\b(\w+)n't\b/gi, '$1 not')
        .replace(/\bwe're\b/gi, 'we are')
        .replace(/\bit's\b/gi, 'it is')
        .replace(/!/g, '.');
    } else if (/casual|friendly|warm/.test(ins)) {
      out = text
        .replace(/\bdo not\b/gi, "don't")
        .replace(/\bit is\b/gi, "it's")
        .replace(/\bwe are\b/gi, "we're");
    } else if (/question/.test(ins)) {
      const [first = '', ...rest] = text.split(/\n\n+/);
      out = [`${first.replace(/[.!]+$/, '')}?`, ...rest].join('\n\n');
    } else {
      // "punchier" and anything else: lead with the strongest sentence, drop filler words.
      out = text.replace(/\b(really|very|just|actually|basically)\s+/gi, '');
      const [first = '', ...rest] = out.split(/\n\n+/);
      out = [first.replace(/\.$/, '!'), ...rest].join('\n\n');
    }
    return { parts: finish(voice, platform, out) };
  },
};
