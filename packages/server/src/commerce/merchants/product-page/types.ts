import type { Availability, Money } from '../../schemas/common.js';
import type { Variant } from '../../schemas/resources.js';

export type ProductPageSource = 'json-ld' | 'open-graph' | 'shopify-js';

/** The parts of an Offer a product page gives us. */
export interface ProductPageOffer {
  title: string;
  price: Money;
  availability: Availability;
  /** The store's id for the selected variant (Shopify variant id, SKU, or the page URL when there is none). */
  item_ref: string;
  image_url: string | null;
  variants: Variant[];
  /** Where the price came from. */
  source: ProductPageSource;
}

export type ProductPageRefusal =
  /** Several different prices for the selected variant: the reader does not guess which one is charged. */
  | 'AMBIGUOUS_PRICE'
  /** No price for the selected variant anywhere on the page. */
  | 'NO_PRICE'
  /** A price is there but in a form the reader does not accept (decimal comma, symbol, too many decimals). */
  | 'UNREADABLE_PRICE'
  /** The URL names a variant (`?variant=`, `?sku=`) that the page does not list. */
  | 'VARIANT_NOT_FOUND';

export type ProductPageResult =
  | { ok: true; offer: ProductPageOffer }
  | { ok: false; reason: ProductPageRefusal; message: string };

/** One offer as a source states it, before variants are grouped and chosen. */
export interface OfferReading {
  /** The store's variant id (Shopify's `?variant=` in the offer URL, or its numeric id). */
  variantId: string | null;
  sku: string | null;
  title: string | null;
  /** Every price this offer states (several for a price range or conflicting specifications). */
  prices: Money[];
  /** Why a stated price could not be read, if one could not. */
  priceError: string | null;
  availability: Availability;
}

/** One product as a source describes it. */
export interface ProductReading {
  title: string | null;
  image: string | null;
  sku: string | null;
  productId: string | null;
  offers: OfferReading[];
}
