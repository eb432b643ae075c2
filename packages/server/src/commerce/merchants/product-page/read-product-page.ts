import { buildOffer } from './build-offer.js';
import { type PageSources, readPageSources } from './html-sources.js';
import { findProductNodes, readJsonLdProduct } from './json-ld.js';
import { readOpenGraph } from './open-graph.js';
import type { ProductPageResult, ProductReading } from './types.js';

const sameProduct = (a: ProductReading, b: ProductReading) =>
  (a.sku !== null && a.sku === b.sku) ||
  (a.productId !== null && a.productId === b.productId) ||
  (a.title !== null && a.title === b.title);

/**
 * Reads the offer on a product page: schema.org JSON-LD first, Open Graph product tags for what
 * JSON-LD leaves out (or for everything when there is none). Pure: HTML in, result out.
 *
 * The page's product is the first JSON-LD Product with offers; other Product nodes that are the
 * same product (same SKU, productID or name, as when a theme and an app both emit one) add their
 * offers, so their prices are checked against each other. Other products (related items) are
 * ignored.
 */
export function readProductPage(html: string, pageUrl: string): ProductPageResult {
  return readProductSources(readPageSources(html), pageUrl);
}

/** `readProductPage` on a page already walked, for a caller that needs its sources too. */
export function readProductSources(sources: PageSources, pageUrl: string): ProductPageResult {
  const og = readOpenGraph(sources.meta, pageUrl);
  const products = findProductNodes(sources.jsonLd).map((node) => readJsonLdProduct(node, pageUrl));
  const main = products.find((p) => p.offers.length > 0) ?? products[0];

  if (!main) {
    return buildOffer({
      product: og,
      pageUrl,
      source: 'open-graph',
      fallbackTitle: sources.title,
    });
  }
  const offers = products.filter((p) => p === main || sameProduct(p, main)).flatMap((p) => p.offers);
  if (offers.length === 0) {
    // A Product without offers: its name and image, Open Graph's price and availability.
    return buildOffer({
      product: { ...main, offers: og.offers },
      pageUrl,
      source: 'open-graph',
      fallbackTitle: og.title ?? sources.title,
      fallbackImage: og.image,
    });
  }
  const merged: ProductReading = { ...main, offers };
  const jsonLdHasPrice = merged.offers.some((o) => o.prices.length > 0 || o.priceError);
  return buildOffer({
    product: merged,
    pageUrl,
    source: jsonLdHasPrice ? 'json-ld' : 'open-graph',
    fallbackTitle: og.title ?? sources.title,
    fallbackImage: og.image,
    pagePrices: og.offers.flatMap((o) => o.prices),
  });
}
