import { createHash } from 'node:crypto';
import type { Availability } from '../schemas/common.js';
import type { Variant } from '../schemas/resources.js';
import type { Product } from './adapter.js';

/** Words in a sandbox product path that trigger documented behaviour (docs/commerce/sandbox.md). */
export const MAGIC_WORDS = [
  'out-of-stock',
  'preorder',
  'requires-action',
  'decline',
  'price-change',
  'no-image',
  'slow-order',
] as const;
export type MagicWord = (typeof MAGIC_WORDS)[number];

export const SANDBOX_ONE_TIME_CODE = '424242';

export function magicWords(url: string): Set<MagicWord> {
  const path = new URL(url).pathname.toLowerCase();
  return new Set(MAGIC_WORDS.filter((w) => path.includes(w)));
}

/** `price-1999` in the path fixes the first variant's price at 1999 minor units. */
function fixedPrice(path: string): number | null {
  const m = /(?:^|[/-])price-(\d{1,8})(?=$|[/-])/.exec(path);
  return m ? Number(m[1]) : null;
}

function hashOf(url: URL): Buffer {
  return createHash('sha256').update(`${url.hostname.toLowerCase()}${url.pathname}`).digest();
}

const SIZES = ['Standard', 'Large', 'Extra Large'];

function titleFrom(url: URL, hex: string): string {
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  let slug = decodeURIComponent(last)
    .toLowerCase()
    .replace(/\.[a-z0-9]+$/, '');
  for (const w of MAGIC_WORDS) slug = slug.replaceAll(w, ' ');
  slug = slug.replace(/price-\d+/g, ' ');
  const words = slug
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(0, 8);
  if (words.length === 0) return `Sandbox Product ${hex.slice(0, 4).toUpperCase()}`;
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

/** The same link always gives the same product: title, prices, variants and image. */
export function sandboxProduct(rawUrl: string): Product {
  const url = new URL(rawUrl);
  const hash = hashOf(url);
  const hex = hash.toString('hex');
  const words = magicWords(rawUrl);
  const base = fixedPrice(url.pathname.toLowerCase()) ?? (5 + (hash.readUInt16BE(0) % 195)) * 100 - 1;
  const count = 1 + ((hash[2] ?? 0) % 3);
  const availability: Availability = words.has('out-of-stock')
    ? 'out_of_stock'
    : words.has('preorder')
      ? 'preorder'
      : 'in_stock';
  const title = titleFrom(url, hex);
  const variants: Variant[] = Array.from({ length: count }, (_, i) => ({
    item_ref: `sku_${hex.slice(0, 10)}_${i + 1}`,
    title: count === 1 ? title : `${title} - ${SIZES[i]}`,
    price: { amount: base + i * 500, currency: 'USD' },
    availability,
  }));
  return {
    title,
    image_url: words.has('no-image') ? null : `https://${url.hostname}/cdn/images/${hex.slice(0, 16)}.jpg`,
    variants,
  };
}
