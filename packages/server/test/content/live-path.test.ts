import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import {
  PLATFORM_LIMITS,
  PLATFORMS,
  type Platform,
  SETTLE_AGE_H,
  SNAPSHOT_AGES_H,
} from '../../src/content/domain.js';
import { tick } from '../../src/content/services/sandbox.js';
import { HOUR, ManualClock } from '../../src/platform/clock.js';
import type { LinkedInFakePost } from '../fakes/linkedin-fake.js';
import type { MetaPost } from '../fakes/meta-fake.js';
import type { ChatRequest } from '../fakes/openai-fake.js';
import type { XFakeTweet } from '../fakes/x-fake.js';
import { type LiveStack, startLive } from '../helpers/live.js';
import { connectViaProxy, PUBLIC_URL, viaProxy } from '../helpers/public-url.js';
import { api } from '../helpers/start.js';

/**
 * The whole live path of issue 12 in one story, over real HTTP on loopback: a live-mode server with
 * the real-model adapter against the OpenAI-compatible fake, and the X, LinkedIn, Instagram and
 * Threads fakes. Connect all four through OAuth; a weekly_plan run writes with the model; media is
 * attached; a person approves; each post goes out at its slot, once; metrics and replies come back
 * from the platforms; a verdict is computed from them. The background pass (`tick`) is run by hand
 * after moving the injected clock, so nothing waits on a timer.
 */

const PLATFORM_OF: Record<string, Platform> = {
  'X (Twitter)': 'x',
  LinkedIn: 'linkedin',
  'Instagram (the caption)': 'instagram',
  Threads: 'threads',
};

/** The post a careful writer would give for this idea on this platform, within its limits. */
function postFor(platform: Platform, title: string): string[] {
  switch (platform) {
    case 'x':
      // The first idea is a thread: three parts that each stand on their own.
      return title.startsWith('Idea 1')
        ? [
            `${title}: our standup now takes 12 minutes. Here is how.`,
            'Everyone posts yesterday, today and blockers in the channel by 9:30.',
            'The meeting is only for blockers. Nobody reads status aloud any more.',
          ]
        : [`${title}: async check-ins gave our team 40 minutes a day back.`];
    case 'linkedin':
      return [
        `${title}.\n\n62% of team leads in our survey prefer async check-ins. We tried it for a month: status went into a shared note, and the meeting kept only the blockers. It now takes 12 minutes.\n\nWhat would you cut from yours?`,
      ];
    case 'instagram':
      return [`${title}. Status in a note, blockers in the room: 12 minutes, done. #teamwork #async`];
    case 'threads':
      return title.startsWith('Idea 1')
        ? [`${title}: the 12-minute standup.`, 'Status goes in a note. The meeting is for blockers only.']
        : [`${title}: status in a note, blockers in the room.`];
  }
}

/** A well-behaved model: ideas citing the signals sent, posts per platform that fit its limits. */
function respond(req: ChatRequest): string {
  const prompt = req.messages.map((m) => m.content).join('\n');
  if (/Suggest \d+ post ideas/.test(prompt)) {
    const ids = [...prompt.matchAll(/- id (\S+) \(/g)].map((m) => m[1]);
    return JSON.stringify({
      ideas: ids.map((id, i) => ({
        title: `Idea ${i + 1} on async standups`,
        angle: 'A how-to for team leads',
        notes: 'Use the 62% from the survey.',
        signal_id: id,
      })),
    });
  }
  const name = /Platform: (.+?)\.\n/.exec(prompt)?.[1] ?? '';
  const platform = PLATFORM_OF[name];
  const title = /Write a post about: (.+)/.exec(prompt)?.[1];
  if (!platform || !title) throw new Error(`the live path asked the model something unexpected:\n${prompt}`);
  return JSON.stringify({ parts: postFor(platform, title) });
}

const clock = new ManualClock(Date.UTC(2026, 10, 23, 7, 0, 0));
let live: LiveStack;

afterAll(async () => {
  await live?.close();
});

type Approval = {
  id: string;
  draft: { id: string; platform: Platform; parts: { text: string }[] };
  slot: string;
};

async function jpeg(): Promise<Buffer> {
  return sharp({ create: { width: 1080, height: 1080, channels: 3, background: '#2a7f62' } })
    .jpeg()
    .toBuffer();
}

describe('the live path, end to end', () => {
  it('connects, plans with the real model, approves, publishes at each slot once, and reads metrics back into a verdict', async () => {
    // Behind a public https address, as Instagram and Threads need (helpers/public-url.ts).
    live = await startLive({
      model: { respond },
      clock,
      // LinkedIn grants post analytics on request; an app that has it names it here.
      extraScopes: { linkedin: ['r_member_postAnalytics'] },
      config: { content: { port: 0, publicUrl: PUBLIC_URL } },
    });
    const { svc, openai } = live;
    const url = svc.url;
    const pass = () => tick(live.ctx);

    // A brand with a voice, four signals to plan from.
    const brand = await api(url, 'POST', '/v1/brands', {
      body: {
        name: 'Fieldnote',
        memory: {
          voice: { summary: 'Plain and practical.', do: ['Lead with an example'], banned_words: ['synergy'] },
          audiences: [{ name: 'Team leads' }],
        },
      },
    });
    expect(brand.status).toBe(201);
    const brandId = brand.body.id as string;
    const signals: string[] = [];
    for (const title of ['Async standups', 'Meeting load', 'Status notes', 'Blockers first']) {
      const s = await api(url, 'POST', `/v1/brands/${brandId}/signals`, {
        body: { kind: 'trend', title, summary: 'Team leads talk about it.', strength: 0.8 },
      });
      expect(s.status).toBe(201);
      signals.push(s.body.id);
    }

    // 1. Connect each platform through its OAuth flow.
    const channels = {} as Record<Platform, string>;
    for (const p of PLATFORMS) {
      channels[p] = await connectViaProxy(svc, brandId, p);
    }

    // 2. A weekly plan with the real model, on all four platforms.
    const run = await api(url, 'POST', '/v1/agents/weekly_plan/runs', {
      body: { inputs: { brandId, platforms: [...PLATFORMS], count: 4 } },
    });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body.status).toBe('succeeded');
    const steps = Object.fromEntries(
      (run.body.steps as { name: string; usage: { total_tokens: number } | null }[]).map((s) => [s.name, s]),
    );
    expect(steps.suggest_ideas?.usage?.total_tokens).toBeGreaterThan(0);
    expect(steps.draft?.usage?.total_tokens).toBeGreaterThan(0);
    // 1 call for the ideas, then 4 ideas × 4 platforms drafts.
    expect(openai?.requests).toHaveLength(1 + 16);
    expect(run.body.approvals).toHaveLength(16);

    const approvals: Approval[] = [];
    for (const { id } of run.body.approvals as { id: string }[]) {
      const a = await api(url, 'GET', `/v1/approvals/${id}`);
      expect(a.body.status).toBe('pending');
      approvals.push(a.body as Approval);
    }
    const byPlatform = (p: Platform) => approvals.filter((a) => a.draft.platform === p);
    for (const p of PLATFORMS) {
      expect(byPlatform(p)).toHaveLength(4);
      for (const a of byPlatform(p)) {
        for (const part of a.draft.parts) expect(part.text.length).toBeLessThanOrEqual(PLATFORM_LIMITS[p]);
      }
    }
    // The ideas cite the signals that were sent.
    const ideas = await api(url, 'GET', `/v1/ideas?brand_id=${brandId}`);
    expect(ideas.body.ideas.map((i: { signal: { id: string } }) => i.signal.id).sort()).toEqual(
      [...signals].sort(),
    );

    // 3. Media from the library on the X and Instagram drafts (Instagram has no text-only posts).
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await jpeg())], { type: 'image/jpeg' }), 'standup.jpg');
    const upload = await fetch(`${url}/v1/brands/${brandId}/media`, { method: 'POST', body: form });
    expect(upload.status).toBe(201);
    const assetId = ((await upload.json()) as { id: string }).id;
    const withMedia = [...byPlatform('instagram'), byPlatform('x')[0] as Approval];
    for (const a of withMedia) {
      const attached = await api(url, 'POST', `/v1/drafts/${a.draft.id}/media`, {
        body: { asset_id: assetId },
      });
      expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    }

    // 4. A person approves every approval: each becomes a post scheduled at its slot.
    const posts = new Map<string, { approval: Approval; slot: string }>();
    for (const a of approvals) {
      const ok = await api(url, 'POST', `/v1/approvals/${a.id}/approve`, { body: {} });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body).toMatchObject({ status: 'approved', slot: a.slot });
      const postId = ok.body.post_id as string;
      const post = await api(url, 'GET', `/v1/posts/${postId}`);
      expect(post.body).toMatchObject({ status: 'scheduled', scheduled_for: a.slot });
      posts.set(postId, { approval: a, slot: a.slot });
    }
    expect(posts.size).toBe(16);

    // 5 and 6. Move the clock to each slot and each snapshot age, running the pass each time.
    const slotMs = [...posts.values()].map((p) => Date.parse(p.slot));
    const times = [
      ...new Set([...slotMs, ...slotMs.flatMap((s) => SNAPSHOT_AGES_H.map((h) => s + h * HOUR))]),
    ].sort((a, b) => a - b);
    const publishedAt = new Map<string, number>();
    for (const t of times) {
      clock.set(t);
      const r = await pass();
      const due = [...posts].filter(([, p]) => Date.parse(p.slot) === t).map(([id]) => id);
      for (const id of r.failed) {
        const failed = await api(url, 'GET', `/v1/posts/${id}`);
        expect.fail(`${failed.body.platform} post ${id} failed: ${failed.body.failure}`);
      }
      expect([...r.published].sort()).toEqual(due.sort());
      for (const id of r.published) {
        publishedAt.set(id, t);
        await engage(id);
      }
    }
    expect(publishedAt.size).toBe(16);

    // Each post is on its platform once, with its text, media and thread parts.
    const { x, linkedin, instagram, threads } = live;
    expect(x.requests.filter((r) => r === 'POST /2/tweets')).toHaveLength(3 + 3);
    const roots = [...x.tweets.values()].filter((t) => t.replyTo === null);
    expect(roots).toHaveLength(4);
    for (const a of byPlatform('x')) {
      const [first, ...rest] = a.draft.parts.map((p) => p.text);
      const root = roots.find((t) => t.text === first);
      expect(root, first).toBeDefined();
      let parent = root;
      for (const text of rest) {
        const child = [...x.tweets.values()].find((t) => t.replyTo === parent?.id);
        expect(child?.text).toBe(text);
        parent = child;
      }
      expect(root?.mediaIds).toHaveLength(a === byPlatform('x')[0] ? 1 : 0);
    }
    expect(linkedin.posts.size).toBe(4);
    expect([...linkedin.posts.values()].map((p) => p.commentary).sort()).toEqual(
      byPlatform('linkedin')
        .map((a) => a.draft.parts[0]?.text)
        .sort(),
    );
    expect(instagram.posts.size).toBe(4);
    for (const p of instagram.posts.values()) {
      expect(byPlatform('instagram').map((a) => a.draft.parts[0]?.text)).toContain(p.text);
      // Meta fetched the library's image from the public address: a JPEG, as Instagram takes.
      expect(p.imageUrls).toHaveLength(1);
      expect(p.imageUrls[0]?.startsWith(`${PUBLIC_URL}/media/${assetId}/`)).toBe(true);
      const image = await fetch(viaProxy(svc, p.imageUrls[0] as string));
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).format).toBe('jpeg');
    }
    const threadRoots = [...threads.posts.values()].filter((p) => p.replyTo === null);
    expect(threadRoots).toHaveLength(4);
    expect(threads.posts.size).toBe(5);
    const threadOf = byPlatform('threads').find((a) => a.draft.parts.length === 2) as Approval;
    const tRoot = threadRoots.find((p) => p.text === threadOf.draft.parts[0]?.text);
    const tReply = [...threads.posts.values()].find((p) => p.replyTo === tRoot?.id);
    expect(tReply?.text).toBe(threadOf.draft.parts[1]?.text);

    // Metrics came back at every snapshot age, and replies where the platform lets us read them.
    for (const [id, { approval }] of posts) {
      const p = approval.draft.platform;
      const detail = await api(url, 'GET', `/v1/posts/${id}`);
      expect(detail.body).toMatchObject({ status: 'published', sandbox: false, channel_id: channels[p] });
      expect(detail.body.published_at).toBe(new Date(publishedAt.get(id) as number).toISOString());
      expect(
        detail.body.growth.map((g: { age_h: number }) => g.age_h),
        p,
      ).toEqual([...SNAPSHOT_AGES_H]);
      expect(detail.body.metrics.likes, p).toBeGreaterThan(0);
      expect(detail.body.settled_at, p).toBe(
        new Date((publishedAt.get(id) as number) + SETTLE_AGE_H * HOUR).toISOString(),
      );
    }
    // The post people liked most on each platform beats the median of the other three.
    for (const p of PLATFORMS) {
      const outcomes = [];
      for (const [id] of [...posts].filter(([, v]) => v.approval.draft.platform === p)) {
        outcomes.push({ id, ...(await api(url, 'GET', `/v1/posts/${id}`)).body.outcome });
      }
      expect(outcomes.map((o) => o.verdict).sort(), p).toEqual([
        'on_par',
        'on_par',
        'on_par',
        'outperforming',
      ]);
      const best = outcomes.find((o) => o.verdict === 'outperforming');
      expect(best).toMatchObject({ id: liked.get(p), compared_with: 3, settled: true });
    }
    // One reply per post on X, Instagram and Threads (LinkedIn lets no app read comments), stored once.
    const talk = await api(url, 'GET', `/v1/brands/${brandId}/conversation?days=60`);
    expect(talk.status, JSON.stringify(talk.body)).toBe(200);
    expect(talk.body.total_replies).toBe(12);

    const overview = await api(url, 'GET', `/v1/insights/overview?brand_id=${brandId}&days=28`);
    expect(overview.status, JSON.stringify(overview.body)).toBe(200);
    // From the platforms' numbers: likes (90 for the best, 20 for each other) plus X's reply counts.
    expect(overview.body).toMatchObject({
      posts_published: 16,
      impressions: 4 * (90 + 3 * 20) * 40,
      replies: 12,
      verdicts: { outperforming: 4, on_par: 12, underperforming: 0, not_enough_data: 0, too_early: 0 },
      top_post: { id: liked.get('x'), engagements: 91 },
    });
    expect(overview.body.by_platform).toEqual([
      { platform: 'x', posts: 4, impressions: 150 * 40, engagements: 150 + 4 },
      { platform: 'linkedin', posts: 4, impressions: 150 * 40, engagements: 150 },
      { platform: 'instagram', posts: 4, impressions: 150 * 40, engagements: 150 },
      { platform: 'threads', posts: 4, impressions: 150 * 40, engagements: 150 },
    ]);
    const digest = await api(url, 'POST', `/v1/brands/${brandId}/digest`, { body: { days: 14 } });
    expect(digest.status, JSON.stringify(digest.body)).toBe(201);
    expect(digest.body.stats).toMatchObject({ posts_published: 16, engagements: 604, replies: 12 });
    // The digest's wins (it lists the top three) are each platform's best post.
    const wins = digest.body.wins.flatMap((w: { post_ids: string[] }) => w.post_ids) as string[];
    expect(wins).toHaveLength(3);
    for (const id of wins) expect([...liked.values()]).toContain(id);

    // 7. Nothing any adapter sent broke the platform's contract.
    expect(openai?.violations).toEqual([]);
    expect(x.violations).toEqual([]);
    expect(linkedin.violations).toEqual([]);
    expect(instagram.violations).toEqual([]);
    expect(threads.violations).toEqual([]);
  });
});

/** The post on each platform that people liked most (the first one published). */
const liked = new Map<Platform, string>();

/** People engage with a just-published post on its platform: likes, and a reply where readable. */
async function engage(postId: string) {
  const post = (await api(live.svc.url, 'GET', `/v1/posts/${postId}`)).body;
  const platform = post.platform as Platform;
  const first = !liked.has(platform);
  if (first) liked.set(platform, postId);
  const likes = first ? 90 : 20;
  // The platform's id of the post, as its permalink names it.
  const externalId = decodeURIComponent(String(post.permalink).replace(/\/$/, '').split('/').at(-1) ?? '');
  const question = { username: 'maya_leads', text: 'How do you handle blockers that need a call?' };
  if (platform === 'x') {
    const tweet = live.x.tweets.get(externalId) as XFakeTweet;
    Object.assign(tweet.metrics, { likes, impressions: likes * 40 });
    live.x.reply(tweet.id, question);
  } else if (platform === 'linkedin') {
    const li = live.linkedin.posts.get(externalId) as LinkedInFakePost;
    Object.assign(li.metrics, { reactions: likes, impressions: likes * 40 });
  } else {
    const meta = platform === 'instagram' ? live.instagram : live.threads;
    const p = meta.posts.get(externalId) as MetaPost;
    Object.assign(p.insights, { likes, views: likes * 40 });
    p.replies.push({
      id: String(9_000_000 + meta.posts.size * 10 + p.replies.length),
      text: question.text,
      username: question.username,
      timestamp: new Date(clock.now().getTime() + 30 * 60_000).toISOString().replace('Z', '+0000'),
    });
  }
}
