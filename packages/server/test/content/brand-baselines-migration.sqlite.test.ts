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
  });
});
