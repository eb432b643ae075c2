import { createHash } from 'node:crypto';
import { AppError, invalidRequest } from '../../platform/errors.js';
import { sandboxOnly } from '../auth.js';
import type { CommerceContext } from '../context.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import { type CommerceStores, commerceStores } from '../db/stores.js';
import { joinLongTailStore } from '../merchants/long-tail/join.js';
import type { StorePageReads } from '../merchants/long-tail/read.js';
import {
  discoveredSandboxStore,
  REGISTRY,
  SANDBOX_DISCOVERY_SUFFIX,
  SANDBOX_STORES,
} from '../merchants/registry.js';
import { discoverUcpStore } from '../merchants/ucp/discovery.js';
import type { Merchant } from '../schemas/resources.js';

const BY_ID = new Map([...REGISTRY, ...SANDBOX_STORES].map((m) => [m.id, m]));
const BY_DOMAIN = new Map([...REGISTRY, ...SANDBOX_STORES].map((m) => [m.domain, m]));

const notFound = (id: string) => new AppError(404, 'NOT_FOUND', `No merchant with id '${id}'.`);

function visibleTo(env: CommerceEnv, m: Merchant): Merchant {
  if (m.sandbox && env !== 'sandbox') throw sandboxOnly();
  return m;
}

const matches = (m: Merchant, q: string) =>
  [m.name, m.domain, m.category ?? ''].some((field) => field.toLowerCase().includes(q));

interface Cursor {
  n: string;
  i: string;
}
const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(after: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as Cursor;
    // U+0000 is in no cursor this API returns, and PostgreSQL would refuse it (a 500, not a 400).
    if (typeof c.n === 'string' && typeof c.i === 'string' && !`${c.n}${c.i}`.includes('\u0000')) return c;
  } catch {
    // fall through to the error below
  }
  throw invalidRequest(
    "'after' is not a cursor this API returned; pass next_after from the previous page.",
    'after',
  );
}

/** First page: the registry (filtered by q), then catalog stores; later pages: catalog only. */
export async function listMerchants(
  ctx: CommerceContext,
  env: CommerceEnv,
  opts: { q?: string | undefined; limit: number; after?: string | undefined },
) {
  const q = opts.q?.trim().toLowerCase() || null;
  const after = opts.after ? decodeCursor(opts.after) : null;
  const registry = after
    ? []
    : [...REGISTRY, ...(env === 'sandbox' ? SANDBOX_STORES : [])].filter((m) => !q || matches(m, q));
  const page = await commerceStores(ctx.db).catalog.page({
    includeSandbox: env === 'sandbox',
    q,
    after: after && { name_key: after.n, id: after.i },
    limit: opts.limit,
  });
  const last = page.merchants.at(-1);
  return {
    merchants: [...registry, ...page.merchants.map(({ name_key: _k, ...m }) => m)],
    has_more: page.hasMore,
    next_after: page.hasMore && last ? encodeCursor({ n: last.name_key, i: last.id }) : null,
  };
}

/** `s` is the stores of the caller's transaction, or of the database outside one. */
export async function getMerchant(
  s: Pick<CommerceStores, 'catalog'>,
  env: CommerceEnv,
  id: string,
): Promise<Merchant> {
  const known = BY_ID.get(id);
  if (known) return visibleTo(env, known);
  const found = await s.catalog.get(id);
  if (!found) throw notFound(id);
  const { name_key: _k, ...m } = found;
  return visibleTo(env, m);
}

/** Every id must name a merchant this environment may use. */
export async function checkMerchantIds(
  s: Pick<CommerceStores, 'catalog'>,
  env: CommerceEnv,
  ids: string[],
  param: string,
) {
  for (const [i, id] of ids.entries()) {
    try {
      await getMerchant(s, env, id);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) {
        throw invalidRequest(`'${param}[${i}]': no merchant with id '${id}'.`, `${param}[${i}]`);
      }
      throw err;
    }
  }
}

export function parseProductUrl(raw: string, param: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest(`'${param}' must be an absolute product page URL.`, param);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidRequest(`'${param}' must be an http or https URL.`, param);
  }
  return url;
}

/**
 * The merchant behind a product link. An unlisted store that speaks the checkout protocol joins
 * the catalog here, on first use.
 */
export async function merchantForUrl(
  ctx: CommerceContext,
  env: CommerceEnv,
  url: URL,
  opts: { forOffer?: boolean; reads?: StorePageReads } = {},
): Promise<Merchant> {
  const domain = url.hostname.toLowerCase().replace(/^www\./, '');
  const usable = (m: Merchant) => {
    if (opts.forOffer && m.tier === 'major') {
      throw new AppError(
        422,
        'MERCHANT_NOT_SUPPORTED',
        `${m.name} is a major retailer: its prices are read in the user's browser, so there are no offers. Create the checkout with product_url instead.`,
        { param: 'url' },
      );
    }
    return checkEnv(env, m);
  };
  const known = BY_DOMAIN.get(domain);
  if (known) return usable(known);
  const stores = commerceStores(ctx.db);
  const listed = await stores.catalog.findByDomain(domain);
  if (listed) {
    const { name_key: _k, ...m } = listed;
    return usable(m);
  }
  if (domain.endsWith(SANDBOX_DISCOVERY_SUFFIX) && domain.length > SANDBOX_DISCOVERY_SUFFIX.length) {
    const hash = createHash('sha256').update(domain).digest().readUInt32BE(0);
    const m = usable(discoveredSandboxStore(domain, hash));
    await stores.catalog.insertIfNew(m, ctx.clock.now().toISOString());
    return m;
  }
  const ucp = env === 'live' ? await discoverUcpStore(ctx, env, url) : null;
  if (ucp) return usable(ucp);
  const longTail = env === 'live' ? await joinLongTailStore(ctx, env, url, opts.reads) : null;
  if (longTail) return usable(longTail);
  throw new AppError(
    422,
    'MERCHANT_NOT_SUPPORTED',
    `'${domain}' is not a supported store: it is not in the registry and no checkout protocol was found there.`,
    { param: 'url' },
  );
}

function checkEnv(env: CommerceEnv, m: Merchant): Merchant {
  if (m.sandbox && env !== 'sandbox') throw sandboxOnly();
  if (!m.sandbox && env === 'sandbox') {
    throw new AppError(
      422,
      'SANDBOX_MERCHANT_REQUIRED',
      `Sandbox keys buy only from sandbox stores; ${m.name} is a real store. Use a sandbox store (GET /v1/merchants) or a live key.`,
    );
  }
  // A listed store's status is fixed here; a catalog store's is observed, and merchants/health.ts
  // gates it with its backoff (and lets the probe through once the backoff has passed).
  if (m.status === 'down' && BY_ID.has(m.id)) {
    throw new AppError(
      503,
      'MERCHANT_UNAVAILABLE',
      `${m.name} is not answering right now. Try again later.`,
      {
        // Short, so a client's default retries settle within seconds rather than minutes.
        headers: { 'Retry-After': '5' },
      },
    );
  }
  return m;
}

/** Re-checks a merchant already on an offer or checkout: it may have gone down since. */
export const requireUsable = (env: CommerceEnv, m: Merchant) => checkEnv(env, m);
