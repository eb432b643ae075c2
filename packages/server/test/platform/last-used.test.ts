import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentStores } from '../../src/content/db/stores/index.js';
import { findContentApiKey } from '../../src/content/services/api-keys.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** last_used_at is kept to the minute, so an authenticated read does not write on every request. */
describe('API key last-used time', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  const lastUsed = async (id: string) =>
    (await api(svc.url, 'GET', '/v1/api-keys')).body.api_keys.find((k: any) => k.id === id).last_used_at;

  it('is set on first use, kept within the minute, and moved after it', async () => {
    const created = await api(svc.url, 'POST', '/v1/api-keys', { body: { name: 'agent', scopes: ['read'] } });
    expect(created.body.last_used_at).toBeNull();
    const deps = { clock: svc.clock };

    await findContentApiKey(contentStores(svc.handle.db), deps, created.body.key);
    const first = await lastUsed(created.body.id);
    expect(first).toBe(svc.clock.now().toISOString());

    svc.clock.advance(30_000);
    await findContentApiKey(contentStores(svc.handle.db), deps, created.body.key);
    expect(await lastUsed(created.body.id)).toBe(first);

    svc.clock.advance(31_000);
    await findContentApiKey(contentStores(svc.handle.db), deps, created.body.key);
    expect(await lastUsed(created.body.id)).toBe(svc.clock.now().toISOString());
  });
});
