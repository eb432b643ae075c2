import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContentApp, openContentDatabase } from '../../src/content/app.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { SqlDatabase, SqlExecutor } from '../../src/platform/db/sql.js';
import { randomIds } from '../../src/platform/ids.js';
import { silentLogger } from '../../src/platform/logger.js';
import { listen } from '../../src/platform/service.js';
import { api } from '../helpers/start.js';

/** A database whose writes fail when `fails(sql)` says so: a fault injected at one step of the seed. */
function faulty(
  db: SqlDatabase,
  fails: (sql: string) => boolean,
  failsRead: (params: unknown[]) => boolean = () => false,
): SqlDatabase {
  const guard = (x: SqlExecutor): SqlExecutor => ({
    get: async (sql, p) => {
      if (failsRead(Array.isArray(p) ? p : [])) throw new Error(`injected failure on: ${sql.slice(0, 40)}`);
      return x.get(sql, p);
    },
    all: (sql, p) => x.all(sql, p),
    run: (sql, p) => {
      if (fails(sql)) throw new Error(`injected failure on: ${sql.slice(0, 40)}`);
      return x.run(sql, p);
    },
  });
  const outer = guard(db);
  return {
    dialect: db.dialect,
    get: outer.get,
    all: outer.all,
    run: outer.run,
    transaction: (fn, opts) => db.transaction((tx) => fn(guard(tx)), opts),
    expectWrites: () => db.expectWrites(),
    close: () => db.close(),
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(
  dataDir: string,
  opts: {
    model?: 'real' | 'simulated';
    fails?: (sql: string) => boolean;
    failsRead?: (params: unknown[]) => boolean;
  } = {},
) {
  const config = testConfig({ dataDir, seed: 'demo', model: opts.model ?? 'simulated' });
  const plain = await openContentDatabase(config);
  const db =
    opts.fails || opts.failsRead ? faulty(plain, opts.fails ?? (() => false), opts.failsRead) : plain;
  const clock = new ManualClock();
  const handle = await createContentApp({ config, clock, ids: randomIds, logger: silentLogger(), db });
  await handle.ready;
  const listening = await listen(handle, '127.0.0.1', 0);
  return { url: listening.url, clock, handle, stop: () => listening.stop() };
}

/** The whole demo, or throws naming what is missing. */
async function demoOf(url: string) {
  const brands = (await api(url, 'GET', '/v1/brands')).body.brands;
  if (brands.length === 0) return null;
  const brandId = brands[0].id;
  const posts = await api(url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`);
  const ideas = await api(url, 'GET', `/v1/ideas?brand_id=${brandId}`);
  const approvals = await api(url, 'GET', `/v1/approvals?brand_id=${brandId}`);
  const digest = await api(url, 'GET', `/v1/brands/${brandId}/digest`);
  const automations = await api(url, 'GET', '/v1/automations');
  return {
    brands: brands.length,
    posts: posts.body.posts.length,
    ideas: ideas.body.ideas.length,
    approvals: approvals.body.approvals,
    digest: digest.status,
    automations: automations.body.automations.length,
  };
}

const complete = {
  brands: 1,
  posts: 60,
  ideas: expect.toSatisfy((n: number) => n >= 2, 'suggested and hand-written ideas'),
  approvals: [expect.objectContaining({ status: 'pending' })],
  digest: 200,
  automations: 1,
};

describe('demo seed: all or nothing', () => {
  it('is complete with SERVICE_MODEL=real and no model adapter: the demo uses the simulated model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));
    dirs.push(dir);
    const svc = await start(dir, { model: 'real' });
    try {
      const demo = await demoOf(svc.url);
      expect(demo).toMatchObject(complete);
      // The pending approval is a day or more ahead of the clock at seed time, not stale.
      expect(demo?.approvals).toHaveLength(1);
      const [approval] = demo?.approvals ?? [];
      expect(approval).toMatchObject({ status: 'pending', slot_passed: false });
      expect(Date.parse(approval.slot) - svc.clock.now().getTime()).toBeGreaterThanOrEqual(24 * 3_600_000);
      // Outside the seed the real setting still refuses to fake model output.
      const gen = await api(svc.url, 'POST', '/v1/ideas/generate', {
        body: { brand_id: (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id, count: 1 },
      });
      expect(gen.body.error?.code).toBe('MODEL_NOT_CONFIGURED');
    } finally {
      await svc.stop();
    }
  });

  it('asks again when the database fails while it looks for the seed, and serves the whole demo', async () => {
    // Before the clocks pass, the first failed read ended the seed (logged): requests came in on
    // an empty workspace while the database was back a moment later.
    const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));
    dirs.push(dir);
    let failures = 3;
    const svc = await start(dir, { failsRead: (params) => params.includes('demo_seeded') && failures-- > 0 });
    try {
      expect(failures, 'the injected failures were hit').toBeLessThan(0);
      expect(await demoOf(svc.url)).toMatchObject(complete);
    } finally {
      await svc.stop();
    }
  });

  it('leaves nothing after a failure mid-seed, and the next start seeds fully', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));
    dirs.push(dir);
    const broken = await start(dir, { fails: (sql) => sql.includes('INSERT INTO approvals') });
    expect(await demoOf(broken.url)).toBeNull();
    expect((await api(broken.url, 'GET', '/v1/posts?limit=1')).body.posts).toHaveLength(0);
    await broken.stop();

    const again = await start(dir);
    expect(await demoOf(again.url)).toMatchObject(complete);
    await again.stop();
  });

  it('repairs a seed cut off by a crash (nothing cleaned up) on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));
    dirs.push(dir);
    // The digest never lands and the clean-up cannot run either: what a kill -9 mid-seed leaves.
    const crashed = await start(dir, {
      fails: (sql) => sql.includes('INSERT INTO digests') || sql.includes('DELETE FROM brands'),
    });
    const half = await demoOf(crashed.url);
    expect(half?.brands).toBe(1);
    expect(half?.digest).toBe(404);
    await crashed.stop();

    const repaired = await start(dir);
    expect(await demoOf(repaired.url)).toMatchObject(complete);
    await repaired.stop();

    // Complete now: a further start changes nothing.
    const later = await start(dir);
    expect(await demoOf(later.url)).toMatchObject(complete);
    await later.stop();
  });
});
