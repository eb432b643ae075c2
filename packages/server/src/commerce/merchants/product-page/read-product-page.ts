import { checkpoint, readAtOnce, readSliced, type Steps } from '../../../platform/sliced/work.js';
import { buildOfferSteps } from './build-offer.js';
import { type PageSources, walkPageSources } from './html-sources.js';
import { findProductNodes, readJsonLdProduct } from './json-ld.js';
import { readOpenGraph } from './open-graph.js';
import type { OfferReading, ProductPageResult, ProductReading } from './types.js';

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
 *
 * Synchronous, for tests and small pages; the server reads a store's page with
 * `readProductPageSliced`, which gives the event loop a turn between slices of the same work.
 */
export function readProductPage(html: string, pageUrl: string): ProductPageResult {
  return readAtOnce(readPageSteps(html, pageUrl));
}

/** `readProductPage` in slices of bounded work, the event loop turning between them (work.ts). */
export function readProductPageSliced(html: string, pageUrl: string): Promise<ProductPageResult> {
  return readSliced(readPageSteps(html, pageUrl));
}

function* readPageSteps(html: string, pageUrl: string): Steps<ProductPageResult> {
  const sources = yield* walkPageSources(html);
  return yield* readProductSources(sources, yield* findProductNodes(sources.jsonLd), pageUrl);
}

/**
 * `readProductPage` on a page already walked and its JSON-LD Product nodes already found
 * (`findProductNodes`), for a caller that needs them too; run it with `readSliced` (or `readAtOnce`).
 */
export function* readProductSources(
  sources: PageSources,
  productNodes: readonly Record<string, unknown>[],
  pageUrl: string,
): Steps<ProductPageResult> {
  const og = yield* readOpenGraph(sources.meta, pageUrl);
  const products: ProductReading[] = [];
  for (const node of productNodes) products.push(yield* readJsonLdProduct(node, pageUrl));
  const main = products.find((p) => p.offers.length > 0) ?? products[0];

  if (!main) {
    return yield* buildOfferSteps({
      product: og,
      pageUrl,
      source: 'open-graph',
      fallbackTitle: sources.title,
    });
  }
  const offers: OfferReading[] = [];
  for (const p of products) {
    if (p !== main && !sameProduct(p, main)) continue;
    for (const offer of p.offers) offers.push(offer);
    yield* checkpoint();
  }
  if (offers.length === 0) {
    // A Product without offers: its name and image, Open Graph's price and availability.
    return yield* buildOfferSteps({
      product: { ...main, offers: og.offers },
      pageUrl,
      source: 'open-graph',
      fallbackTitle: og.title ?? sources.title,
      fallbackImage: og.image,
    });
  }
  const merged: ProductReading = { ...main, offers };
  const jsonLdHasPrice = merged.offers.some((o) => o.prices.length > 0 || o.priceError);
  return yield* buildOfferSteps({
    product: merged,
    pageUrl,
    source: jsonLdHasPrice ? 'json-ld' : 'open-graph',
    fallbackTitle: og.title ?? sources.title,
    fallbackImage: og.image,
    pagePrices: og.offers.flatMap((o) => o.prices),
  });
}
