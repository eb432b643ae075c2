// `/health` is liveness: on a first start it answers at once, while the demo seed is still being
// written; every other request keeps waiting for the seed, so nobody sees a half-built demo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContentApp } from '../../src/content/app.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { randomIds } from '../../src/platform/ids.js';
import { silentLogger } from '../../src/platform/logger.js';
import { type Listening, listen } from '../../src/platform/service.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { removeTempDataDir, tempDataDir } from '../helpers/start.js';

/**
 * The database, but the seed's first write (its pending marker) waits until `open()`: the seed
 * is held in the middle of a first start, however fast the machine.
 */
function holdingTheSeed(db: SqlDatabase) {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held = 0;
  const gated = new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== 'run' || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return async (sql: string, params?: unknown[]) => {
        if (Array.isArray(params) && params.includes('demo_seed_pending')) {
          held++;
          await gate;
        }
        return value.call(target, sql, params);
      };
    },
  });
  return { db: gated, open, held: () => held };
}

describe('/health during a first start', () => {
  let dataDir: string;
  let database: TestDatabase;
  let listening: Listening;
  let seed: ReturnType<typeof holdingTheSeed>;
  let url: string;
  beforeAll(async () => {
    dataDir = tempDataDir('svc-health-seed-');
    database = await openTestDatabase('content', contentMigrations, dataDir);
    seed = holdingTheSeed(database.db);
    const config = testConfig({ dataDir, seed: 'demo' });
    const handle = await createContentApp({
      config,
      clock: new ManualClock(),
      ids: randomIds,
      logger: silentLogger(),
      db: seed.db,
    });
    listening = await listen(handle, '127.0.0.1', 0);
    url = listening.url;
  });
  afterAll(async () => {
    seed?.open();
    await listening?.stop();
    await database?.close();
    removeTempDataDir(dataDir);
  });

  it('answers /health while the seed is held, and the API only once the seed is done', async () => {
    for (let i = 0; seed.held() === 0 && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seed.held()).toBe(1);
    // A bounded wait, so the old behaviour (waiting for the seed) fails here, not at the test timeout.
    const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await fetch(`${url}/health`, { method: 'HEAD', signal: AbortSignal.timeout(5000) })).status).toBe(
      200,
    );

    let answered = false;
    const brands = fetch(`${url}/v1/brands`).then(async (res) => {
      answered = true;
      return { status: res.status, body: await res.json() };
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).toBe(false);
    seed.open();
    const res = await brands;
    expect(res.status).toBe(200);
    expect(res.body.brands.length).toBe(1);
  });
});
