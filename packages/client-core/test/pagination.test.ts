import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  MissingUserTokenError,
  type Page,
  PagePromise,
  pagedList,
  wholeList,
} from '../src/index.js';
import { BASE, makeCore, seen, server, useServer } from './helpers.js';

useServer();

interface Merchant {
  id: string;
}

const PAGES: Record<string, { merchants: Merchant[]; has_more: boolean; next_after: string | null }> = {
  first: { merchants: [{ id: 'm1' }, { id: 'm2' }], has_more: true, next_after: 'c1' },
  c1: { merchants: [{ id: 'm3' }, { id: 'm4' }], has_more: true, next_after: 'c2' },
  c2: { merchants: [{ id: 'm5' }], has_more: false, next_after: null },
};

function serveMerchants() {
  server.use(
    http.get(`${BASE}/merchants`, ({ request }) => {
      const after = new URL(request.url).searchParams.get('after') ?? 'first';
      const page = PAGES[after];
      return page
        ? HttpResponse.json(page)
        : HttpResponse.json({ error: { code: 'NOT_FOUND' } }, { status: 404 });
    }),
  );
}

function listMerchants(q = 'shoes') {
  const { core } = makeCore();
  return core.list<Merchant, 'merchants'>({ path: '/merchants', key: 'merchants', query: { q, limit: 2 } });
}

describe('list()', () => {
  it('iterates every item across three pages with for await', async () => {
    serveMerchants();
    const ids: string[] = [];
    for await (const merchant of listMerchants()) ids.push(merchant.id);
    expect(ids).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    const queries = seen.map((r) => new URL(r.url).search);
    expect(queries).toEqual(['?q=shoes&limit=2', '?q=shoes&limit=2&after=c1', '?q=shoes&limit=2&after=c2']);
  });

  it('pages() yields each page with items and the named key', async () => {
    serveMerchants();
    const pages = [];
    for await (const page of listMerchants().pages()) pages.push(page);
    expect(pages).toHaveLength(3);
    expect(pages.map((p) => p.items.map((m) => m.id))).toEqual([['m1', 'm2'], ['m3', 'm4'], ['m5']]);
    expect(pages[1]?.merchants).toEqual([{ id: 'm3' }, { id: 'm4' }]);
    expect(pages.map((p) => [p.has_more, p.next_after])).toEqual([
      [true, 'c1'],
      [true, 'c2'],
      [false, null],
    ]);
  });

  it('firstPage() fetches only the first page; awaiting the list gives the same', async () => {
    serveMerchants();
    const list = listMerchants();
    const first = await list.firstPage();
    expect(first.has_more).toBe(true);
    expect(first.next_after).toBe('c1');
    expect(first.merchants.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(seen).toHaveLength(1);
    expect((await list).next_after).toBe('c1');
    expect(seen).toHaveLength(2);
  });

  it('is lazy and can be iterated again from the start', async () => {
    serveMerchants();
    const list = listMerchants();
    expect(seen).toHaveLength(0);
    let count = 0;
    for await (const _ of list) count++;
    for await (const _ of list) count++;
    expect(count).toBe(10);
  });

  it('starts from query.after when given', async () => {
    serveMerchants();
    const { core } = makeCore();
    const ids: string[] = [];
    for await (const m of core.list<Merchant, 'merchants'>({
      path: '/merchants',
      key: 'merchants',
      query: { after: 'c1' },
    })) {
      ids.push(m.id);
    }
    expect(ids).toEqual(['m3', 'm4', 'm5']);
  });

  it('rejects with ApiError when the body has no list under the key', async () => {
    server.use(http.get(`${BASE}/merchants`, () => HttpResponse.json({ stores: [] })));
    const { core } = makeCore();
    await expect(core.list({ path: '/merchants', key: 'merchants' }).firstPage()).rejects.toBeInstanceOf(
      ApiError,
    );
  });
});

describe('withResponse() on a list', () => {
  it("gives the first page with its raw response and request id, like any other call's", async () => {
    server.use(
      http.get(`${BASE}/merchants`, () =>
        HttpResponse.json(PAGES.first, { headers: { 'service-request-id': 'req_page1', 'x-extra': 'yes' } }),
      ),
    );
    const { data, response, requestId, idempotentReplayed } = await listMerchants().withResponse();
    expect(data.items.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(data).toMatchObject({ has_more: true, next_after: 'c1' });
    expect(requestId).toBe('req_page1');
    expect(idempotentReplayed).toBe(false);
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(await response.json()).toEqual(PAGES.first);
    expect(seen).toHaveLength(1);
  });

  it('asResponse() gives the raw first-page response; errors stay typed', async () => {
    serveMerchants();
    const raw = await listMerchants().asResponse();
    expect(raw.status).toBe(200);
    expect(await raw.json()).toEqual(PAGES.first);
    server.use(
      http.get(`${BASE}/merchants`, () => HttpResponse.json({ error: { code: 'NOPE' } }, { status: 404 })),
    );
    await expect(listMerchants().withResponse()).rejects.toMatchObject({ status: 404, code: 'NOPE' });
  });
});

describe('pagedList() and wholeList()', () => {
  interface Body {
    orders: Array<{ id: string }>;
    has_more?: boolean;
  }

  it('wholeList is lazy: nothing is sent until it is awaited or iterated', async () => {
    server.use(http.get(`${BASE}/orders`, () => HttpResponse.json({ orders: [{ id: 'o1' }] })));
    const { core } = makeCore({ userToken: 'user-1' });
    const list = wholeList<Body, 'orders'>(core, '/orders', 'orders', undefined);
    await Promise.resolve();
    expect(seen).toHaveLength(0);
    expect((await list).orders).toEqual([{ id: 'o1' }]);
    expect(seen).toHaveLength(1);
  });

  it('wholeList is one page even when the body says has_more, and has withResponse', async () => {
    server.use(
      http.get(`${BASE}/orders`, () =>
        HttpResponse.json(
          { orders: [{ id: 'o1' }], has_more: true },
          { headers: { 'service-request-id': 'r9' } },
        ),
      ),
    );
    const { core } = makeCore();
    const list = wholeList<Body, 'orders'>(core, '/orders', 'orders', undefined);
    const pages = [];
    for await (const page of list.pages()) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ has_more: false, next_after: null, items: [{ id: 'o1' }] });
    const { data, requestId } = await list.withResponse();
    expect(data.orders).toEqual([{ id: 'o1' }]);
    expect(requestId).toBe('r9');
  });

  it.each([
    [
      'wholeList',
      (core: ReturnType<typeof makeCore>['core']) =>
        wholeList<Body, 'orders'>(core, '/orders', 'orders', { requiresUserToken: true }),
    ],
    [
      'pagedList',
      (core: ReturnType<typeof makeCore>['core']) =>
        pagedList<Body, 'orders'>(core, '/orders', 'orders', {}, { requiresUserToken: true }),
    ],
  ])('%s takes the user-token requirement as an option, sending nothing without one', async (_name, make) => {
    server.use(http.get(`${BASE}/orders`, () => HttpResponse.json({ orders: [] })));
    const { core } = makeCore();
    const list = make(core);
    await expect(list).rejects.toBeInstanceOf(MissingUserTokenError);
    await expect(list.withResponse()).rejects.toBeInstanceOf(MissingUserTokenError);
    expect(seen).toHaveLength(0);
    await expect(make(core.withOptions({ userToken: 'user-1' }))).resolves.toMatchObject({ orders: [] });
    expect(seen[0]?.headers.get('service-user-token')).toBe('user-1');
  });
});

describe('PagePromise', () => {
  it('works with any page fetcher and stops on a repeated cursor', async () => {
    const calls: Array<string | undefined> = [];
    const page = (data: Page<number>) => ({
      data,
      response: new Response(),
      requestId: null,
      idempotentReplayed: false,
    });
    const pages = new PagePromise<number>(async (after) => {
      calls.push(after);
      if (after === undefined) return page({ items: [1, 2], has_more: true, next_after: 'x' });
      return page({ items: [3], has_more: true, next_after: 'x' });
    });
    const items: number[] = [];
    for await (const n of pages) items.push(n);
    expect(items).toEqual([1, 2, 3]);
    expect(calls).toEqual([undefined, 'x']);
  });
});
