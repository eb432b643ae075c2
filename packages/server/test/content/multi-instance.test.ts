import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { PASS_LEASE, PASS_LEASE_MS } from '../../src/content/app.js';
import { EVENT_LEASE_MS } from '../../src/content/events.js';
import { SCHEDULE_LEASE_MS } from '../../src/content/services/automations.js';
import { ManualClock } from '../../src/platform/clock.js';
import { leasesStore } from '../../src/platform/db/leases-store.js';
import { runOutLease } from '../helpers/leases.js';
import { twoInstances } from '../helpers/race.js';
import { api, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';

/**
 * Two content instances on ONE data directory (one SQLite file, WAL, busy timeout): the same
 * setup as several `svc-server start` processes on one database. Each job must run once in the
 * deployment, not once per instance, and work a "killed" instance held (it stops answering
 * without giving anything back) comes back to the other once its lease runs out.
 */
describe('content: two instances on one database', () => {
  let a: TestService;
  let b: TestService;
  const clock = new ManualClock(new Date('2026-03-02T08:30:00.000Z'));
  const handle = (s: TestService) => s.handle as ContentHandle;

  let instances: Awaited<ReturnType<typeof twoInstances>>;

  beforeEach(async () => {
    instances = await twoInstances('content', { clock, config: { seed: 'none' } });
    ({ a, b } = instances);
  });
  afterEach(() => instances.close());

  const onPublish = async (brandId: string) => {
    const auto = await api(a.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brandId,
        name: 'Digest on publish',
        agent_id: 'digest',
        trigger: { type: 'event', event: 'post.published' },
      },
    });
    expect(auto.status).toBe(201);
    return auto;
  };
  const runsOf = async (svc: TestService, id: string) => {
    const r = await api(svc.url, 'GET', `/v1/automations/${id}`);
    return r.body.runs_today + r.body.skipped_today;
  };

  it('a post event fires its automation once, on the other instance when the first dies handling it', async () => {
    const brand = await makeBrand(a, { channels: ['x'] });
    const auto = await onPublish(brand.id);
    // Instance A dies right after the post is published: its first event handler never returns.
    let reached!: () => void;
    const died = new Promise<void>((resolve) => {
      reached = resolve;
    });
    handle(a).ctx.events.handlers.unshift(() => {
      reached();
      return new Promise<void>(() => {});
    });
    void api(a.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Published, then the instance died.' },
    }).catch(() => null);
    await died;
    const posts = await api(b.url, 'GET', '/v1/posts');
    expect(posts.body.posts.map((p: any) => p.status)).toEqual(['published']);

    // While A's claim on the event holds, B leaves it alone.
    await handle(b).pass();
    expect(await runsOf(b, auto.body.id)).toBe(0);
    // Once it runs out, B hands the event to the automation: once, however many passes follow.
    clock.advance(EVENT_LEASE_MS + 1);
    await handle(b).pass();
    await Promise.all([handle(b).pass(), handle(b).pass()]);
    expect(await runsOf(b, auto.body.id)).toBe(1);
    const runs = await api(b.url, 'GET', '/v1/agent-runs?agent_id=digest&limit=100');
    expect(runs.body.agent_runs.filter((r: any) => r.automation_id === auto.body.id)).toHaveLength(1);
  });

  it('a post event fires its automation once when both instances pass at the same time', async () => {
    const brand = await makeBrand(a, { channels: ['x'] });
    const auto = await onPublish(brand.id);
    const when = new Date(clock.now().getTime() + 3 * 3_600_000).toISOString();
    const post = await api(a.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Scheduled for later.', scheduled_for: when },
    });
    expect(post.status).toBe(201);
    clock.advance(4 * 3_600_000);
    const [ra, rb] = await Promise.all([handle(a).pass(), handle(b).pass()]);
    // The scheduled post went out once, by one of them.
    expect([...ra.published, ...rb.published]).toEqual([post.body.id]);
    await Promise.all([handle(a).pass(), handle(b).pass()]);
    expect(await runsOf(a, auto.body.id)).toBe(1);
  });

  it('a due scheduled automation fires once across instances; a dead claimer gives it back', async () => {
    const brand = await makeBrand(a, { channels: ['x'] });
    const make = async (hour: number) =>
      (
        await api(a.url, 'POST', '/v1/automations', {
          body: {
            brand_id: brand.id,
            name: `Digest at ${hour}`,
            agent_id: 'digest',
            trigger: { type: 'schedule', every: 'day', hour },
          },
        })
      ).body.id as string;
    const both = await make(clock.now().getHours() === 23 ? 0 : clock.now().getHours() + 1);
    clock.advance(2 * 3_600_000);
    await Promise.all([handle(a).pass(), handle(b).pass()]);
    expect(await runsOf(a, both)).toBe(1);

    // A claims the next one and dies before firing it.
    const orphan = await make(clock.now().getHours() === 23 ? 0 : clock.now().getHours() + 1);
    clock.advance(2 * 3_600_000);
    const row = await handle(a).db.get<{ next_run_at: string }>(
      'SELECT next_run_at FROM automations WHERE id = ?',
      [orphan],
    );
    const real = clock.now();
    await handle(a).db.run(
      'UPDATE automations SET lease_owner = ?, lease_until = ? WHERE id = ? AND next_run_at = ?',
      [
        handle(a).ctx.instanceId,
        new Date(real.getTime() + SCHEDULE_LEASE_MS).toISOString(),
        orphan,
        row?.next_run_at ?? '',
      ],
    );
    await handle(b).pass();
    expect(await runsOf(b, orphan)).toBe(0);
    clock.advance(SCHEDULE_LEASE_MS + 1);
    await Promise.all([handle(b).pass(), handle(b).pass()]);
    expect(await runsOf(b, orphan)).toBe(1);
    const after = await api(b.url, 'GET', `/v1/automations/${orphan}`);
    expect(Date.parse(after.body.next_run_at)).toBeGreaterThan(clock.now().getTime());
  });

  it('the sandbox clock is one clock: an advance on one instance is seen by the other', async () => {
    const before = await api(b.url, 'GET', '/v1/sandbox/clock');
    const moved = await api(a.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 6 } });
    expect(moved.status).toBe(200);
    const seen = await api(b.url, 'GET', '/v1/sandbox/clock');
    expect(seen.body.offset_ms).toBe(before.body.offset_ms + 6 * 3_600_000);
    expect(seen.body.now).toBe(moved.body.now);
    // Two advances at once, one per instance: both count.
    await Promise.all([
      api(a.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 1 } }),
      api(b.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 2 } }),
    ]);
    const both = await api(a.url, 'GET', '/v1/sandbox/clock');
    expect(both.body.offset_ms).toBe(before.body.offset_ms + 9 * 3_600_000);
  });

  it('the background pass runs on one instance at a time; a dead holder lets it go when its lease runs out', async () => {
    const db = handle(a).db;
    // A takes the pass lease and dies mid-pass.
    expect(await leasesStore(db).take(PASS_LEASE, handle(a).ctx.instanceId, PASS_LEASE_MS, db.dialect)).toBe(
      true,
    );
    expect(await handle(b).backgroundPass()).toBe(false);
    await runOutLease(db, PASS_LEASE);
    expect(await handle(b).backgroundPass()).toBe(true);
    // Released at the end of B's pass: the next one (on either instance) runs.
    expect(await handle(a).backgroundPass()).toBe(true);
  });
});
