import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { ContentApiError } from '../src/index.js';
import { BASE, makeClient, seen, server, useServer } from './helpers.js';

useServer();

const approval = (id: string, status = 'pending') => ({ id, status });
const counts = { pending: 2, approved: 1, rejected: 0 };

describe('lists page with limit + after, as async iterables', () => {
  it('iterates every item across pages, sending the cursor and the filters on each page', async () => {
    server.use(
      http.get(`${BASE}/approvals`, ({ request }) => {
        const after = new URL(request.url).searchParams.get('after');
        return after === null
          ? HttpResponse.json({
              approvals: [approval('apr_1'), approval('apr_2')],
              counts,
              has_more: true,
              next_after: 'c1',
            })
          : HttpResponse.json({
              approvals: [approval('apr_3', 'approved')],
              counts,
              has_more: false,
              next_after: null,
            });
      }),
    );
    const { client } = makeClient();
    const ids: string[] = [];
    for await (const a of client.approvals.list({ brand_id: 'brd_1', limit: 2 })) ids.push(a.id);
    expect(ids).toEqual(['apr_1', 'apr_2', 'apr_3']);
    expect(seen.map((r) => new URL(r.url).search)).toEqual([
      '?brand_id=brd_1&limit=2',
      '?brand_id=brd_1&limit=2&after=c1',
    ]);
  });

  it('awaiting a list gives the first page, with the server extras (counts) typed', async () => {
    server.use(
      http.get(`${BASE}/approvals`, () =>
        HttpResponse.json({ approvals: [approval('apr_1')], counts, has_more: true, next_after: 'c1' }),
      ),
    );
    const page = await makeClient().client.approvals.list();
    expect(page.counts.pending).toBe(2);
    expect(page.items).toEqual(page.approvals);
    expect(page).toMatchObject({ has_more: true, next_after: 'c1' });
  });

  it('starts at a given cursor and pages by page', async () => {
    server.use(
      http.get(`${BASE}/brands/brd_1/media`, ({ request }) => {
        const after = new URL(request.url).searchParams.get('after');
        const next = after === 'm2' ? null : 'm4';
        return HttpResponse.json({
          media: [{ id: `after_${after}` }],
          has_more: next !== null,
          next_after: next,
        });
      }),
    );
    const pages = [];
    for await (const page of makeClient().client.media.list('brd_1', { after: 'm2' }).pages())
      pages.push(page.media);
    expect(pages).toEqual([[{ id: 'after_m2' }]]);
  });

  it('lists the server returns whole (agents, API keys) iterate the same way, in one request', async () => {
    server.use(
      http.get(`${BASE}/agents`, () =>
        HttpResponse.json({ agents: [{ id: 'digest' }, { id: 'voice_check' }] }),
      ),
    );
    const ids: string[] = [];
    const { client } = makeClient();
    for await (const agent of client.agents.list()) ids.push(agent.id);
    expect(ids).toEqual(['digest', 'voice_check']);
    expect(seen).toHaveLength(1);
    expect(await client.agents.list()).toMatchObject({ has_more: false, next_after: null });
  });

  it('whole lists are lazy: nothing is sent until awaited or iterated', async () => {
    server.use(http.get(`${BASE}/api-keys`, () => HttpResponse.json({ api_keys: [] })));
    const list = makeClient().client.apiKeys.list();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toHaveLength(0);
    expect(await list).toMatchObject({ api_keys: [], has_more: false });
    expect(seen).toHaveLength(1);
  });

  it('lists answer withResponse() with the first page and its response, like every call', async () => {
    server.use(
      http.get(`${BASE}/approvals`, () =>
        HttpResponse.json(
          { approvals: [approval('apr_1')], counts, has_more: true, next_after: 'c1' },
          { headers: { 'service-request-id': 'req_list' } },
        ),
      ),
      http.get(`${BASE}/agents`, () =>
        HttpResponse.json({ agents: [{ id: 'digest' }] }, { headers: { 'service-request-id': 'req_whole' } }),
      ),
    );
    const { client } = makeClient();
    const paged = await client.approvals.list({ limit: 1 }).withResponse();
    expect(paged.data.counts.pending).toBe(2);
    expect(paged.data.next_after).toBe('c1');
    expect(paged.requestId).toBe('req_list');
    expect(await paged.response.json()).toMatchObject({ next_after: 'c1' });
    const whole = await client.agents.list().withResponse();
    expect(whole.data.items).toEqual([{ id: 'digest' }]);
    expect(whole.requestId).toBe('req_whole');
    expect((await client.agents.list().asResponse()).status).toBe(200);
    expect(seen).toHaveLength(3);
  });

  it("outcomes page as POSTs, lazily; a caller's idempotency key goes with the first page only", async () => {
    server.use(
      http.post(`${BASE}/brands/brd_1/outcomes`, ({ request }) => {
        const after = new URL(request.url).searchParams.get('after');
        return HttpResponse.json({
          outcomes: [{ post_id: `pst_after_${after}` }],
          has_more: after === null,
          next_after: after === null ? 'o1' : null,
        });
      }),
    );
    const list = makeClient().client.insights.outcomes('brd_1', { limit: 1 }, { idempotencyKey: 'mine' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toHaveLength(0);
    const ids: string[] = [];
    for await (const o of list) ids.push(o.post_id);
    expect(ids).toEqual(['pst_after_null', 'pst_after_o1']);
    expect(seen.map((r) => [r.method, new URL(r.url).search])).toEqual([
      ['POST', '?limit=1'],
      ['POST', '?limit=1&after=o1'],
    ]);
    // The server's replay keys on method, path and body: page two under 'mine' would be page one.
    const [firstKey, secondKey] = seen.map((r) => r.headers.get('idempotency-key'));
    expect(firstKey).toBe('mine');
    expect(secondKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a body without the list key is a clear error, not an empty list', async () => {
    server.use(http.get(`${BASE}/api-keys`, () => HttpResponse.json({ keys: [] })));
    await expect(makeClient().client.apiKeys.list().firstPage()).rejects.toThrow(ContentApiError);
    await expect(makeClient().client.apiKeys.list().firstPage()).rejects.toThrow('"api_keys"');
  });
});
