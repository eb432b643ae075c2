import { trimEnd } from '../../../platform/trim-end.js';

/**
 * What a post is about, read from an idea's title, so every template can use it grammatically.
 * A title can be a question ("Do standups still work?"), a question phrase ("Why our Monday
 * meeting is 12 minutes"), or a noun phrase or statement ("Async standups in practice").
 * Templates ask for the form they need instead of pasting the title anywhere.
 */

export type TopicKind = 'question' | 'question-phrase' | 'statement' | 'phrase';

export interface Topic {
  kind: TopicKind;
  /** The title without trailing punctuation or a suggested-angle suffix, as written. */
  text: string;
}

const QUESTION_WORDS = /^(why|how|what|when|where|who|which)\b/i;

/** A title with one of these verbs says something ("Async standups are trending"); without, it names a topic. */
const VERBS =
  /\b(is|are|was|were|has|have|had|does|do|did|can|could|will|would|should|must|isn't|aren't|doesn't|don't|won't|comes|works|matters|beats|wins|saves|makes|takes|needs|helps|changes|keeps|gets|goes|runs|means|starts|cuts|pays|fails|grows)\b/i;

/** Suggested ideas are titled "<signal>: <angle>"; the angle is not part of the topic. */
const ANGLE_SUFFIX =
  /:\s*(a practical how-to|a behind-the-scenes story|a myth worth busting|a quick checklist|a customer lesson)$/i;

export function topicOf(title: string): Topic {
  const raw = title.trim().replace(ANGLE_SUFFIX, '');
  if (raw.endsWith('?')) return { kind: 'question', text: raw };
  const text = trimEnd(raw, (c) => '.!:;,'.includes(c) || c.trim() === '');
  if (QUESTION_WORDS.test(text)) return { kind: 'question-phrase', text };
  return { kind: VERBS.test(text) ? 'statement' : 'phrase', text };
}

/** Lower-cases the first letter unless the first word looks like a name or acronym ("API", "Fieldnote's"). */
export function inSentence(text: string): string {
  const first = text.split(/\s+/)[0] ?? '';
  const isAcronym = first.length > 1 && first === first.toUpperCase();
  const isName = /^[A-Z][a-z]+[A-Z]/.test(first);
  return isAcronym || isName ? text : text.charAt(0).toLowerCase() + text.slice(1);
}

export const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Angles people write, mapped to the body shape that suits them. */
export type AngleKind = 'howto' | 'story' | 'myth' | 'checklist' | 'lesson' | 'insight';

export function angleKind(angle: string | null, title: string): AngleKind {
  const text = `${angle ?? ''} ${title}`.toLowerCase();
  if (/check ?list|\btips\b|\bthings\b|\bsteps\b|\blist\b/.test(text)) return 'checklist';
  if (/how[- ]?to|guide|practical|playbook/.test(text)) return 'howto';
  if (/behind|story|journey|we learned/.test(text)) return 'story';
  if (/myth|mistake|wrong|misconception/.test(text)) return 'myth';
  if (/customer|client|lesson|case/.test(text)) return 'lesson';
  return 'insight';
}
