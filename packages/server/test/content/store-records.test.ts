import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentStores } from '../../src/content/db/stores/index.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * Stores decode rows into typed records at their boundary: JSON columns come back decoded,
 * unions come back checked, and a row this code did not write fails the read naming its table and
 * column instead of reaching a service as something it cannot handle.
 */
describe('typed store records', () => {
  let svc: TestService;
  let db: SqlDatabase;
  let brandId: string;
  let channelId: string;
  beforeAll(async () => {
    svc = await startTestService('content');
    db = svc.handle.db;
    brandId = (await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Records' } })).body.id;
    const connected = await api(svc.url, 'POST', `/v1/brands/${brandId}/channels/connect`, {
      body: { platform: 'x' },
    });
    channelId = connected.body.channel.id;
  });
  afterAll(() => svc.close());

  it('reads channels with their unions and a brand with its memory decoded', async () => {
    const stores = contentStores(db);
    expect(await stores.channels.get(channelId)).toMatchObject({
      platform: 'x',
      kind: 'sandbox',
      status: 'connected',
    });
    const brand = await stores.brands.get(brandId);
    expect(brand?.memory.voice.do).toEqual([]);
    expect(typeof brand?.memory_as_read).toBe('string');
  });

  it('writes and reads a draft version with its parts as objects, in a transaction bundle', async () => {
    const stores = contentStores(db);
    const at = '2026-01-01T00:00:00.000Z';
    const parts = [{ text: 'hello', media: [] }];
    await db.transaction(async (sql) => {
      const tx = contentStores(sql);
      await tx.drafts.insert(
        {
          id: 'drf_records',
          brand_id: brandId,
          idea_id: null,
          platform: 'x',
          status: 'draft',
          created_at: at,
          updated_at: at,
        },
        () => new Error('exists'),
      );
      const added = await tx.drafts.addVersion({
        draft_id: 'drf_records',
        version: 1,
        parts,
        action: 'create',
        note: null,
        source: 'app',
        key_id: null,
        created_at: at,
      });
      expect(added).toBe(true);
    });
    expect(await stores.drafts.get('drf_records')).toMatchObject({ platform: 'x', status: 'draft', parts });
    expect((await stores.drafts.version('drf_records', 1))?.parts).toEqual(parts);
  });

  it('refuses a row outside its union, naming the table and column', async () => {
    await db.run('UPDATE channels SET platform = ? WHERE id = ?', ['myspace', channelId]);
    await expect(contentStores(db).channels.get(channelId)).rejects.toThrow(
      /channels\.platform holds "myspace", not one of x, linkedin, instagram, threads/,
    );
    await db.run('UPDATE channels SET platform = ? WHERE id = ?', ['x', channelId]);
  });

  it('refuses a JSON column that is not JSON of its shape, naming the table and column', async () => {
    await db.run('UPDATE draft_versions SET parts = ? WHERE draft_id = ?', ['not json', 'drf_records']);
    await expect(contentStores(db).drafts.version('drf_records', 1)).rejects.toThrow(
      /draft_versions\.parts holds "not json", not JSON/,
    );
    await db.run('UPDATE draft_versions SET parts = ? WHERE draft_id = ?', ['{"text":"x"}', 'drf_records']);
    await expect(contentStores(db).drafts.get('drf_records')).rejects.toThrow(
      /draft_versions\.parts .* not a JSON array/,
    );
  });
});
