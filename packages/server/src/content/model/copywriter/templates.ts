import type { Platform } from '../../domain.js';
import { type AngleKind, capitalised, inSentence, type Topic } from './topic.js';

/**
 * The simulated copywriter's phrasebook. Every template takes the topic in the form it needs,
 * so the result is a sentence whatever the title looks like. Lists and threads really list
 * the number of things their hook promises.
 */

type Hook = (t: Topic) => string;

/** Openers that state the topic. */
const STATEMENT_HOOKS: Record<Topic['kind'], Hook[]> = {
  question: [(t) => t.text, (t) => `${t.text} We asked ourselves the same thing.`],
  'question-phrase': [
    (t) => `${capitalised(t.text)}.`,
    (t) => `Here's ${inSentence(t.text)}.`,
    (t) => `People keep asking us ${inSentence(t.text)}. Here's the honest answer.`,
  ],
  statement: [
    (t) => `${capitalised(t.text)}.`,
    (t) => `${capitalised(t.text)}. Here's why that matters.`,
    (t) => `We keep hearing that ${inSentence(t.text)}.`,
  ],
  phrase: [
    (t) => `${capitalised(t.text)}: what we learned.`,
    (t) => `Let's talk about ${inSentence(t.text)}.`,
    (t) => `A few honest notes on ${inSentence(t.text)}.`,
  ],
};

/** Openers that ask, for brands whose rules say to lead with a question. */
const QUESTION_HOOKS: Record<Topic['kind'], Hook[]> = {
  question: [(t) => t.text],
  'question-phrase': [
    (t) => `Ever wondered ${inSentence(t.text)}?`,
    (t) => `Do you know ${inSentence(t.text)}?`,
  ],
  statement: [
    (t) => `Have you noticed that ${inSentence(t.text)}?`,
    (t) => `Do you agree that ${inSentence(t.text)}?`,
  ],
  phrase: [
    (t) => `What's your take on ${inSentence(t.text)}?`,
    (t) => `How does your team approach ${inSentence(t.text)}?`,
  ],
};

export function hookFor(topic: Topic, wantsQuestion: boolean, n: number): string {
  const pool = (wantsQuestion ? QUESTION_HOOKS : STATEMENT_HOOKS)[topic.kind];
  return (pool[Math.abs(n) % pool.length] as Hook)(topic);
}

/** Three concrete points per angle; list and thread shapes use all three. */
const POINTS: Record<AngleKind, string[][]> = {
  howto: [
    [
      'Pick one routine that eats time every week.',
      'Try the change with one small group for two weeks.',
      'Measure what changed, then decide together whether to keep it.',
    ],
    [
      'Write down how it works today, step by step.',
      'Remove one step nobody would miss.',
      'Share the new version and ask for one week of honest feedback.',
    ],
  ],
  checklist: [
    ['Who is it for, exactly?', 'What does it replace?', 'How will you know in a month that it worked?'],
    ['Is the goal written down?', 'Does everyone know their part?', 'Is there a date to look back?'],
  ],
  story: [
    [
      'The first week was messy, and we almost gave up.',
      'By the third week, nobody wanted to go back.',
      'What made the difference was letting the team shape it.',
    ],
  ],
  myth: [
    [
      'The common belief: it only works with a big rollout.',
      'What we saw: small, boring steps beat big launches.',
      'So start smaller than feels comfortable.',
    ],
  ],
  lesson: [
    [
      'The teams that made it work started with one clear problem.',
      'They agreed on what "better" would look like before changing anything.',
      'And they kept the habit for a month before judging it.',
    ],
  ],
  insight: [
    [
      "It's simpler than it looks once you see the pattern.",
      'The details matter more than the tool.',
      'And the first step is smaller than you think.',
    ],
  ],
};

export function pointsFor(kind: AngleKind, n: number): string[] {
  const sets = POINTS[kind];
  return sets[Math.abs(n) % sets.length] as string[];
}

/** How a one-point post introduces its point, where the point is an instruction or a question. */
export const SINGLE_INTROS: Record<AngleKind, string | null> = {
  howto: 'Start here:',
  checklist: 'First question to ask:',
  story: null,
  myth: null,
  lesson: null,
  insight: null,
};

/** How each angle introduces its points. */
export const LEAD_INS: Record<AngleKind, string> = {
  howto: "Here's how we'd start:",
  checklist: 'Three questions to answer first:',
  story: 'We tried it ourselves.',
  myth: "Here's the myth we had to unlearn.",
  lesson: "Here's what we keep seeing.",
  insight: 'The short version:',
};

export const CTAS: Record<Platform, string[]> = {
  x: ['What would you add?', 'Agree, or not quite?', 'How do you handle it?'],
  linkedin: [
    'How does your team handle this? Tell me in the comments.',
    "What's worked for you? I'd like to hear it.",
    'What would you do differently?',
  ],
  instagram: [
    'Save this for later.',
    'Share it with someone who needs it.',
    'Which one are you trying first?',
  ],
  threads: ['Thoughts?', 'What did I miss?', 'Would you try it?'],
};

/** Question openers for a "make it a question" rewrite: a real question, not a changed full stop. */
export const REWRITE_QUESTIONS = [
  'What would change for your team if you tried this?',
  'Have you tried this yet?',
  'What is stopping you from trying this?',
];

export const numbered = (points: string[]) => points.map((p, i) => `${i + 1}. ${p}`).join('\n');
