import { parseOutsideJsonSteps } from '../../../platform/sliced/json.js';
import { checkpoint, countWork, type Steps } from '../../../platform/sliced/work.js';
import { readAvailability } from './availability.js';
import { resolveImageUrl } from './html-sources.js';
import { collectPrice, priceCollector } from './money.js';
import type { OfferReading, ProductReading } from './types.js';
import { variantIdFromUrl } from './variant-selection.js';

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A value that may be one item or a list of them, as a list, not yet walked (nothing counted). */
const items = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const list = (v: unknown): unknown[] => {
  const all = items(v);
  countWork(all.length + 1);
  return all;
};

/**
 * How deep the reader follows a page's nesting: products inside pages and graphs, an
 * AggregateOffer's offers, a name inside a name. Real pages nest a handful of levels; a bound keeps
 * a page nested a million levels deep from exhausting the stack of these recursive walks.
 */
const MAX_DEPTH = 20;

/** `Product`, `schema:Product`, `https://schema.org/Product` → `product`. */
function types(node: Node): string[] {
  return list(node['@type'])
    .filter((t): t is string => typeof t === 'string')
    .map((t) => {
      countWork(t.length);
      return t.slice(Math.max(t.lastIndexOf('/'), t.lastIndexOf(':'), t.lastIndexOf('#')) + 1).toLowerCase();
    });
}
const hasType = (node: Node, type: string) => types(node).includes(type);

function text(v: unknown, depth = 0): string | null {
  const first = list(v)[0];
  if (typeof first === 'string') {
    countWork(first.length);
    return first.trim() || null;
  }
  if (typeof first === 'number') return String(first);
  if (isNode(first) && depth < MAX_DEPTH) return text(first['@value'] ?? first.name, depth + 1);
  return null;
}

function image(v: unknown, pageUrl: string): string | null {
  for (const item of list(v)) {
    const raw = isNode(item) ? (item.url ?? item.contentUrl) : item;
    const url = resolveImageUrl(text(raw), pageUrl);
    if (url) return url;
  }
  return null;
}

/**
 * JSON, or undefined. Pages often put raw line breaks or tabs inside JSON-LD strings (a product
 * description pasted as is), which JSON forbids: they are read as spaces in the one parse, where a
 * failed strict parse and a second try used to parse such a block twice.
 */
function* parseBlock(block: string): Steps<unknown> {
  try {
    return yield* parseOutsideJsonSteps(block, { controlsAsSpaces: true });
  } catch {
    return undefined;
  }
}

/**
 * Parses each JSON-LD block and returns the Product nodes in it (top level, arrays, `@graph`,
 * or nested such as `WebPage.mainEntity`). A block that is not JSON is skipped.
 */
export function* findProductNodes(blocks: string[]): Steps<Node[]> {
  const found: Node[] = [];
  function* visit(value: unknown, depth: number): Steps<void> {
    countWork();
    yield* checkpoint();
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const v of value) yield* visit(v, depth + 1);
      return;
    }
    if (!isNode(value)) return;
    const t = types(value);
    if (t.includes('product') || t.includes('productgroup')) {
      found.push(value);
      return;
    }
    for (const child of Object.values(value)) yield* visit(child, depth + 1);
  }
  for (const block of blocks) {
    // A large block is parsed in slices too (platform/sliced/json.ts), and the walk of what it holds is cut
    // as usual.
    const parsed = yield* parseBlock(block);
    if (parsed !== undefined) yield* visit(parsed, 0);
  }
  return found;
}

/** Price types that are not what the buyer pays now. */
const NOT_THE_PRICE = /strikethrough|listprice|msrp|srp|minimumadvertised/i;

function* readOffer(
  offer: Node,
  inherited: { currency: unknown; sku: string | null; title: string | null; url: unknown },
  into: OfferReading[],
  depth = 0,
): Steps<void> {
  yield* checkpoint();
  const currency = offer.priceCurrency ?? inherited.currency;
  if (hasType(offer, 'aggregateoffer') && list(offer.offers).some(isNode)) {
    if (depth >= MAX_DEPTH) return;
    for (const o of items(offer.offers)) {
      countWork();
      if (isNode(o)) yield* readOffer(o, { ...inherited, currency }, into, depth + 1);
    }
    return;
  }
  const collected = priceCollector();
  collectPrice(collected, offer.price, currency);
  if (hasType(offer, 'aggregateoffer') && offer.price === undefined) {
    collectPrice(collected, offer.lowPrice, currency);
    collectPrice(collected, offer.highPrice, currency);
  }
  for (const spec of list(offer.priceSpecification).filter(isNode)) {
    yield* checkpoint();
    if (NOT_THE_PRICE.test(text(spec.priceType) ?? '')) continue;
    collectPrice(collected, spec.price, spec.priceCurrency ?? currency);
  }
  into.push({
    variantId: variantIdFromUrl(text(offer.url) ?? text(inherited.url)),
    sku: text(offer.sku) ?? inherited.sku,
    title: text(offer.name) ?? inherited.title,
    prices: collected.prices,
    priceError: collected.error,
    availability: readAvailability(text(offer.availability)),
  });
}

/**
 * A product's offers, pushed one by one onto `into`: `push(...list)` passes every element as an
 * argument, and a page with a hundred thousand offers overflows the stack that way.
 */
function* offersOf(product: Node, title: string | null, into: OfferReading[]): Steps<void> {
  const inherited = { currency: undefined, sku: text(product.sku), title, url: product.url };
  // One by one, each counted where it is read: a page may list 47,000 offers, and a filter over
  // all of them first would be one step as long as the list.
  for (const o of items(product.offers)) {
    countWork();
    if (isNode(o)) yield* readOffer(o, inherited, into);
    else yield* checkpoint();
  }
}

/** One schema.org Product (or ProductGroup with `hasVariant` products) as a reading. */
export function* readJsonLdProduct(node: Node, pageUrl: string): Steps<ProductReading> {
  const title = text(node.name);
  const offers: OfferReading[] = [];
  yield* offersOf(node, null, offers);
  for (const variant of items(node.hasVariant)) {
    countWork();
    yield* checkpoint();
    if (isNode(variant)) yield* offersOf(variant, text(variant.name), offers);
  }
  let img = image(node.image, pageUrl);
  for (const variant of items(node.hasVariant)) {
    countWork();
    yield* checkpoint();
    if (isNode(variant)) img ??= image(variant.image, pageUrl);
  }
  return {
    title,
    image: img,
    sku: text(node.sku),
    productId: text(node.productID) ?? text(node.productGroupID),
    offers,
  };
}
