import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';

type Operation = {
  operationId?: string;
  description?: string;
  tags?: string[];
  responses: Record<string, unknown>;
};
type Doc = {
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: Operation }>;
};

/** GET /docs renders the service's own OpenAPI document with a renderer the server ships. */
describe.each(['content', 'commerce'] as const)('%s API reference', (name) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(name);
  });
  afterAll(() => svc.close());

  it('serves a page that loads only its own renderer and its own document', async () => {
    const res = await fetch(`${svc.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const page = await res.text();
    expect(page).toContain('spec-url="/v1/openapi.json"');
    expect(page).toContain('<script src="/docs/redoc.standalone.js"></script>');
    expect(page).not.toMatch(/<script[^>]+src="https?:/);
  });

  it('serves the renderer itself', async () => {
    const res = await fetch(`${svc.url}/docs/redoc.standalone.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect((await res.text()).length).toBeGreaterThan(100_000);
  });

  it('documents every operation: a description, its tag declared, its 4xx errors', async () => {
    const res = await api(svc.url, 'GET', '/v1/openapi.json');
    const doc = res.body as Doc;
    expect(doc.servers?.length).toBeGreaterThan(0);
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    const operations = [
      ...Object.values(doc.paths).flatMap((ops) => Object.values(ops)),
      ...Object.values(doc.webhooks ?? {}).map((w) => w.post),
    ];
    expect(operations.length).toBeGreaterThan(10);
    for (const op of operations) {
      expect(op.operationId, JSON.stringify(op).slice(0, 120)).toBeTruthy();
      expect(op.description?.length, `${op.operationId} has no description`).toBeGreaterThan(20);
      expect(op.tags?.length, `${op.operationId} has no tag`).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(declared.get(tag), `tag ${tag}`).toBeTruthy();
      if (!Object.values(doc.webhooks ?? {}).some((w) => w.post === op)) {
        expect(
          Object.keys(op.responses).filter((s) => /^4\d\d$/.test(s)),
          op.operationId,
        ).toContain('400');
      }
    }
  });

  it('lists the errors a route can give from its shape: 404 with an id, 409 and 415 on POST', async () => {
    const doc = (await api(svc.url, 'GET', '/v1/openapi.json')).body as Doc;
    const withId = Object.entries(doc.paths).find(([p, ops]) => p.includes('{') && ops.get)?.[1].get;
    expect(Object.keys(withId?.responses ?? {})).toContain('404');
    const post = Object.values(doc.paths).find((ops) => ops.post)?.post;
    expect(Object.keys(post?.responses ?? {})).toEqual(expect.arrayContaining(['400', '409', '413', '415']));
  });
});

describe('who can reach /docs', () => {
  let content: TestService;
  let commerce: TestService;
  beforeAll(async () => {
    content = await startTestService('content');
    commerce = await startTestService('commerce');
  });
  afterAll(async () => {
    await content.close();
    await commerce.close();
  });
  const fromTunnel = { 'X-Forwarded-For': '203.0.113.9' };

  it('content: only locally, like the REST API it documents', async () => {
    const res = await fetch(`${content.url}/docs`, { headers: fromTunnel });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('LOCAL_ONLY');
  });

  it('commerce: from anywhere, like the API it documents', async () => {
    const res = await fetch(`${commerce.url}/docs`, { headers: fromTunnel });
    expect(res.status).toBe(200);
  });
});
