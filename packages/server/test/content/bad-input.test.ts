import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** Row counts of every table, on either engine, to show a refused request left nothing behind. */
async function snapshot(svc: TestService): Promise<Record<string, number>> {
  const db = (svc.handle as any).db as SqlDatabase;
  const tables = await db.all<{ name: string }>(
    db.dialect === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
      : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  const counts: Record<string, number> = {};
  for (const t of tables)
    counts[t.name] = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${t.name}"`))?.n ?? 0;
  return counts;
}

const fill = (path: string) =>
  path.replace(/\{[A-Za-z]+\}/g, 'zz_missing').replace('/versions/zz_missing', '/versions/1');

describe('bad input on every route', () => {
  let svc: TestService;
  let doc: any;
  let before: Record<string, number>;
  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    doc = (await api(svc.url, 'GET', '/v1/openapi.json')).body;
    before = await snapshot(svc);
  });
  afterAll(() => svc.close());

  const ops = () =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );

  it('refuses an unknown body field on every JSON route, naming it', async () => {
    const withBody = ops().filter((o) => o.op.requestBody?.content?.['application/json']);
    expect(withBody.length).toBeGreaterThan(30);
    for (const { path, method } of withBody) {
      const res = await api(svc.url, method.toUpperCase(), fill(path), { body: { zz_unknown: 1 } });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('refuses a body of the wrong type on every JSON route', async () => {
    for (const { path, method } of ops().filter((o) => o.op.requestBody?.content?.['application/json'])) {
      const res = await api(svc.url, method.toUpperCase(), fill(path), { body: [1, 2] });
      expect(res.status, `${method} ${path}`).toBe(400);
    }
  });

  it('answers 404 NOT_FOUND for a missing id on every GET and DELETE with an id', async () => {
    const targets = ops().filter(
      (o) =>
        (o.method === 'get' || o.method === 'delete') && o.path.includes('{') && !o.path.startsWith('/oauth'),
    );
    expect(targets.length).toBeGreaterThan(20);
    for (const { path, method } of targets) {
      const res = await api(svc.url, method.toUpperCase(), fill(path));
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it.each([
    ['PATCH', '/v1/brands/zz', { name: 'x' }],
    ['POST', '/v1/brands/zz/memory/save', { from: 'post_zz', as: 'knowledge' }],
    ['POST', '/v1/brands/zz/memory/preview', { from: 'post_zz', as: 'knowledge' }],
    ['POST', '/v1/brands/zz/memory/knowledge', { title: 't', body: 'b' }],
    ['POST', '/v1/brands/zz/channels/connect', { platform: 'x' }],
    ['POST', '/v1/brands/zz/signals', { kind: 'trend', title: 't' }],
    ['POST', '/v1/brands/zz/digest', {}],
    ['POST', '/v1/brands/zz/outcomes', undefined],
    ['POST', '/v1/ideas', { brand_id: 'zz', title: 't' }],
    ['POST', '/v1/ideas/generate', { brand_id: 'zz' }],
    ['PATCH', '/v1/ideas/zz', { title: 't' }],
    ['POST', '/v1/drafts', { brand_id: 'zz', platform: 'x', text: 't' }],
    ['POST', '/v1/drafts/generate', { idea_id: 'zz', platforms: ['x'] }],
    ['PATCH', '/v1/drafts/zz', { text: 't' }],
    ['POST', '/v1/drafts/zz/rewrite', { instruction: 'shorter' }],
    ['POST', '/v1/drafts/zz/media', { asset_id: 'med_zz' }],
    ['POST', '/v1/posts', { draft_id: 'zz' }],
    ['PATCH', '/v1/posts/zz', { text: 't' }],
    ['POST', '/v1/posts/zz/resolve', undefined],
    ['POST', '/v1/approvals', { draft_id: 'zz' }],
    ['PATCH', '/v1/approvals/zz', { text: 't' }],
    ['POST', '/v1/approvals/zz/approve', {}],
    ['POST', '/v1/approvals/zz/reject', { reason: 'r' }],
    ['POST', '/v1/approvals/bulk', { actions: [{ action: 'approve', id: 'zz' }] }],
    ['POST', '/v1/agents/zz/runs', { inputs: {} }],
    ['POST', '/v1/agents/digest/runs', { inputs: { brandId: 'zz' } }],
    [
      'POST',
      '/v1/automations',
      { brand_id: 'zz', name: 'n', agent_id: 'digest', trigger: { type: 'event', event: 'post.published' } },
    ],
    ['PATCH', '/v1/automations/zz', { name: 'n' }],
    ['POST', '/v1/automations/zz/run', undefined],
    ['POST', '/v1/campaigns', { brand_id: 'zz', name: 'n' }],
    ['PATCH', '/v1/campaigns/zz', { name: 'n' }],
    ['POST', '/v1/campaigns/zz/canvas/notes', { text: 't' }],
    ['PATCH', '/v1/campaigns/zz/canvas/items/zz', { x: 1 }],
    ['POST', '/v1/memory-proposals/zz/apply', undefined],
    ['POST', '/v1/memory-proposals/zz/dismiss', undefined],
  ])('%s %s with a missing id is 404', async (method, path, body) => {
    const res = await api(svc.url, method, path, body === undefined ? {} : { body });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
  });

  it('rejects unknown query parameters and bad query values', async () => {
    for (const path of [
      '/v1/posts?colour=red',
      '/v1/ideas?limit=0',
      '/v1/approvals?status=maybe',
      '/v1/insights/overview?days=abc',
    ])
      expect((await api(svc.url, 'GET', path)).status, path).toBe(400);
  });

  it('left nothing half-written', async () => {
    expect(await snapshot(svc)).toEqual(before);
  });
});
