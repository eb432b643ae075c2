import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import type { SqliteDatabase } from '../../src/platform/db/sqlite.js';
import { startTestService, type TestService } from '../helpers/start.js';

/**
 * The background pass's read of the posts still growing must not walk every published post: with
 * a million settled posts it held the event loop for seconds each tick (migration 018).
 */
describe('the posts still growing', () => {
  let svc: TestService;
  const raw = () => ((svc.handle as unknown as { ctx: ContentContext }).ctx.db as SqliteDatabase).raw;
  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'none' } });
  });
  afterAll(() => svc.close());

  it('are read through the partial index that holds only them', () => {
    const plan = raw()
      .prepare(
        "EXPLAIN QUERY PLAN SELECT * FROM posts WHERE status = 'published' AND settled_at IS NULL AND published_at <= ? ORDER BY published_at, id",
      )
      .all('2030-01-01T00:00:00.000Z') as { detail: string }[];
    expect(plan.map((r) => r.detail).join(' ')).toMatch(/USING INDEX posts_growing/);
  });
});
