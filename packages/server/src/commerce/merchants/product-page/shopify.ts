import { checkpoint, countWork, readAtOnce, type Steps } from '../../../platform/sliced/work.js';
import { buildOfferSteps } from './build-offer.js';
import { resolveImageUrl } from './html-sources.js';
import { currencyDigits, normalizeCurrency } from './money.js';
import type { OfferReading, ProductPageResult } from './types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const id = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : str(v));

export interface ShopifyReadOptions {
  /**
   * The store's currency. `/products/<handle>.js` does not say it: take it from the product page
   * (`product:price:currency`, JSON-LD `priceCurrency`) or from `/cart.js`'s `currency`.
   */
  currency: string;
}

/**
 * Reads Shopify's `/products/<handle>.js`. Its prices are integers in the currency's minor unit
 * (12900 = 129.00 USD; 1000 = ¥1,000; 12500 = 12.500 KWD), and each variant says `available`.
 * The variant is chosen from the page URL's `?variant=` (or `?sku=`); without one, the first.
 */
export function readShopifyProductJson(
  json: unknown,
  pageUrl: string,
  options: ShopifyReadOptions,
): ProductPageResult {
  return readAtOnce(readShopifySteps(json, pageUrl, options));
}

/** `readShopifyProductJson` in slices (run it with `readSliced`, work.ts). */
export function* readShopifySteps(
  json: unknown,
  pageUrl: string,
  options: ShopifyReadOptions,
): Steps<ProductPageResult> {
  const currency = normalizeCurrency(options.currency);
  if (!currency || currencyDigits(currency) === null) {
    return {
      ok: false,
      reason: 'UNREADABLE_PRICE',
      message: `'${options.currency}' is not a currency code.`,
    };
  }
  if (!isObject(json) || !Array.isArray(json.variants)) {
    return { ok: false, reason: 'NO_PRICE', message: 'The Shopify product JSON has no variants.' };
  }
  const offers: OfferReading[] = [];
  for (const v of json.variants) {
    countWork();
    yield* checkpoint();
    if (!isObject(v)) continue;
    const price = v.price;
    const readable = typeof price === 'number' && Number.isSafeInteger(price) && price >= 0;
    offers.push({
      variantId: id(v.id),
      sku: str(v.sku),
      title: str(v.title) ?? str(v.name),
      prices: readable ? [{ amount: price, currency }] : [],
      priceError:
        readable || price === undefined || price === null
          ? null
          : `The variant price ${JSON.stringify(price)} is not an integer amount.`,
      availability: v.available === true ? 'in_stock' : v.available === false ? 'out_of_stock' : 'unknown',
    });
  }
  const featured = isObject(json.featured_image) ? json.featured_image.src : json.featured_image;
  const firstImage = Array.isArray(json.images) ? json.images[0] : undefined;
  return yield* buildOfferSteps({
    product: {
      title: str(json.title),
      image: resolveImageUrl(str(featured) ?? str(firstImage), pageUrl),
      sku: null,
      productId: id(json.id),
      offers,
    },
    pageUrl,
    source: 'shopify-js',
  });
}

/**
 * Where a Shopify product page's JSON lives: `/products/<handle>` (also under a collection or a
 * locale prefix such as `/en-ca/`) → `<origin>/products/<handle>.js`. Null for other paths.
 */
export function shopifyProductJsonUrl(pageUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    return null;
  }
  const match = /\/products\/([^/?#]+?)(?:\.js|\.json)?\/?$/.exec(url.pathname);
  const handle = match?.[1];
  if (!handle || handle === '.' || handle === '..') return null;
  return `${url.origin}/products/${handle}.js`;
}
