import { trimEnd } from '../../platform/trim-end.js';
import { fitToPlatform, hash32, pick, truncate } from '../text.js';
import { replaceBannedWords } from './copywriter/banned-words.js';
import { compose } from './copywriter/compose.js';
import { REWRITE_QUESTIONS } from './copywriter/templates.js';
import type { ContentModel, SuggestedIdea } from './types.js';

/**
 * A deterministic stand-in for a language model: a small copywriter with grammatical templates
 * per platform and per angle (model/copywriter/), chosen by a hash of the input and the draft's
 * version, so the same input always gives the same text, regenerating gives a new take, and no
 * network is touched. It follows the brand's rules instead of quoting them, replaces banned
 * words instead of leaving holes, keeps the idea's notes to the writer out of the post, and fits
 * platform limits, so every flow downstream sees text a person could publish.
 */

const ANGLES = [
  'a practical how-to',
  'a behind-the-scenes story',
  'a myth worth busting',
  'a quick checklist',
  'a customer lesson',
];

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
      const base = trimEnd(signal.title, (c) => c === '.' || c === '?' || c === '!');
      const title = replaceBannedWords(
        i < signals.length ? `${base}: ${angle}` : `${base}, through ${product}`,
        voice.bannedWords,
      );
      if (!title || taken.has(title.toLowerCase())) continue;
      taken.add(title.toLowerCase());
      out.push({
        title: truncate(title, 200),
        angle: `${angle[0]?.toUpperCase()}${angle.slice(1)} for ${voice.audiences[0] ?? 'our audience'}`,
        notes: replaceBannedWords(
          `From the ${signal.kind} signal "${signal.title}": ${signal.summary}`,
          voice.bannedWords,
        ),
        signalId: signal.id,
      });
    }
    return out;
  },

  async draft({ voice, platform, idea, sourceText, take = 0 }) {
    // The idea's notes are for the writer, never pasted into the post.
    const seed = hash32(`${platform}:${idea.title}:${idea.angle ?? ''}:${sourceText ?? ''}`);
    return { parts: compose({ voice, platform, idea, ...(sourceText ? { sourceText } : {}), take, seed }) };
  },

  async rewrite({ voice, platform, parts, instruction, take = 0 }) {
    const text = parts.join('\n\n');
    const ins = instruction.toLowerCase();
    const seed = hash32(`${platform}:${text}:${ins}`) + take;
    let out: string;
    if (/short|tight|concise|brief/.test(ins)) {
      const paragraphs = text.split(/\n\n+/);
      out = [paragraphs[0], paragraphs.find((p) => p.startsWith('#'))].filter(Boolean).join('\n\n');
    } else if (/formal|professional/.test(ins)) {
      out = text
        .replace(/\b(\w+)n't\b/gi, '$1 not')
        .replace(/\bwe're\b/gi, 'we are')
        .replace(/\bit's\b/gi, 'it is')
        .replace(/\blet's\b/gi, 'let us')
        .replace(/!/g, '.');
    } else if (/casual|friendly|warm/.test(ins)) {
      out = text
        .replace(/\bdo not\b/gi, "don't")
        .replace(/\bit is\b/gi, "it's")
        .replace(/\bwe are\b/gi, "we're");
    } else if (/question/.test(ins)) {
      // A question hook: open with a real question, then the original opening.
      const [first = '', ...rest] = text.split(/\n\n+/);
      const asked = REWRITE_QUESTIONS.filter((q) => !text.includes(q));
      out = [pick(asked.length ? asked : REWRITE_QUESTIONS, seed), first, ...rest].join('\n\n');
    } else {
      // "punchier" and anything else: drop filler words, end the opening with energy.
      out = text.replace(/\b(really|very|just|actually|basically)\s+/gi, '');
      const [first = '', ...rest] = out.split(/\n\n+/);
      out = [first.replace(/\.$/, '!'), ...rest].join('\n\n');
    }
    const clean = replaceBannedWords(out, voice.bannedWords);
    return { parts: fitToPlatform(clean, platform).map((p) => replaceBannedWords(p, voice.bannedWords)) };
  },
};
