import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORMS, type Platform } from '../../src/content/domain.js';
import { simulatedModel } from '../../src/content/model/simulated.js';
import type { VoiceInput } from '../../src/content/model/types.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeIdea } from './helpers.js';

/**
 * The simulated model writes posts a social-media manager could publish: each complaint from
 * the review that found it rewriting every draft is one check here.
 */
const voice: VoiceInput = {
  brandName: 'Fieldnote',
  summary: 'Plain and practical.',
  do: ['Lead with an example'],
  avoid: ['Hype'],
  bannedWords: ['synergy', 'blockchain'],
  styleRules: ['Use short sentences'],
  audiences: ['Team leads'],
  products: ['Fieldnote'],
  examplePosts: [],
  knowledge: [
    { title: 'Survey', body: '62% of team leads prefer async check-ins. The rest want fewer meetings.' },
  ],
};
const TITLES = [
  'Why our Monday meeting is 12 minutes',
  'Async standups are trending: a quick checklist',
  'Do standups still work?',
  'Async standups in practice',
  'Real synergy comes from small habits',
  'How we ship on Fridays',
];
const ANGLES = ['A practical how-to for team leads', 'A behind-the-scenes story', 'A quick checklist', null];
const NOTES = 'From the trend signal "Async standups": internal note for the writer.';

async function draftsFor(title: string, angle: string | null, take = 0) {
  const out: Record<Platform, string> = { x: '', linkedin: '', instagram: '', threads: '' };
  for (const platform of PLATFORMS) {
    const d = await simulatedModel.draft({ voice, platform, idea: { title, angle, notes: NOTES }, take });
    out[platform] = d.parts.join('\n\n');
  }
  return out;
}

describe('simulated drafts', () => {
  it('open with grammatical hooks whatever the title looks like', async () => {
    const allowed: Record<string, RegExp> = {
      'Why our Monday meeting is 12 minutes':
        /^(Why our Monday meeting is 12 minutes\.|Here's why our Monday meeting is 12 minutes\.|People keep asking us why our Monday meeting is 12 minutes\.|Ever wondered why our Monday meeting is 12 minutes\?|Do you know why our Monday meeting is 12 minutes\?)/,
      'Do standups still work?': /^Do standups still work\?/,
      'Async standups in practice':
        /^(Async standups in practice: what we learned\.|Let's talk about async standups in practice\.|A few honest notes on async standups in practice\.|What's your take on async standups in practice\?|How does your team approach async standups in practice\?)/,
    };
    for (const [title, re] of Object.entries(allowed)) {
      for (const angle of ANGLES) {
        for (const take of [0, 1, 2]) {
          for (const text of Object.values(await draftsFor(title, angle, take))) expect(text).toMatch(re);
        }
      }
    }
  });

  it('never paste the idea’s notes, quote the brand’s rules, or leave broken sentences', async () => {
    for (const title of TITLES) {
      for (const angle of ANGLES) {
        for (const text of Object.values(await draftsFor(title, angle))) {
          expect(text).not.toContain('internal note');
          for (const rule of [...voice.do, ...voice.styleRules])
            expect(text.toLowerCase()).not.toContain(rule.toLowerCase());
          expect(text).not.toMatch(/ {2,}| [.,!?]|\.\.|\?\.|[.!?] [a-z]/);
          expect(text).not.toMatch(/\b(synergy|blockchain)\b/i);
        }
      }
    }
  });

  it('replace banned words with plain ones instead of deleting them', async () => {
    const { linkedin } = await draftsFor('Real synergy comes from small habits', null, 1);
    expect(linkedin).toMatch(/real teamwork comes from small habits/i);
  });

  it('list as many things as the hook promises', async () => {
    for (const title of TITLES) {
      for (const take of [0, 1, 2, 3]) {
        const { linkedin, x } = await draftsFor(title, 'A quick checklist', take);
        if (/Three questions/.test(linkedin)) expect(linkedin.match(/^\d\. /gm)).toHaveLength(3);
        const steps = x.match(/^\d\/ /gm) ?? [];
        expect([0, 3]).toContain(steps.length);
      }
    }
  });

  it('write X and LinkedIn differently', async () => {
    for (const title of TITLES) {
      const { x, linkedin } = await draftsFor(title, 'A practical how-to for team leads', 1);
      const lines = (s: string) => new Set(s.split('\n').filter((l) => l.trim()));
      const a = lines(x);
      const b = lines(linkedin);
      const shared = [...a].filter((l) => b.has(l)).length;
      expect(shared / Math.max(a.size, b.size)).toBeLessThan(0.5);
      expect(linkedin.length).toBeGreaterThan(x.length * 1.5);
    }
  });

  it('give a new take on each regeneration, and the same text for the same take', async () => {
    for (const title of TITLES) {
      const first = await draftsFor(title, null, 0);
      const second = await draftsFor(title, null, 1);
      expect(await draftsFor(title, null, 0)).toEqual(first);
      for (const platform of PLATFORMS)
        expect(second[platform], `${title} on ${platform}`).not.toBe(first[platform]);
    }
  });

  it('turn a post into a question with a real question, not a changed full stop', async () => {
    const parts = [
      "Let's talk about async standups.\n\nStart here: pick one routine that eats time every week.",
    ];
    const { parts: out } = await simulatedModel.rewrite({
      voice,
      platform: 'linkedin',
      parts,
      instruction: 'Make it a question',
    });
    const [opening = ''] = (out[0] ?? '').split('\n\n');
    expect(opening).toMatch(/\?$/);
    expect(opening).not.toBe("Let's talk about async standups?");
    expect(out.join('\n\n')).toContain("Let's talk about async standups.");
  });
});

describe('regenerating a draft over HTTP', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('saves a version with different text', async () => {
    const brand = await makeBrand(svc);
    const ideaId = await makeIdea(svc, brand.id, 'Why our Monday meeting is 12 minutes');
    const text = async () => {
      const res = await api(svc.url, 'POST', '/v1/drafts/generate', {
        body: { idea_id: ideaId, platforms: ['linkedin'] },
      });
      expect(res.status).toBe(201);
      const draft = res.body.drafts[0];
      return {
        version: draft.version as number,
        text: (draft.parts as { text: string }[]).map((p) => p.text).join('\n'),
      };
    };
    const v1 = await text();
    const v2 = await text();
    expect(v2.version).toBe(v1.version + 1);
    expect(v2.text).not.toBe(v1.text);
  });
});
