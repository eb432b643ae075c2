import type { CommerceContext } from '../../context.js';
import type { CommerceEnv } from '../../db/api-keys-store.js';
import { commerceStores } from '../../db/stores.js';
import type { Merchant } from '../../schemas/resources.js';
import { CAPABILITIES } from '../registry.js';
import { readOnce, readStorePage, type StorePageReads } from './read.js';

/**
 * A store with no commerce protocol whose link is a product page joins the catalog on first use,
 * as a `long_tail` store on the `browser` route. Null when the page describes no product (the
 * caller answers MERCHANT_NOT_SUPPORTED); a store that cannot be reached is an error.
 * Live keys only: the sandbox never touches the network. The page read is kept in `reads`, where
 * the request's adapter finds it for the offer or quote.
 */
export async function joinLongTailStore(
  ctx: CommerceContext,
  env: CommerceEnv,
  url: URL,
  reads: StorePageReads = new Map(),
): Promise<Merchant | null> {
  if (env !== 'live') return null;
  const page = await readOnce(reads, url.href, () => readStorePage(ctx, url.href));
  if (!page.isProductPage) return null;
  const domain = url.hostname.toLowerCase().replace(/^www\./, '');
  const stores = commerceStores(ctx.db);
  await stores.catalog.insertIfNew(
    {
      id: `lt_${domain}`,
      name: page.siteName ?? domain,
      domain,
      tier: 'long_tail',
      route: 'browser',
      category: null,
      requires_connection: false,
      capabilities: CAPABILITIES.long_tail,
      status: 'healthy',
    },
    ctx.clock.now().toISOString(),
  );
  // Another request may have joined it first: the catalog's row is the merchant.
  const joined = await stores.catalog.findByDomain(domain);
  if (!joined) return null;
  const { name_key: _k, ...merchant } = joined;
  return merchant;
}
