import { AppError } from '../../platform/errors.js';
import type { CommerceContext, Tenant } from '../context.js';
import { commerceStores } from '../db/stores.js';
import { adapterFor } from '../merchants/index.js';
import type { Offer } from '../schemas/resources.js';
import { merchantForUrl, parseProductUrl } from './merchants.js';

export const OFFER_TTL_MS = 15 * 60_000;

export async function createOffer(ctx: CommerceContext, tenant: Tenant, rawUrl: string): Promise<Offer> {
  const url = parseProductUrl(rawUrl, 'url');
  const merchant = await merchantForUrl(ctx, tenant.env, url, { forOffer: true });
  const product = await adapterFor(ctx, merchant, tenant.env).product(merchant, url.href);
  const selected = product.variants[0];
  if (!selected)
    throw new AppError(422, 'PRODUCT_NOT_FOUND', 'The store has no purchasable variant at this link.');
  const fetched = ctx.clock.now();
  const offer: Offer = {
    id: ctx.ids.make('ofr'),
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
  await commerceStores(ctx.db).offers.insert(tenant, offer);
  return offer;
}

export async function getOffer(ctx: CommerceContext, tenant: Tenant, id: string): Promise<Offer> {
  const offer = await commerceStores(ctx.db).offers.get(tenant, id);
  if (!offer) throw new AppError(404, 'NOT_FOUND', `No offer with id '${id}'.`);
  return offer;
}
