// The whole plan through the client alone, against a real server on a temporary data
// directory: no fetch calls of our own, no reaching into the server's internals.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createContentApp,
  type Listening,
  listen,
  ManualClock,
  randomIds,
  silentLogger,
  testConfig,
} from '@svc/server';
import { createTestEngineDatabase, type TestEngineDatabase } from '@svc/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentClient, NotFoundError, type PostOutcome } from '../src/index.js';
import { makePng } from './png.js';

let listening: Listening;
let dataDir: string;
// SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
let database: TestEngineDatabase;
let client: ContentClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-content-client-'));
  database = await createTestEngineDatabase();
  const deps = {
    config: testConfig({ dataDir, ...database.config }),
    clock: new ManualClock(),
    ids: randomIds,
    logger: silentLogger(),
  };
  listening = await listen(await createContentApp(deps), '127.0.0.1', 0);
  client = new ContentClient({ baseUrl: `${listening.url}/v1` });
});

afterAll(async () => {
  await listening?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

describe('the base URL', () => {
  it("reaches the REST API from the spec's base_url (no /v1), with or without a trailing slash", async () => {
    for (const root of [listening.url, `${listening.url}/`, `${listening.url}/v1`]) {
      const other = new ContentClient({ baseUrl: root });
      expect(await other.mode.retrieve()).toMatchObject({ mode: 'sandbox' });
      const { data, requestId } = await other.agents.list().withResponse();
      expect(data.items.length).toBeGreaterThan(0);
      expect(requestId).toBeTruthy();
    }
  });
});

describe('a weekly plan, through the client alone', () => {
  it('runs from a new brand to a live post with metrics and a verdict', async () => {
    const mode = await client.mode.retrieve();
    expect(mode).toMatchObject({ mode: 'sandbox', model: 'simulated' });

    // 1. Brand, with a voice the simulated model follows.
    const brand = await client.brands.create({
      name: 'Fieldnote',
      memory: {
        voice: {
          summary: 'Plain and practical.',
          do: ['Lead with an example'],
          avoid: ['Hype'],
          banned_words: ['synergy'],
        },
        products: [{ name: 'Fieldnote', description: 'Shared notes for small teams' }],
        audiences: [{ name: 'Team leads', description: 'Run small remote teams' }],
      },
    });
    expect(brand.id).toMatch(/^brd_/);
    const x = await client.channels.connect(brand.id, { platform: 'x' });
    const linkedin = await client.channels.connect(brand.id, { platform: 'linkedin' });
    if (!x.channel || !linkedin.channel) throw new Error('sandbox channels connect at once');
    expect(x.channel.status).toBe('connected');

    // 2. Knowledge.
    const knowledge = await client.brands.memory.addKnowledge(brand.id, {
      title: 'Why async standups',
      body: 'Teams across time zones lose an hour a day to status meetings.',
    });
    expect(knowledge.memory.knowledge.map((n) => n.title)).toContain('Why async standups');

    // 3. Ideas from a signal; each cites it.
    const signal = await client.insights.signals.create(brand.id, {
      kind: 'trend',
      title: 'Async standups are trending',
      summary: 'Team leads are talking about dropping the daily meeting.',
      strength: 0.8,
    });
    const { ideas } = await client.ideas.generate({ brand_id: brand.id, count: 2 });
    expect(ideas.length).toBeGreaterThan(0);
    const idea = ideas[0] as (typeof ideas)[number];
    expect(idea.signal?.id).toBe(signal.id);

    // 4. Drafts for two platforms.
    const { drafts } = await client.drafts.generate({ idea_id: idea.id, platforms: ['x', 'linkedin'] });
    expect(drafts.map((d) => d.platform).sort()).toEqual(['linkedin', 'x']);
    const xDraft = drafts.find((d) => d.platform === 'x');
    if (!xDraft) throw new Error('no x draft');

    // 5. Rewrite: a new version, and the old one stays readable.
    const rewritten = await client.drafts.rewrite(xDraft.id, {
      instruction: 'Shorter, open with a question',
    });
    expect(rewritten.version).toBe(xDraft.version + 1);
    const first = await client.drafts.retrieveVersion(xDraft.id, xDraft.version);
    expect(first.parts).toEqual(xDraft.parts);

    // 6. Upload an image and attach it (another version).
    const asset = await client.media.upload(brand.id, makePng(), {
      alt: 'A gradient',
      tags: ['plan'],
      filename: 'plan.png',
    });
    expect(asset).toMatchObject({ kind: 'image', width: 120, height: 80, alt: 'A gradient', tags: ['plan'] });
    const fit = await client.media.fit(asset.id);
    expect(fit.platforms.length).toBeGreaterThan(0);
    const withMedia = await client.drafts.attachMedia(xDraft.id, { asset_id: asset.id });
    expect(withMedia.version).toBe(rewritten.version + 1);
    expect(withMedia.parts[0]?.media[0]?.asset_id).toBe(asset.id);

    // A little history on X so the verdict has a median to compare with (3 posts needed).
    await client.posts.publish({ draft_id: xDraft.id });
    for (const text of ['What does your team do instead of standups?', 'Three notes a day beat one meeting.'])
      await client.posts.publish({ channel_id: x.channel.id, text });

    // 7. A new signal comes in; weekly_plan turns it into drafts and queues pending approvals.
    //    It never publishes.
    await client.insights.signals.create(brand.id, {
      kind: 'question',
      title: 'How do you keep notes short?',
      strength: 0.9,
    });
    const run = await client.agents.run('weekly_plan', { inputs: { brandId: brand.id, platforms: ['x'] } });
    expect(run.status).toBe('succeeded');
    expect(run.child_runs.every((c) => c.agent_id === 'voice_check')).toBe(true);
    expect(run.approvals.length).toBeGreaterThan(0);
    expect((await client.agentRuns.retrieve(run.id)).id).toBe(run.id);

    const queue = await client.approvals.list({ brand_id: brand.id });
    expect(queue.counts.pending).toBe(run.approvals.length);
    expect(queue.approvals.every((a) => a.status === 'pending')).toBe(true);

    // 8. Approve one: it is scheduled into its slot.
    const chosen = run.approvals[0] as (typeof run.approvals)[number];
    const approved = await client.approvals.approve(chosen.id);
    expect(approved.status).toBe('approved');
    expect(approved.post_id).toBeTruthy();
    const scheduled = await client.posts.retrieve(approved.post_id as string);
    expect(scheduled.status).toBe('scheduled');

    // 9. Advance the sandbox clock past the slot and the 72 h settling age.
    const slot = new Date(approved.slot).getTime();
    const advanced = await client.sandboxClock.advance({ to: new Date(slot + 73 * 3_600_000).toISOString() });
    expect(advanced.published).toContain(scheduled.id);

    // 10. Live, with metrics and a verdict against the brand's median.
    const live = await client.posts.retrieve(scheduled.id);
    expect(live.status).toBe('published');
    expect(live.permalink).toMatch(/^https:\/\/sandbox\.svc\.local\//);
    expect(live.metrics?.impressions).toBeGreaterThan(0);
    expect(live.growth.length).toBeGreaterThan(0);
    expect(['outperforming', 'on_par', 'underperforming']).toContain(live.outcome.verdict);
  });

  it('pages through lists with for await and reports typed errors', async () => {
    for (let i = 0; i < 5; i++) await client.brands.create({ name: `Paging ${i}` });
    const names: string[] = [];
    for await (const brand of client.brands.list({ limit: 2 })) names.push(brand.name);
    expect(names.filter((n) => n.startsWith('Paging '))).toHaveLength(5);

    const agents = [];
    for await (const agent of client.agents.list()) agents.push(agent.id);
    expect(agents.sort()).toEqual([
      'digest',
      'repurpose_winner',
      'voice_check',
      'voice_refresh',
      'weekly_plan',
    ]);

    const error = await client.brands.retrieve('brd_missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((error as NotFoundError).requestId).toBeTruthy();

    const { data, requestId, response } = await client.mode.retrieve().withResponse();
    expect(data.mode).toBe('sandbox');
    expect(requestId).toBe(response.headers.get('service-request-id'));
  });
});

describe('outcomes, paged like every list', () => {
  it('for await settles and reads every page; await gives the first; pages() gives each', async () => {
    const brand = await client.brands.create({ name: 'Outcomes paging' });
    const { channel } = await client.channels.connect(brand.id, { platform: 'x' });
    if (!channel) throw new Error('sandbox channels connect at once');
    for (let i = 0; i < 5; i++) await client.posts.publish({ channel_id: channel.id, text: `Outcome ${i}` });
    // Past the 72 h settling age: every outcome read below is settled.
    await client.sandboxClock.advance({ days: 4 });
    const newestFirst: string[] = [];
    for await (const post of client.posts.list({ brand_id: brand.id })) newestFirst.push(post.id);
    expect(newestFirst).toHaveLength(5);

    // Three pages of at most two, one outcome per post, in the posts' order.
    const outcomes: PostOutcome[] = [];
    for await (const outcome of client.insights.outcomes(brand.id, { limit: 2 })) outcomes.push(outcome);
    expect(outcomes.map((o) => o.post_id)).toEqual(newestFirst);
    for (const o of outcomes) {
      expect(o.settled).toBe(true);
      expect(['outperforming', 'on_par', 'underperforming', 'too_early', 'not_enough_data']).toContain(
        o.verdict,
      );
    }

    const first = await client.insights.outcomes(brand.id, { limit: 2 });
    expect(first.outcomes.map((o) => o.post_id)).toEqual(newestFirst.slice(0, 2));
    expect(first.items).toEqual(first.outcomes);
    expect(first.has_more).toBe(true);
    expect(first.next_after).toEqual(expect.any(String));

    const pages: { ids: string[]; has_more: boolean; next_after: string | null }[] = [];
    for await (const page of client.insights.outcomes(brand.id, { limit: 2 }).pages())
      pages.push({
        ids: page.outcomes.map((o) => o.post_id),
        has_more: page.has_more,
        next_after: page.next_after,
      });
    expect(pages.map((p) => p.ids)).toEqual([
      newestFirst.slice(0, 2),
      newestFirst.slice(2, 4),
      newestFirst.slice(4),
    ]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(pages[2]?.next_after).toBeNull();

    // A later page from a cursor, and the request id of the first page, as on any list.
    const rest: string[] = [];
    for await (const o of client.insights.outcomes(brand.id, { limit: 2, after: first.next_after as string }))
      rest.push(o.post_id);
    expect(rest).toEqual(newestFirst.slice(2));
    const { data, requestId } = await client.insights.outcomes(brand.id).withResponse();
    expect(data.outcomes.map((o) => o.post_id)).toEqual(newestFirst);
    expect(data.has_more).toBe(false);
    expect(requestId).toBeTruthy();
  });
});
