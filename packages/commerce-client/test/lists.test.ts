import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Merchant } from '../src/index.js';
import { BASE, makeClient, seen, server, useServer } from './helpers.js';

useServer();

const merchant = (id: string): Merchant => ({
  id,
  name: id,
  domain: `${id}.shops.sandbox.test`,
  tier: 'protocol',
  route: 'ucp',
  category: null,
  requires_connection: false,
  capabilities: { offers: true, checkout: true, orders: true },
  status: 'healthy',
});

/** Three pages of merchants behind opaque cursors, as the server pages its catalog. */
function threePages(): void {
  const pages: Record<string, { merchants: Merchant[]; next_after: string | null }> = {
    '': { merchants: [merchant('a'), merchant('b')], next_after: 'cur_b' },
    cur_b: { merchants: [merchant('c'), merchant('d')], next_after: 'cur_d' },
    cur_d: { merchants: [merchant('e')], next_after: null },
  };
  server.use(
    http.get(`${BASE}/merchants`, ({ request }) => {
      const page = pages[new URL(request.url).searchParams.get('after') ?? ''];
      if (!page) return HttpResponse.json({ error: { code: 'INVALID_REQUEST' } }, { status: 400 });
      return HttpResponse.json({ ...page, has_more: page.next_after !== null });
    }),
  );
}

const queries = () => seen.map((r) => Object.fromEntries(new URL(r.url).searchParams));

describe('merchants.list', () => {
  it('walks every page with for await, sending q and limit on each', async () => {
    threePages();
    const { client } = makeClient();
    const ids: string[] = [];
    for await (const m of client.merchants.list({ q: 'shops', limit: 2 })) ids.push(m.id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(queries()).toEqual([
      { q: 'shops', limit: '2' },
      { q: 'shops', limit: '2', after: 'cur_b' },
      { q: 'shops', limit: '2', after: 'cur_d' },
    ]);
  });

  it('.pages() gives each page with its merchants, has_more and next_after', async () => {
    threePages();
    const { client } = makeClient();
    const pages = [];
    for await (const page of client.merchants.list().pages()) {
      pages.push([page.merchants.map((m) => m.id), page.items.length, page.has_more, page.next_after]);
    }
    expect(pages).toEqual([
      [['a', 'b'], 2, true, 'cur_b'],
      [['c', 'd'], 2, true, 'cur_d'],
      [['e'], 1, false, null],
    ]);
  });

  it('firstPage() and await fetch one page only; `after` starts from a saved cursor', async () => {
    threePages();
    const { client } = makeClient();
    const first = await client.merchants.list().firstPage();
    expect(first.merchants.map((m) => m.id)).toEqual(['a', 'b']);
    const awaited = await client.merchants.list({ after: first.next_after ?? undefined });
    expect(awaited.items.map((m) => m.id)).toEqual(['c', 'd']);
    expect(seen).toHaveLength(2);
  });

  it('stops breaking early from for await without fetching more pages', async () => {
    threePages();
    const { client } = makeClient();
    for await (const m of client.merchants.list()) {
      if (m.id === 'b') break;
    }
    expect(seen).toHaveLength(1);
  });
});

describe('orders.list and connections.list', () => {
  it('iterate the whole list from one request', async () => {
    server.use(
      http.get(`${BASE}/orders`, () =>
        HttpResponse.json(
          { orders: [{ id: 'ord_2' }, { id: 'ord_1' }] },
          { headers: { 'service-request-id': 'r1' } },
        ),
      ),
      http.get(`${BASE}/connections`, () => HttpResponse.json({ connections: [{ id: 'con_1' }] })),
    );
    const { user } = makeClient();
    const ids: string[] = [];
    for await (const order of user.orders.list()) ids.push(order.id);
    expect(ids).toEqual(['ord_2', 'ord_1']);
    const page = await user.connections.list();
    expect(page.connections.map((c) => c.id)).toEqual(['con_1']);
    expect(page.has_more).toBe(false);
    const pages = [];
    for await (const p of user.orders.list().pages()) pages.push(p.orders.length);
    expect(pages).toEqual([2]);
  });

  it('fails loudly when the list key is missing', async () => {
    server.use(http.get(`${BASE}/orders`, () => HttpResponse.json({ data: [] })));
    const { user } = makeClient();
    await expect(user.orders.list()).rejects.toThrow(/no "orders" array/);
  });
});
