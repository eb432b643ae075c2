import { AppError } from '../../../platform/errors.js';
import { parseOutsideJsonSteps } from '../../../platform/sliced/json.js';
import { readSliced } from '../../../platform/sliced/work.js';
import type { CommerceContext } from '../../context.js';
import { storeError } from '../health.js';
import { type PageSources, walkPageSources } from '../product-page/html-sources.js';
import {
  type FetchPageDeps,
  type FetchPageResult,
  fetchProductPage,
  type ProductPageResult,
  readProductSources,
  readShopifySteps,
  shopifyProductJsonUrl,
} from '../product-page/index.js';
import { findProductNodes } from '../product-page/json-ld.js';
import { formatMoney, normalizeCurrency, sameMoney } from '../product-page/money.js';
import { storeFetchOptions } from '../store-fetch.js';

/** What a long-tail store's product link shows, read once. */
export interface StorePage {
  /** The page's final URL, after redirects. */
  url: string;
  /** The page describes a product (JSON-LD Product, Open Graph product tags, or Shopify's product JSON). */
  isProductPage: boolean;
  /** The store's own name (`og:site_name`, `application-name`), when the page gives one. */
  siteName: string | null;
  /** The offer, or why the reader refused to guess one. */
  result: ProductPageResult;
  /** A Shopify store: the variant ids its `/products/<handle>.js` lists. Null for other stores. */
  shopifyVariantIds: string[] | null;
}

/** A failed fetch as the API error it is: the store's own failures count against its health. */
function fetchError(page: Extract<FetchPageResult, { ok: false }>): AppError {
  switch (page.reason) {
    case 'URL_NOT_ALLOWED':
      return new AppError(400, 'URL_NOT_ALLOWED', page.message, { param: 'url' });
    case 'TIMEOUT':
      return storeError('timeout', `The store did not answer in time: ${page.message}`);
    case 'HTTP_STATUS':
      if (page.status === 404 || page.status === 410) {
        return new AppError(
          422,
          'PRODUCT_NOT_FOUND',
          `The store has no product at this link (${page.message})`,
        );
      }
      return storeError('failure', `The store could not serve the product page: ${page.message}`);
    case 'PAGE_TOO_LARGE':
    case 'TOO_MANY_REDIRECTS':
      return new AppError(422, 'PRODUCT_PAGE_UNREADABLE', page.message);
    default:
      return storeError('failure', page.message);
  }
}

const meta = (sources: PageSources, ...keys: string[]) => {
  for (const key of keys) {
    const value = sources.meta.get(key)?.find((v) => v !== '');
    if (value) return value;
  }
  return null;
};

const PRICE_TAGS = ['product:price:amount', 'og:price:amount', 'product:sale_price:amount'];

function describesProduct(sources: PageSources, productNodes: readonly unknown[]): boolean {
  if (productNodes.length > 0) return true;
  if ((sources.meta.get('og:type') ?? []).some((t) => t.toLowerCase().includes('product'))) return true;
  return PRICE_TAGS.some((k) => sources.meta.has(k));
}

async function fetchJson(url: string, deps: FetchPageDeps): Promise<Record<string, unknown> | null> {
  const res = await fetchProductPage(url, deps);
  if (!res.ok) return null;
  try {
    const json: unknown = await readSliced(parseOutsideJsonSteps(res.body));
    return typeof json === 'object' && json !== null && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Shopify's `/products/<handle>.js`, when the link is a Shopify product link and the store serves
 * one. Its prices are per variant in minor units; the file does not name the currency, so it comes
 * from the page, or from `/cart.js`.
 */
async function readShopify(
  pageUrl: string,
  fromPage: ProductPageResult,
  sources: PageSources,
  deps: FetchPageDeps,
): Promise<{ result: ProductPageResult; variantIds: string[] } | null> {
  const jsUrl = shopifyProductJsonUrl(pageUrl);
  if (!jsUrl) return null;
  const json = await fetchJson(jsUrl, deps);
  if (!json || !Array.isArray(json.variants)) return null;
  const currency =
    (fromPage.ok ? fromPage.offer.price.currency : null) ??
    normalizeCurrency(meta(sources, 'product:price:currency', 'og:price:currency')) ??
    normalizeCurrency((await fetchJson(`${new URL(jsUrl).origin}/cart.js`, deps))?.currency);
  const variantIds = json.variants.flatMap((v) => {
    const id = (v as { id?: unknown } | null)?.id;
    return typeof id === 'number' || typeof id === 'string' ? [String(id)] : [];
  });
  if (!currency) {
    return {
      variantIds,
      result: {
        ok: false,
        reason: 'UNREADABLE_PRICE',
        message: "The store's product JSON has prices but neither it nor the page names their currency.",
      },
    };
  }
  const read = await readSliced(readShopifySteps(json, pageUrl, { currency }));
  return { variantIds, result: agreeWithPage(read, fromPage) };
}

/**
 * The product JSON and the page must not disagree on the selected variant's price (a theme showing
 * another currency or a stale price): two prices for one variant is a refusal, never a choice.
 */
function agreeWithPage(shopify: ProductPageResult, fromPage: ProductPageResult): ProductPageResult {
  if (!shopify.ok || !fromPage.ok) return shopify;
  const selected = shopify.offer;
  const onPage = fromPage.offer.variants.find((v) => v.item_ref === selected.item_ref);
  if (!onPage || sameMoney(onPage.price, selected.price)) return shopify;
  return {
    ok: false,
    reason: 'AMBIGUOUS_PRICE',
    message: `The store's product JSON says ${formatMoney(selected.price)} for variant ${selected.item_ref} but the page says ${formatMoney(onPage.price)}; check the store.`,
  };
}

/**
 * Fetches a product link through the store fetch (SSRF guard, size cap, timeout) and reads it:
 * Shopify's product JSON where the store serves one (the store's own per-variant prices), else
 * the page's JSON-LD and Open Graph tags. Throws the API error for a failed fetch.
 */
export async function readStorePage(ctx: Pick<CommerceContext, 'config'>, url: string): Promise<StorePage> {
  const deps: FetchPageDeps = storeFetchOptions(ctx.config);
  const page = await fetchProductPage(url, deps);
  if (!page.ok) throw fetchError(page);
  // The page is walked once; the reader and the checks below share what it found. Both in slices,
  // so that a store's 3 MiB page does not hold the event loop (platform/sliced/work.ts).
  // The JSON-LD blocks are parsed once too (the longest step the reader cannot cut), and their
  // Product nodes serve both the offer and the question whether the page describes a product.
  const sources = await readSliced(walkPageSources(page.body));
  const productNodes = await readSliced(findProductNodes(sources.jsonLd));
  const fromPage = await readSliced(readProductSources(sources, productNodes, page.url));
  const shopify = await readShopify(page.url, fromPage, sources, deps);
  const siteName = meta(sources, 'og:site_name', 'application-name');
  return {
    url: page.url,
    isProductPage: shopify !== null || describesProduct(sources, productNodes),
    siteName: siteName ? siteName.slice(0, 100) : null,
    result: shopify?.result ?? fromPage,
    shopifyVariantIds: shopify?.variantIds ?? null,
  };
}

/**
 * The store pages one request has read, by link. A link from a store not yet in the catalog is
 * read to decide whether it joins (join.ts) and then for its offer or quote (adapter.ts); a
 * checkout by link asks for the product and then for the quote. One map per request, passed to
 * each, so the page is fetched and parsed once; never kept past the request, so never stale.
 */
export type StorePageReads = Map<string, Promise<StorePage>>;

/** The link's page from `reads`, or `read()`'s, kept there for the rest of the request. */
export function readOnce(
  reads: StorePageReads,
  url: string,
  read: () => Promise<StorePage>,
): Promise<StorePage> {
  let page = reads.get(url);
  if (!page) {
    page = read();
    reads.set(url, page);
  }
  return page;
}
