import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { ApiError, type Page, paginate } from '../src/index.js';
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

describe('paginate()', () => {
  it('works with any page fetcher and stops on a repeated cursor', async () => {
    const calls: Array<string | undefined> = [];
    const pages = paginate<number>(async (after): Promise<Page<number>> => {
      calls.push(after);
      if (after === undefined) return { items: [1, 2], has_more: true, next_after: 'x' };
      return { items: [3], has_more: true, next_after: 'x' };
    });
    const items: number[] = [];
    for await (const n of pages) items.push(n);
    expect(items).toEqual([1, 2, 3]);
    expect(calls).toEqual([undefined, 'x']);
  });
});
