import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { brandTimeZoneMigration } from '../../src/content/db/migrations/013-brand-time-zone.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/platform/db/sqlite.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** The zone's migration on a SQLite database that has brands already (PostgreSQL has no such data). */
describe('the brand time zone migration', () => {
  let svc: TestService;
  const raw = () => ((svc.handle as unknown as { ctx: ContentContext }).ctx.db as SqliteDatabase).raw;

  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('gives brands made before the zone existed UTC', async () => {
    const old = (
      await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Older', time_zone: 'Asia/Tokyo' } })
    ).body;
    // Back to the schema before the zone (undoing the later migrations too), then forward again.
    raw().exec(
      'DROP INDEX posts_growing; DROP TABLE brand_baselines; ALTER TABLE brands DROP COLUMN time_zone',
    );
    raw().prepare('DELETE FROM schema_migrations WHERE id >= ?').run(brandTimeZoneMigration.id);
    openSqliteDatabase(join(svc.dataDir, 'content.sqlite'), contentMigrations).close();
    expect((await api(svc.url, 'GET', `/v1/brands/${old.id}`)).body.time_zone).toBe('UTC');
  });
});
