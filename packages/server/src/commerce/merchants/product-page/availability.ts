import type { Availability } from '../../schemas/common.js';

/**
 * schema.org ItemAvailability values and Open Graph `product:availability` words, compared
 * without case, spaces, dashes or underscores. BackOrder and PreSale can be ordered now and ship
 * later, so they count as `preorder`.
 */
const WORDS: Record<string, Availability> = {
  instock: 'in_stock',
  instoreonly: 'in_stock',
  onlineonly: 'in_stock',
  limitedavailability: 'in_stock',
  availablefororder: 'in_stock',
  available: 'in_stock',
  outofstock: 'out_of_stock',
  oos: 'out_of_stock',
  soldout: 'out_of_stock',
  discontinued: 'out_of_stock',
  unavailable: 'out_of_stock',
  preorder: 'preorder',
  presale: 'preorder',
  backorder: 'preorder',
  pending: 'preorder',
};

const SCHEMA_PREFIX = /^(?:https?:\/\/(?:www\.)?schema\.org\/|schema:)/i;

/** `https://schema.org/InStock`, `http://schema.org/OutOfStock`, `InStock`, `in stock` → ours. */
export function readAvailability(raw: unknown): Availability {
  if (typeof raw !== 'string') return 'unknown';
  const word = raw
    .trim()
    .replace(SCHEMA_PREFIX, '')
    .replace(/[\s_-]+/g, '')
    .toLowerCase();
  return WORDS[word] ?? 'unknown';
}
