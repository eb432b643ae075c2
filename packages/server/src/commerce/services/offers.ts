import { AppError, invalidRequest } from '../../platform/errors.js';
import { withSlicedJson } from '../../platform/sliced/kept-json.js';
import type { CommerceContext, Tenant } from '../context.js';
import { commerceStores } from '../db/stores.js';
import type { Product, StoreAdapter } from '../merchants/adapter.js';
import { adapterFor } from '../merchants/index.js';
import type { StorePageReads } from '../merchants/long-tail/read.js';
import type { Merchant, Offer } from '../schemas/resources.js';
import { merchantForUrl, parseProductUrl } from './merchants.js';

export const OFFER_TTL_MS = 15 * 60_000;

/**
 * The product behind the link, `itemRef`'s variant first when one is named. A store with nothing
 * to read at the link (a headless UCP store) is asked to price the named item itself.
 */
async function productFor(
  adapter: StoreAdapter,
  merchant: Merchant,
  url: string,
  itemRef: string | undefined,
  offerId: string,
): Promise<Product> {
  let product: Product;
  try {
    product = await adapter.product(merchant, url);
  } catch (err) {
    const headless =
      itemRef && adapter.priceItem && err instanceof AppError && err.code === 'PRODUCT_NOT_FOUND';
    if (!headless) throw err;
    return adapter.priceItem?.(merchant, url, itemRef, offerId) as Promise<Product>;
  }
  if (!itemRef) return product;
  const named = product.variants.find((v) => v.item_ref === itemRef);
  if (!named) throw notAVariant(itemRef, product.variants, ', or leave it out');
  return { ...product, variants: [named, ...product.variants.filter((v) => v !== named)] };
}

/** How many of a product's variants a refusal names; the rest are counted. */
const VARIANTS_NAMED = 5;
const REF_SHOWN_CHARS = 100;

/**
 * 400 for an `item_ref` that is not one of `variants`. A store chooses how many variants a product
 * has (a page may list 40,000) and how long their ids are: the message names a few and counts the
 * rest, so the store cannot make our error answer as large as its page.
 */
export function notAVariant(itemRef: string, variants: { item_ref: string }[], hint = ''): AppError {
  const shown = variants
    .slice(0, VARIANTS_NAMED)
    .map((v) =>
      v.item_ref.length > REF_SHOWN_CHARS ? `${v.item_ref.slice(0, REF_SHOWN_CHARS)}…` : v.item_ref,
    );
  const more = variants.length - shown.length;
  const list = `${shown.join(', ')}${more > 0 ? ` and ${more} more (the offer's variants list them all)` : ''}`;
  return invalidRequest(
    `'item_ref' ${itemRef} is not a variant of this product; use one of ${list}${hint}.`,
    'item_ref',
  );
}

export async function createOffer(
  ctx: CommerceContext,
  tenant: Tenant,
  rawUrl: string,
  itemRef?: string,
): Promise<Offer> {
  const url = parseProductUrl(rawUrl, 'url');
  // A store joining the catalog on first use has its page read for the join: the offer reuses it.
  const reads: StorePageReads = new Map();
  const merchant = await merchantForUrl(ctx, tenant.env, url, { forOffer: true, reads });
  const id = ctx.ids.make('ofr');
  const adapter = adapterFor(ctx, merchant, tenant.env, reads);
  const product = await productFor(adapter, merchant, url.href, itemRef, id);
  const selected = product.variants[0];
  if (!selected)
    throw new AppError(422, 'PRODUCT_NOT_FOUND', 'The store has no purchasable variant at this link.');
  const fetched = ctx.clock.now();
  const offer: Offer = {
    id,
    merchant_id: merchant.id,
    url: url.href,
    title: product.title,
    price: selected.price,
    availability: selected.availability,
    item_ref: selected.item_ref,
    image_url: product.image_url,
    variants: product.variants,
    fetched_at: fetched.toISOString(),
    expires_at: new Date(fetched.getTime() + OFFER_TTL_MS).toISOString(),
  };
  // Every variant of the page is in the offer (4.5 MB of JSON for 47,000): its text is written
  // once, in slices, and the stored row, the answer and the idempotency record all reuse it.
  await withSlicedJson(offer);
  await commerceStores(ctx.db).offers.insert(tenant, offer);
  return offer;
}

export async function getOffer(ctx: CommerceContext, tenant: Tenant, id: string): Promise<Offer> {
  const offer = await commerceStores(ctx.db).offers.get(tenant, id);
  if (!offer) throw new AppError(404, 'NOT_FOUND', `No offer with id '${id}'.`);
  return offer;
}
