import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { brandBaselinesMigration } from '../../src/content/db/migrations/017-brand-baselines.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/platform/db/sqlite.js';
import { rewindContentSchema } from '../helpers/content-rewind.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** Migration 017 on a SQLite database that holds snapshots already: it folds them into baselines. */
describe('the brand baselines migration', () => {
  let svc: TestService;
  const raw = () => ((svc.handle as unknown as { ctx: ContentContext }).ctx.db as SqliteDatabase).raw;

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
  });
  afterAll(() => svc.close());

  it('gives the demo brand the verdicts its snapshots give, after the table is built from them', async () => {
    const brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
    const before = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`)).body.posts;
    expect(before.filter((p: any) => p.verdict === 'outperforming').length).toBeGreaterThan(0);

    // Back to the schema before 017 (undoing later migrations too), then forward again.
    rewindContentSchema(raw(), brandBaselinesMigration.id);
    openSqliteDatabase(join(svc.dataDir, 'content.sqlite'), contentMigrations).close();

    const after = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`)).body.posts;
    expect(after.map((p: any) => [p.id, p.verdict])).toEqual(before.map((p: any) => [p.id, p.verdict]));
    for (const p of after.slice(0, 10)) {
      const one = await api(svc.url, 'GET', `/v1/posts/${p.id}`);
      expect(one.body.outcome.verdict).toBe(p.verdict);
    }

    // The row is still in 017's form (migration 019 left its histogram empty) until the brand's
    // next snapshot, which rewrites it bounded with every snapshot counted.
    const row = () =>
      raw().prepare('SELECT baselines, histogram FROM brand_baselines WHERE brand_id = ?').get(brandId) as {
        baselines: string;
        histogram: string | null;
      };
    expect(row().histogram).toBeNull();
    const hop = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 30 } });
    expect(hop.body.snapshots).toBeGreaterThan(0);
    const histogram = JSON.parse(row().histogram ?? '{}');
    const counted = Object.values(histogram).flatMap((byAge: any) =>
      Object.values(byAge).flatMap((h: any) => Object.values(h) as number[]),
    );
    const { n } = raw()
      .prepare(
        `SELECT COUNT(*) AS n FROM post_metrics m JOIN posts p ON p.id = m.post_id
         WHERE p.brand_id = ? AND p.status = 'published' AND m.age_h IN (1, 3, 6, 12, 24, 48, 72)`,
      )
      .get(brandId) as { n: number };
    expect(counted.reduce((a, c) => a + c, 0)).toBe(n);
    const summaries = Object.values(JSON.parse(row().baselines)).flatMap((b: any) => Object.values(b.curve));
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.filter((v) => Array.isArray(v))).toEqual([]);
    const listed = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`)).body.posts;
    for (const p of listed.slice(0, 10)) {
      const one = await api(svc.url, 'GET', `/v1/posts/${p.id}`);
      expect(one.body.outcome.verdict).toBe(p.verdict);
    }
  });
});
