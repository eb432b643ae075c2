import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { brandBaselinesMigration } from '../../src/content/db/migrations/017-brand-baselines.js';
import { baselineHistogramsMigration } from '../../src/content/db/migrations/019-baseline-histograms.js';
import type { PostgresDatabase } from '../../src/platform/db/postgres.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * Migration 017's PostgreSQL step on a database that holds snapshots already (one moved over with
 * migrate-to-postgres): its SQL folds them into the same baselines as the SQLite step.
 */
describe('the brand baselines migration on PostgreSQL', () => {
  let svc: TestService;
  const db = () => (svc.handle as unknown as { ctx: ContentContext }).ctx.db as unknown as PostgresDatabase;

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
  });
  afterAll(() => svc.close());

  it('gives the demo brand the baselines and verdicts its snapshots give', async () => {
    const brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
    const list = async () =>
      (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`)).body.posts.map((p: any) => [
        p.id,
        p.verdict,
      ]);
    const stored = async () =>
      JSON.parse((await db().pool.query('SELECT baselines FROM brand_baselines')).rows[0].baselines);
    const before = await list();
    const written = await stored();
    expect(Object.keys(written).sort()).toEqual(['linkedin', 'x']);

    // Back to the schema before 017, then its step (and 019's) again over the seeded snapshots:
    // a row in 017's form lists the same verdicts as the bounded form the seed wrote.
    await db().pool.query('DROP TABLE brand_baselines');
    await db().pool.query(brandBaselinesMigration.postgres);
    await db().pool.query(baselineHistogramsMigration.postgres);
    expect(Object.keys(await stored()).sort()).toEqual(['linkedin', 'x']);
    expect(await list()).toEqual(before);
  });
});
