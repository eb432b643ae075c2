import { describe, expect, it } from 'vitest';
import { PUBLISH_LEASE_MS } from '../../src/content/services/publish-leases.js';
import { ManualClock } from '../../src/platform/clock.js';
import { connectLive, startLive } from '../helpers/live.js';
import { api, type TestService } from '../helpers/start.js';
import { digestCappedAtTwo, makeBrand } from './helpers.js';
import {
  gate,
  handle,
  instancesBeside,
  nextRefreshHeld,
  publishNow,
  revOf,
  until,
  uploadChart,
} from './instances-beside.js';
import { makeKey, rawMcp } from './mcp-helpers.js';

/**
 * What one process used to keep for itself (token-refresh single-flight, per-asset media locks,
 * "an open publish attempt means we crashed", automation cap counts) held across two content
 * instances on ONE database, as several `svc-server start` processes on one database would be.
 * Each test would fail if that state were still per process.
 */

const { beside, first, twoLive, track } = instancesBeside();

describe('content across instances: process state in the database', () => {
  it('refreshes a channel once when two instances need its token at the same time; both publishes go out', async () => {
    const { stack, a, b, channelId } = await twoLive();
    // Both instances must refresh first.
    const x = nextRefreshHeld(stack, a.clock);
    const fromA = publishNow(a, channelId, 'Published through instance A.');
    const fromB = publishNow(b, channelId, 'Published through instance B.');
    // One refresh is with X. Give the other instance time to reach its own refresh, then let X answer.
    await until(() => x.refreshes() === 1);
    await new Promise((r) => setTimeout(r, 300));
    x.open();
    const [ra, rb] = await Promise.all([fromA, fromB]);
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect([ra.body.status, rb.body.status]).toEqual(['published', 'published']);
    // A second refresh would have spent the rotated refresh token and cost the channel.
    expect(x.refreshes()).toBe(1);
    expect(stack.x.tweets.size).toBe(2);
    expect((await api(b.url, 'GET', `/v1/channels/${channelId}`)).body.status).toBe('connected');
    expect(stack.x.violations).toEqual([]);
  });

  it('an instance starting while another publishes leaves that publish alone; it ends published', async () => {
    const stack = await startLive({ clock: new ManualClock(), config: { seed: 'none' } });
    track(() => stack.close());
    const a = stack.svc;
    const brand = await api(a.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    const channelId = (await connectLive(a, brand.body.id, 'x')).id;
    const held = gate();
    stack.x.failNext('POST /2/tweets', { kind: 'hold', until: held.until });
    const publishing = api(a.url, 'POST', '/v1/posts', {
      body: { channel_id: channelId, text: 'In flight.' },
    });
    await until(() => stack.x.requests.includes('POST /2/tweets'));

    // B starts now (its start-up recovery runs) and runs a background pass: A is alive and renewing.
    const b = await beside(a);
    expect(await handle(b).backgroundPass()).toBe(true);
    const seen = await api(b.url, 'GET', '/v1/posts');
    expect(seen.body.posts.map((p: any) => p.status)).toEqual(['publishing']);

    held.open();
    const res = await publishing;
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'published', notice: null });
    expect(stack.x.tweets.size).toBe(1);
  });

  it('a publish whose instance stopped vouching for it (its lease ran out) becomes unconfirmed on the next pass elsewhere', async () => {
    const { stack, a, b, channelId } = await twoLive();
    const held = gate();
    stack.x.failNext('POST /2/tweets', { kind: 'hold', until: held.until });
    const publishing = api(a.url, 'POST', '/v1/posts', {
      body: { channel_id: channelId, text: 'Its instance went quiet.' },
    });
    await until(() => stack.x.requests.includes('POST /2/tweets'));
    await handle(b).backgroundPass();
    expect((await api(b.url, 'GET', '/v1/posts')).body.posts[0].status).toBe('publishing');
    // A renews every third of the lease on the real clock; moving the test clock past the lease
    // is A going silent for that long.
    a.clock.advance(PUBLISH_LEASE_MS + 1);
    await handle(b).backgroundPass();
    const [post] = (await api(b.url, 'GET', '/v1/posts')).body.posts;
    expect(post.status).toBe('unconfirmed');
    expect(post.notice).toContain(`POST /v1/posts/${post.id}/confirm`);
    held.open();
    await publishing;
    // The late answer does not overwrite what the person was asked to settle, and nothing was resent.
    expect((await api(a.url, 'GET', `/v1/posts/${post.id}`)).body.status).toBe('unconfirmed');
    expect(stack.x.requests.filter((r) => r === 'POST /2/tweets')).toHaveLength(1);
  });

  it("an automation's daily cap holds across instances running it at the same time", async () => {
    const a = await first();
    const b = await beside(a);
    const brand = await makeBrand(a, { channels: ['x'] });
    const auto = await api(a.url, 'POST', '/v1/automations', {
      body: digestCappedAtTwo(brand.id),
    });
    expect(auto.status).toBe(201);
    const run = (svc: TestService) => api(svc.url, 'POST', `/v1/automations/${auto.body.id}/run`);
    const results = await Promise.all([run(a), run(b), run(a), run(b), run(a), run(b)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 429, 429, 429, 429]);
    expect((await api(b.url, 'GET', `/v1/automations/${auto.body.id}`)).body.runs_today).toBe(2);
    const runs = await api(a.url, 'GET', '/v1/agent-runs?agent_id=digest&limit=100');
    expect(runs.body.agent_runs.filter((r: any) => r.automation_id === auto.body.id)).toHaveLength(2);

    // Two days on, a background pass drops the old day's counters; the automation runs again.
    const counters = async () =>
      (await handle(a).db.get<{ n: number }>('SELECT COUNT(*) AS n FROM automation_run_counts'))?.n;
    expect(await counters()).toBe(2); // the automation's and the workspace's, for today
    a.clock.advance(2 * 24 * 3_600_000);
    expect(await handle(b).backgroundPass()).toBe(true);
    expect(await counters()).toBe(0);
    expect((await run(a)).status).toBe(201);
  });

  it('two focal-point changes to one asset on two instances render one after the other', async () => {
    const a = await first();
    const b = await beside(a);
    const id = await uploadChart(a);

    const focus = (svc: TestService, x: number) =>
      api(svc.url, 'PATCH', `/v1/media/${id}`, { body: { focal_point: { x, y: 0.5 } } });
    const [ra, rb] = await Promise.all([focus(a, 0.1), focus(b, 0.9)]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    // Each change rendered its own revision from the row the other wrote: 2 and 3, never 2 twice.
    expect([revOf(ra), revOf(rb)].sort()).toEqual(['2', '3']);
    const later = revOf(ra) === '3' ? ra : rb;
    const last = (await api(b.url, 'GET', `/v1/media/${id}`)).body;
    expect(last.variants.square.url).toBe(later.body.variants.square.url);
    expect(last.focal_point).toEqual(later.body.focal_point);
    for (const svc of [a, b]) expect((await fetch(`${svc.url}${last.variants.square.url}`)).status).toBe(200);
  });

  it('a key revoked on one instance is refused by the other on its next request', async () => {
    const a = await first();
    const b = await beside(a);
    const { key, id } = await makeKey(a, ['read']);
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await rawMcp(b, { key, body: list })).status).toBe(200);
    expect((await api(a.url, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    const refused = await rawMcp(b, { key, body: list });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
