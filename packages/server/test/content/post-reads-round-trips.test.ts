import { describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { contentPair } from '../helpers/content-pair.js';
import { countReads } from '../helpers/count-reads.js';
import { testEngine } from '../helpers/database.js';
import { api } from '../helpers/start.js';
import { makeBrand } from './helpers.js';
import { makeKey, rawMcp } from './mcp-helpers.js';

/*
 * Listing and reading posts are the hottest content reads (issue 20). On PostgreSQL every
 * statement is a round trip: a page of posts with its verdicts is ONE statement there (the
 * posts, each one's latest snapshot and its snapshots' counts, the brand's stored baselines), as
 * the bare LATERAL baseline, and these reads skip the per-request sandbox clock read because they
 * never look at the time. SQLite runs in the process: a page is two statements there (the same
 * page, then the baselines; three before, the second reading every snapshot whole), one post
 * three (it shows every snapshot). The counts are asserted, never a
 * time. The clock stays one clock across instances: the next request that reads the time on
 * another instance must see an advance. MCP's twins (list_posts, get_post, and list_agents,
 * which reads nothing but the key) skip the clock read the same way: an MCP call costs its key
 * lookup on top of the REST read, nothing more.
 */
const PAGE_STATEMENTS = testEngine === 'postgres' ? 1 : 2;
const POST_STATEMENTS = testEngine === 'postgres' ? 1 : 3;

describe('post reads: statements per request, and the sandbox clock they skip', () => {
  const pair = contentPair();
  const { publish } = pair;

  const tool = (key: string, name: string, args: Record<string, unknown>) =>
    rawMcp(pair.b, {
      key,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
  // The per-key rate limit reserves its calls in blocks (mcp-rate-lease.test.ts counts them).
  const notRateLimit = (sql: string[]) => sql.filter((s) => !s.includes('key_rate_windows'));

  it('a page of posts with their verdicts, and one post, take the statements the engine needs and no clock read', async () => {
    const { a, b } = pair;
    const brand = await makeBrand(a, { channels: ['x', 'linkedin'] });
    const ids = [
      await publish(brand.channels.x as string, 'Weekly notes, the short version.'),
      await publish(brand.channels.linkedin as string, 'Async standups, a month in.'),
      await publish(brand.channels.x as string, 'Which meeting would you drop first?'),
    ];
    // Snapshots for every post, so the page has snapshots and the brand its baselines.
    expect((await api(a.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 7 } })).status).toBe(200);
    const reads = countReads(b.handle.db);

    let page: any;
    const list = await reads.during(async () => {
      page = await api(b.url, 'GET', `/v1/posts?brand_id=${brand.id}&limit=2`);
    });
    expect(page.status).toBe(200);
    expect(page.body.posts).toHaveLength(2);
    expect(page.body.has_more).toBe(true);
    expect(page.body.posts.every((p: any) => p.metrics !== null)).toBe(true);
    expect(list.statements).toBe(PAGE_STATEMENTS);

    let rest: any;
    const next = await reads.during(async () => {
      rest = await api(b.url, 'GET', `/v1/posts?brand_id=${brand.id}&limit=2&after=${page.body.next_after}`);
    });
    // Published at the same instant (the clock stands still), so the order is by id: the two
    // pages together hold each post once.
    const both = [...page.body.posts, ...rest.body.posts].map((p: any) => p.id);
    expect(both.sort()).toEqual([...ids].sort());
    expect(rest.body.has_more).toBe(false);
    expect(next.statements).toBe(PAGE_STATEMENTS);

    let one: any;
    const get = await reads.during(async () => {
      one = await api(b.url, 'GET', `/v1/posts/${ids[1]}`);
    });
    expect(one.status).toBe(200);
    expect(one.body.growth.length).toBeGreaterThan(0);
    expect(get.statements).toBe(POST_STATEMENTS);

    // The same figures the separate reads give: the outcomes endpoint computes them its own way.
    const outcomes = await api(b.url, 'POST', `/v1/brands/${brand.id}/outcomes`);
    const listed = new Map([...page.body.posts, ...rest.body.posts].map((p: any) => [p.id, p.verdict]));
    for (const o of outcomes.body.outcomes) expect(listed.get(o.post_id)).toBe(o.verdict);
    expect(one.body.outcome).toEqual(outcomes.body.outcomes.find((o: any) => o.post_id === ids[1]));

    // An unknown post is still a 404, an unknown brand's empty page too (the brand is read then).
    expect((await api(b.url, 'GET', '/v1/posts/post_nope')).body.error.code).toBe('NOT_FOUND');
    expect((await api(b.url, 'GET', '/v1/posts?brand_id=brand_nope')).status).toBe(404);
  });

  it('over MCP, list_posts, get_post and list_agents skip the clock read too; a tool that may read the time still makes it', async () => {
    const { a, b } = pair;
    const brand = await makeBrand(a, { channels: ['x'] });
    const post = await publish(brand.channels.x as string, 'Weekly notes, the short version.');
    await publish(brand.channels.x as string, 'Async standups, a month in.');
    expect((await api(a.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 7 } })).status).toBe(200);
    const { key } = await makeKey(b, ['read']);
    const reads = countReads(b.handle.db);

    for (const [name, args, listing, keyLookups] of [
      ['list_posts', { brandId: brand.id, limit: 1 }, PAGE_STATEMENTS, 1],
      ['get_post', { postId: post }, POST_STATEMENTS, 0],
      ['list_agents', {}, 0, 0],
    ] as const) {
      let res: any;
      // A fresh lease on the key epoch, whatever the event loop did meanwhile (a busy machine).
      await (b.handle as unknown as { ctx: ContentContext }).ctx.keyCache.renew();
      const made = await reads.during(async () => {
        res = await tool(key, name, args);
      });
      expect(res.body.result?.isError, JSON.stringify(res.body).slice(0, 300)).toBeUndefined();
      const sql = notRateLimit(made.sql);
      expect(
        sql.filter((s) => s.includes('sandbox_clock')),
        name,
      ).toEqual([]);
      // The key is looked up on its first call, then answered from the key cache (a revoke waits
      // until every instance has dropped it, so revocation still holds on the next call).
      expect(
        sql.filter((s) => s.includes('FROM api_keys')),
        name,
      ).toHaveLength(keyLookups);
      expect(sql.length, `${name}: ${sql.join(' | ')}`).toBe(keyLookups + listing);
    }
    expect(
      (await tool(key, 'list_posts', { brandId: brand.id })).body.result.structuredContent.posts,
    ).toHaveLength(2);

    // get_conversation counts replies since a number of days before now: it reads the time.
    const themes = await reads.during(() => tool(key, 'get_conversation', { brandId: brand.id }));
    expect(notRateLimit(themes.sql).filter((s) => s.includes('sandbox_clock'))).toHaveLength(1);
  });

  it('the other read tools that never read the time skip the clock too (their services were checked; the clock they get throws if read)', async () => {
    const { b } = pair;
    const brand = await makeBrand(b, { channels: ['x'] });
    const { key } = await makeKey(b, ['read']);
    const reads = countReads(b.handle.db);
    for (const [name, args] of [
      ['list_brands', {}],
      ['get_brand_memory', { brandId: brand.id }],
      ['list_ideas', { brandId: brand.id }],
      ['list_campaigns', { brandId: brand.id }],
      ['list_memory_proposals', { brandId: brand.id }],
    ] as const) {
      let res: any;
      const made = await reads.during(async () => {
        res = await tool(key, name, args);
      });
      expect(res.body.result?.isError, JSON.stringify(res.body).slice(0, 300)).toBeUndefined();
      expect(
        notRateLimit(made.sql).filter((s) => s.includes('sandbox_clock')),
        name,
      ).toEqual([]);
    }
  });

  it('REST GET /v1/agents, the twin of list_agents, reads nothing: not even the sandbox clock', async () => {
    const reads = countReads(pair.b.handle.db);
    let res: any;
    const made = await reads.during(async () => {
      res = await api(pair.b.url, 'GET', '/v1/agents');
    });
    expect(res.status).toBe(200);
    expect(res.body.agents.map((a: any) => a.id)).toContain('weekly_plan');
    expect(made.sql).toEqual([]);
  });

  it('an MCP tool that reads the time sees an advance made on the other instance, after MCP reads that skipped the clock', async () => {
    const { a, b } = pair;
    const brand = await makeBrand(a, { channels: ['x'] });
    const { key } = await makeKey(b, ['read', 'write']);
    const before = await api(b.url, 'GET', '/v1/sandbox/clock');
    expect((await api(a.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 5 } })).status).toBe(200);
    expect((await tool(key, 'list_posts', { brandId: brand.id })).body.result.isError).toBeUndefined();
    expect((await tool(key, 'list_agents', {})).body.result.isError).toBeUndefined();
    const made = await tool(key, 'create_idea', { brandId: brand.id, title: 'Written after the advance' });
    const idea = made.body.result.structuredContent.idea;
    expect(Date.parse(idea.created_at) - Date.parse(before.body.now)).toBe(5 * 3_600_000);
  });

  it('an advance on one instance is seen by the next request that reads the time on the other, after post reads that skipped the clock', async () => {
    const { a, b } = pair;
    const brand = await makeBrand(a, { channels: ['x'] });
    // B reads the clock once, so it holds an offset that the advance below makes stale.
    const before = await api(b.url, 'GET', '/v1/sandbox/clock');
    expect((await api(a.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 5 } })).status).toBe(200);
    // Reads that skip the clock read leave B's offset as it was...
    expect((await api(b.url, 'GET', `/v1/posts?brand_id=${brand.id}`)).status).toBe(200);
    // ...and the next request that reads the time must not use it: 3 h after B's old "now" is in
    // the past now, so scheduling there is refused.
    const stale = new Date(Date.parse(before.body.now) + 3 * 3_600_000).toISOString();
    const scheduled = await api(b.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Too late for this slot.', scheduled_for: stale },
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(422);
    expect(scheduled.body.error.code).toBe('SLOT_IN_PAST');
    const seen = await api(b.url, 'GET', '/v1/sandbox/clock');
    expect(seen.body.offset_ms - before.body.offset_ms).toBe(5 * 3_600_000);
  });
});
