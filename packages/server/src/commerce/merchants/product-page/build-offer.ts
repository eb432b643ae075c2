import { checkpoint, countWork, readAtOnce, type Steps } from '../../../platform/sliced/work.js';
import type { Money } from '../../schemas/common.js';
import type { Variant } from '../../schemas/resources.js';
import { formatMoney, moneyKey } from './money.js';
import type { ProductPageResult, ProductPageSource, ProductReading } from './types.js';
import { groupOffers, selectorFromUrl, selectVariant, type VariantGroup } from './variant-selection.js';

/** How many of the conflicting prices a refusal names; the rest are counted. */
const PRICES_NAMED = 5;

const listPrices = (prices: Money[]) =>
  prices.length <= PRICES_NAMED
    ? prices.map(formatMoney).join(', ')
    : `${prices.slice(0, PRICES_NAMED).map(formatMoney).join(', ')} and ${prices.length - PRICES_NAMED} more`;

/** The page URL without its fragment: the item_ref of a product that names no id at all. */
function pageRef(pageUrl: string): string {
  try {
    const url = new URL(pageUrl);
    url.hash = '';
    return url.href;
  } catch {
    return pageUrl;
  }
}

export interface BuildInput {
  product: ProductReading;
  pageUrl: string;
  source: ProductPageSource;
  /** Title and image from a second source, for fields the first leaves empty. */
  fallbackTitle?: string | null;
  fallbackImage?: string | null;
  /**
   * Prices another source on the page states for the product as a whole (Open Graph). They are
   * checked against the selected variant only when the product has a single variant: with several,
   * a page-wide price cannot be tied to one of them.
   */
  pagePrices?: Money[];
}

const refusal = (
  reason: 'AMBIGUOUS_PRICE' | 'NO_PRICE' | 'UNREADABLE_PRICE' | 'VARIANT_NOT_FOUND',
  message: string,
) => ({ ok: false, reason, message }) as const;

/** Groups the offers into variants, chooses one from the URL, and refuses to guess a price. */
export function buildOffer(input: BuildInput): ProductPageResult {
  return readAtOnce(buildOfferSteps(input));
}

/** `buildOffer` in slices. */
export function* buildOfferSteps(input: BuildInput): Steps<ProductPageResult> {
  const { product, pageUrl } = input;
  const groups = yield* groupOffers(product.offers);
  const refOf = (g: VariantGroup) =>
    g.variantId ??
    g.sku ??
    (groups.length === 1 ? (product.sku ?? product.productId) : null) ??
    pageRef(pageUrl);

  if (groups.length === 0) {
    const page = input.pagePrices ?? [];
    if (page.length === 0) return refusal('NO_PRICE', 'The page states no price for this product.');
    groups.push({
      variantId: null,
      sku: product.sku,
      title: null,
      prices: [],
      priceError: null,
      availability: 'unknown',
    });
  }
  const selection = yield* selectVariant(groups, selectorFromUrl(pageUrl));
  if (!selection.ok) return refusal('VARIANT_NOT_FOUND', selection.message);
  const selected = selection.group;

  // A price the page states but the reader cannot read might be the one charged: no guessing.
  if (selected.priceError) return refusal('UNREADABLE_PRICE', selected.priceError);
  let prices = selected.prices;
  if (groups.length === 1 && input.pagePrices?.length) {
    prices = [...prices];
    const seen = new Set(prices.map(moneyKey));
    for (const p of input.pagePrices) {
      countWork();
      yield* checkpoint();
      if (seen.has(moneyKey(p))) continue;
      seen.add(moneyKey(p));
      prices.push(p);
    }
  }
  if (prices.length > 1) {
    return refusal(
      'AMBIGUOUS_PRICE',
      `The page shows ${prices.length} different prices for the selected variant (${listPrices(prices)}); ` +
        "open the variant's own URL (?variant= or ?sku=) or check the store.",
    );
  }
  const price = prices[0];
  if (!price) return refusal('NO_PRICE', 'The page states no price for the selected variant.');

  const title = product.title ?? input.fallbackTitle ?? selected.title;
  const variants: Variant[] = [];
  for (const g of groups) {
    countWork();
    yield* checkpoint();
    const only = g === selected ? price : g.prices.length === 1 ? g.prices[0] : undefined;
    if (only)
      variants.push({
        item_ref: refOf(g),
        title: g.title ?? title ?? refOf(g),
        price: only,
        availability: g.availability,
      });
  }
  return {
    ok: true,
    offer: {
      title: title ?? pageRef(pageUrl),
      price,
      availability: selected.availability,
      item_ref: refOf(selected),
      image_url: product.image ?? input.fallbackImage ?? null,
      variants,
      source: input.source,
    },
  };
}
