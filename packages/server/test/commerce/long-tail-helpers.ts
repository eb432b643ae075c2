import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { as, type Call } from './helpers.js';
import { fromHtml, openForm, submit } from './hosted-forms.js';

export const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/product-pages/${name}`, import.meta.url), 'utf8');

export type Page = { type?: string; body: string };

export interface LocalStore {
  /** `http://<host>:<port>` */
  origin: string;
  /** Every path (with query) the store was asked for, in order. */
  hits: string[];
  /**
   * `up` answers the pages; `error` answers 503 to everything; `reset` drops every connection;
   * `hold` keeps each request waiting until `release()`, which answers them 503.
   */
  mode: 'up' | 'error' | 'reset' | 'hold';
  /** Resolves once `n` requests are being held. */
  held(n: number): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

/** A long-tail store on loopback: pages by path (query ignored), 404 for anything else. */
export async function startLocalStore(pages: Record<string, Page>, host = '127.0.0.1'): Promise<LocalStore> {
  const holding: ServerResponse[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const store: LocalStore = {
    origin: '',
    hits: [],
    mode: 'up',
    held: (n) =>
      new Promise((resolve) => {
        if (holding.length >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    release: () => {
      for (const res of holding.splice(0)) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('maintenance');
      }
    },
    close: async () => undefined,
  };
  const server = createServer((req: IncomingMessage, res) => {
    store.hits.push(req.url ?? '/');
    if (store.mode === 'hold') {
      holding.push(res);
      for (const w of waiters.filter((x) => holding.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      return;
    }
    if (store.mode === 'reset') {
      req.socket.destroy();
      return;
    }
    if (store.mode === 'error') {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('maintenance');
      return;
    }
    const page = pages[new URL(req.url ?? '/', 'http://local').pathname];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': page.type ?? 'text/html; charset=utf-8' });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  store.origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  store.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return store;
}

/** A live user through the hosted approval page, as a person would approve it. */
export async function liveUser(svc: { url: string }, key: string): Promise<Call> {
  const call = as(svc, key);
  const approval = await call('POST', '/v1/approval_tokens', {
    client_user_id: 'long-tail-user',
    redirect_uri: 'https://app.example/callback',
    rules: { max_per_order: 1_000_000 },
  });
  if (approval.status !== 201) throw new Error(`approval_tokens: ${JSON.stringify(approval.body)}`);
  const form = await openForm(approval.body.hosted_url);
  const res = await submit(svc.url, form.action as string, [
    ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
    ['decision', 'approve'],
  ]);
  const publicToken = new URL(res.headers.get('location') as string).searchParams.get('public_token');
  const ex = await call('POST', '/v1/approval_tokens/exchange', { public_token: publicToken });
  if (ex.status !== 200) throw new Error(`exchange: ${JSON.stringify(ex.body)}`);
  return as(svc, key, ex.body.user_token);
}

/** A Shopify product page: Open Graph tags with the store's currency, and its `/products/<handle>.js`. */
export function shopifyPages(handle: string, json: unknown, currency: string): Record<string, Page> {
  return {
    [`/products/${handle}`]: {
      body: `<!doctype html><html><head><title>${handle}</title>
<meta property="og:site_name" content="Rain Coat Co">
<meta property="og:type" content="product">
<meta property="og:title" content="Red Rain Coat">
<meta property="product:price:currency" content="${currency}">
</head><body>Shopify.theme</body></html>`,
    },
    [`/products/${handle}.js`]: { type: 'application/javascript', body: JSON.stringify(json) },
  };
}
