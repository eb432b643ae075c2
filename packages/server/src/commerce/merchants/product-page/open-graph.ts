import { checkpoint, countWork, type Steps } from '../../../platform/sliced/work.js';
import { readAvailability } from './availability.js';
import { resolveImageUrl } from './html-sources.js';
import { collectPrice, priceCollector } from './money.js';
import type { OfferReading, ProductReading } from './types.js';

/** The first non-empty value of the first key that has one (a scan of each list, once). */
function* first(meta: Map<string, string[]>, ...keys: string[]): Steps<string | null> {
  for (const key of keys) {
    for (const value of meta.get(key) ?? []) {
      countWork();
      yield* checkpoint();
      if (value !== '') return value;
    }
  }
  return null;
}

/**
 * Open Graph product tags as one product with one offer. Every amount tag counts: a page whose
 * `product:price:amount`, `og:price:amount` and `product:sale_price:amount` disagree shows
 * several prices, and the offer carries all of them so the caller refuses.
 */
export function* readOpenGraph(meta: Map<string, string[]>, pageUrl: string): Steps<ProductReading> {
  const offer: OfferReading = {
    variantId: null,
    sku: yield* first(meta, 'product:retailer_item_id'),
    title: null,
    prices: [],
    priceError: null,
    availability: readAvailability(yield* first(meta, 'product:availability', 'og:availability')),
  };
  const amounts = [
    ...(meta.get('product:price:amount') ?? []),
    ...(meta.get('og:price:amount') ?? []),
    ...(meta.get('product:sale_price:amount') ?? []),
  ].filter((a) => a !== '');
  const currency = yield* first(
    meta,
    'product:price:currency',
    'og:price:currency',
    'product:sale_price:currency',
  );
  const collected = priceCollector();
  for (const amount of amounts) {
    collectPrice(collected, amount, currency);
    yield* checkpoint();
  }
  offer.prices = collected.prices;
  offer.priceError = collected.error;
  let image: string | null = null;
  for (const key of ['og:image:secure_url', 'og:image', 'og:image:url', 'twitter:image']) {
    for (const raw of meta.get(key) ?? []) {
      countWork();
      yield* checkpoint();
      image ??= resolveImageUrl(raw, pageUrl);
    }
  }
  return {
    title: yield* first(meta, 'og:title', 'twitter:title'),
    image,
    sku: offer.sku,
    productId: null,
    offers: amounts.length || offer.availability !== 'unknown' ? [offer] : [],
  };
}
