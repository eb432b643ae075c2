import type { MemoryInput } from '../schemas/brands.js';

/** The demo brand: a small team-notes app, so the content reads like a real B2B social calendar. */
export const DEMO_BRAND = 'Fieldnote (demo)';

export const DEMO_MEMORY: MemoryInput = {
  voice: {
    summary:
      'Plain-spoken and practical, like a helpful colleague who has run a small team. Concrete examples over claims; short sentences; a little dry humour.',
    do: [
      'Lead with a concrete example',
      'Write like a helpful colleague',
      'End with a question people can answer',
    ],
    avoid: ['Hype and superlatives', 'Jargon without explaining it'],
    banned_words: ['synergy', 'revolutionary', 'game-changer', 'disrupt'],
  },
  audiences: [
    { name: 'Team leads', description: 'Run teams of 3-15 and drown in status meetings.' },
    { name: 'Ops managers', description: 'Own processes and documentation at small companies.' },
  ],
  products: [
    {
      name: 'Fieldnote',
      description: 'Shared notes that turn into decisions and follow-ups.',
      url: 'https://example.com/fieldnote',
    },
    { name: 'Weekly Digest', description: 'A Friday summary of what the team decided.', url: null },
  ],
  knowledge: [
    { title: 'Pricing', body: 'Free for 3 people; $6 per person per month after that. No annual lock-in.' },
    {
      title: 'Origin story',
      body: 'Built by a four-person agency that lost a client over a forgotten follow-up.',
    },
  ],
  style_rules: ['Sentence case headlines', 'At most two hashtags on X', 'No emoji in the first line'],
  example_posts: [
    {
      platform: 'linkedin',
      text: 'Our Monday meeting used to take 50 minutes. Now it takes 12.\n\nWe stopped reading updates aloud and started reading them before.',
    },
  ],
};

export const TOPICS = [
  'meeting notes nobody reads',
  'async standups',
  'decision logs',
  'the follow-up that never happened',
  'onboarding a new hire in a week',
  'writing a one-page project brief',
  'status updates that take two minutes',
  'retros that change something',
  'the Friday digest habit',
  'documenting how work actually gets done',
  'fewer meetings, same alignment',
  'handing over a project cleanly',
];

export const HOOKS = [
  (t: string) => `How do you keep ${t} from eating your week?`,
  (t: string) => `3 lessons from a year of ${t}.`,
  (t: string) => `We changed one thing about ${t}.`,
  (t: string) => `What would happen if you dropped ${t} for a month?`,
  (t: string) => `A short story about ${t}.`,
  (t: string) => `5 minutes a day on ${t} saved us 4 hours a week.`,
];

export const BODIES = [
  'The trick was writing it down before the meeting, not after. Everyone reads, then we only talk about what needs talking.',
  'We tried three tools and a spreadsheet. What stuck was a single shared page with owners and dates.',
  'Nobody wanted another process. So we made it the smallest possible habit and let it grow.',
  'It felt slower for two weeks. Then it was obviously faster.',
];

export const CLOSERS = [
  'What has worked for your team?',
  'Would this work where you are?',
  'Curious what you would add.',
];
export const TAG_SETS = [
  '',
  '#teamwork',
  '#remotework #productivity',
  '#teamwork #async #notes #productivity #leadership',
];

export const SIGNALS = [
  {
    kind: 'trend',
    title: 'Async standups are replacing daily meetings',
    summary: 'Mentions of async standups doubled this month among team leads.',
    strength: 0.9,
  },
  {
    kind: 'question',
    title: 'How do you write a good decision log?',
    summary: 'Asked repeatedly in replies and in two community threads.',
    strength: 0.8,
  },
  {
    kind: 'competitor',
    title: 'A big notes app launched AI meeting summaries',
    summary: 'Users ask whether summaries replace reading notes at all.',
    strength: 0.7,
  },
  {
    kind: 'mention',
    title: 'Customer praised the Friday digest',
    summary: 'An ops manager shared how the digest cut their status meeting.',
    strength: 0.6,
  },
  {
    kind: 'news',
    title: 'Survey: managers spend 23% of their week in meetings',
    summary: 'A widely shared survey on meeting load in small companies.',
    strength: 0.65,
  },
  {
    kind: 'trend',
    title: 'Onboarding docs as a hiring advantage',
    summary: 'Small teams are competing on how fast new hires become useful.',
    strength: 0.5,
  },
] as const;
