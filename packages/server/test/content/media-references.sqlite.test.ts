import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { openSqliteDatabase } from '../../src/platform/db/sqlite.js';
import { rewindContentSchema } from '../helpers/content-rewind.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';
import { mediaTools } from './media-tools.js';

// SQLite only: a SQLite deployment may hold rows written before migration 11 made the references
// table; PostgreSQL deployments start with the table, so no rows predate it.
describe('media that drafts and posts referred to before the references table', () => {
  let svc: TestService;
  let brand: { id: string; channels: Record<string, string> };
  beforeAll(async () => {
    svc = await startTestService('content');
    brand = await makeBrand(svc, { channels: ['x'] });
  });
  afterAll(() => svc.close());

  const { expectImage, mediaUrls, upload, draftWith } = mediaTools(
    () => svc,
    () => brand.id,
  );
  const daysAhead = (days: number) => new Date(svc.clock.now().getTime() + days * 86_400_000).toISOString();

  it('finds references written before the references table existed (migration 11 fills it)', async () => {
    const asset = await upload();
    const draft = await draftWith(asset.id, 'Attached before the upgrade.');
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { draft_id: draft.id, scheduled_for: daysAhead(4) },
    });
    const [url] = mediaUrls(post.body.parts);
    // Back to the schema before 011 (rows the drafts and posts hold as JSON only), then upgrade.
    const file = join(svc.dataDir, 'content.sqlite');
    const old = openSqliteDatabase(file, contentMigrations);
    // Back past every later step too, so they run again after 011.
    rewindContentSchema(old.raw, 11);
    await old.close();
    await openSqliteDatabase(file, contentMigrations, { log: () => {} }).close();

    expect((await api(svc.url, 'DELETE', `/v1/media/${asset.id}`)).status).toBe(200);
    await expectImage(url as string);
    expect((await api(svc.url, 'DELETE', `/v1/posts/${post.body.id}`)).status).toBe(200);
    await expectImage(url as string);
  });
});
