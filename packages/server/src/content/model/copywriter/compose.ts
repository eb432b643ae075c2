import { HASHTAG_LIMITS, type Platform } from '../../domain.js';
import { fitToPlatform, pick } from '../../text.js';
import type { VoiceInput } from '../types.js';
import { replaceBannedWords } from './banned-words.js';
import { CTAS, hookFor, LEAD_INS, numbered, pointsFor, SINGLE_INTROS } from './templates.js';
import { type AngleKind, angleKind, inSentence, topicOf } from './topic.js';

/**
 * One simulated post: a hook, a body shaped by the angle and the platform, a call to action
 * and hashtags. Each platform gets its own shape, so the X and LinkedIn drafts of one idea
 * read differently. `take` (the draft's version) changes the choices, so regenerating gives
 * a new take; the same input and take always give the same text.
 */

const rulesSay = (voice: VoiceInput, re: RegExp) =>
  [...voice.do, ...voice.styleRules].some((r) => re.test(r));
/** "Avoid emoji" in avoid, or a style rule that says no emoji. */
const avoids = (voice: VoiceInput, re: RegExp) =>
  voice.avoid.some((r) => re.test(r)) ||
  voice.styleRules.some((r) => re.test(r) && /\b(no|avoid|never|without)\b/i.test(r));

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

/** A fact the brand keeps in its knowledge, short enough to quote in a post. */
function knownFact(voice: VoiceInput, seed: number): string | null {
  const facts = (voice.knowledge ?? [])
    .map((k) => k.body.split(/(?<=[.!?])\s+/)[0]?.trim() ?? '')
    .filter((s) => s.length > 20 && s.length <= 180 && /[.!]$/.test(s));
  return facts.length ? pick(facts, seed) : null;
}

export interface ComposeInput {
  voice: VoiceInput;
  platform: Platform;
  idea: { title: string; angle: string | null };
  sourceText?: string;
  take: number;
  seed: number;
}

export function compose({ voice, platform, idea, sourceText, take, seed }: ComposeInput): string[] {
  const topic = topicOf(idea.title);
  const kind: AngleKind = angleKind(idea.angle, idea.title);
  const n = seed + take * 7;
  const wantsQuestion = rulesSay(voice, /question/i);
  const noEmoji = avoids(voice, /emoji/i);
  const hook = sourceText?.split(/\n+/)[0]?.trim() || hookFor(topic, wantsQuestion && n % 2 === 0, n);
  const points = pointsFor(kind, seed + take);
  // One point on its own, introduced when it is an instruction or a question.
  const onePoint = (i: number) => {
    const point = points[i % points.length] as string;
    const intro = SINGLE_INTROS[kind];
    return intro ? `${intro} ${inSentence(point)}` : point;
  };
  const cta = pick(CTAS[platform], n >> 3);
  const tags = hashtags(voice, platform, n);
  const product = voice.products.length ? pick(voice.products, n >> 2) : null;
  const example = rulesSay(voice, /example/i)
    ? 'For example: start with the one meeting or report everyone dreads.'
    : null;
  const fact = knownFact(voice, n);
  const withTags = (text: string) => (tags ? `${text}\n\n${tags}` : text);
  const clean = (parts: string[]) =>
    parts.map((p) => replaceBannedWords(p, voice.bannedWords)).filter(Boolean);

  switch (platform) {
    case 'x': {
      // Step-by-step angles become a thread whose parts are the steps; the rest stay one post.
      if ((kind === 'howto' || kind === 'checklist') && take % 2 === 0) {
        return clean([
          `${hook}${noEmoji ? '' : ' 🧵'}`,
          ...points.map((p, i) => `${i + 1}/ ${p}`),
          withTags(cta),
        ]).flatMap((p) => fitToPlatform(p, 'x'));
      }
      const single = withTags(`${hook}\n\n${onePoint(take)}\n\n${cta}`);
      return clean(fitToPlatform(replaceBannedWords(single, voice.bannedWords), 'x'));
    }
    case 'linkedin': {
      const body = [
        hook,
        LEAD_INS[kind],
        numbered(points),
        example,
        fact,
        product ? `That's the thinking behind ${product}.` : null,
        cta,
      ].filter(Boolean);
      return clean(
        fitToPlatform(replaceBannedWords(withTags(body.join('\n\n')), voice.bannedWords), 'linkedin'),
      );
    }
    case 'instagram': {
      const body = [
        `${hook}${noEmoji ? '' : ' ✨'}`,
        points.map((p) => `→ ${p}`).join('\n'),
        fact,
        product ? `Made with ${product} in mind.` : null,
        cta,
      ].filter(Boolean);
      return clean(
        fitToPlatform(replaceBannedWords(withTags(body.join('\n\n')), voice.bannedWords), 'instagram'),
      );
    }
    case 'threads': {
      const text = `${hook}\n\n${onePoint(take + 1)}\n\n${cta}`;
      return clean(fitToPlatform(replaceBannedWords(text, voice.bannedWords), 'threads'));
    }
  }
}
