import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { processStateMigration } from '../../src/content/db/migrations/014-process-state-in-database.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/platform/db/sqlite.js';
import { rewindContentSchema } from '../helpers/content-rewind.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { digestCappedAtTwo, makeBrand } from './helpers.js';

/**
 * Content migration 14 on a SQLite database that has run automations today (PostgreSQL has no
 * such data): the cap counters start from the fires already recorded, so an upgrade in the middle
 * of a day does not hand every automation a fresh allowance.
 */
describe('the automation run counts migration', () => {
  let svc: TestService;
  const raw = () => ((svc.handle as unknown as { ctx: ContentContext }).ctx.db as SqliteDatabase).raw;

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'none' } });
  });
  afterAll(() => svc.close());

  it('counts the runs recorded before it toward the caps', async () => {
    const brand = await makeBrand(svc);
    const auto = await api(svc.url, 'POST', '/v1/automations', {
      body: digestCappedAtTwo(brand.id),
    });
    const run = () => api(svc.url, 'POST', `/v1/automations/${auto.body.id}/run`);
    expect((await run()).status).toBe(201);
    // Back to the schema before 014, keeping the fire, then forward.
    rewindContentSchema(raw(), processStateMigration.id);
    await openSqliteDatabase(join(svc.dataDir, 'content.sqlite'), contentMigrations).close();

    expect((await run()).status).toBe(201);
    const capped = await run();
    expect(capped.status).toBe(429);
    expect(capped.body.error.code).toBe('DAILY_CAP_REACHED');
  });
});
