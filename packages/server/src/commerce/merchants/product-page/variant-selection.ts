import { checkpoint, countWork, type Steps } from '../../../platform/sliced/work.js';
import { moneyKey } from './money.js';
import type { OfferReading } from './types.js';

/** Shopify's `?variant=<id>` in an offer or page URL. */
export function variantIdFromUrl(raw: string | null): string | null {
  if (!raw) return null;
  try {
    return new URL(raw, 'https://base.invalid/').searchParams.get('variant')?.trim() || null;
  } catch {
    return null;
  }
}

export interface VariantSelector {
  variantId: string | null;
  sku: string | null;
}

/** What the page URL selects: `?variant=<id>` (Shopify) or `?sku=<sku>` (any case of `sku`). */
export function selectorFromUrl(pageUrl: string): VariantSelector {
  let sku: string | null = null;
  try {
    for (const [key, value] of new URL(pageUrl).searchParams) {
      if (key.toLowerCase() === 'sku' && value.trim()) sku = value.trim();
    }
  } catch {
    // An unparsable page URL selects nothing.
  }
  return { variantId: variantIdFromUrl(pageUrl), sku };
}

/** The offers a page states for one variant, merged: the same fields, every price kept. */
export type VariantGroup = OfferReading;

/**
 * Groups offers that name the same variant (same variant id, else same SKU; offers naming
 * neither form one group). Every price any of them states is kept, so a conflict shows.
 */
export function* groupOffers(offers: OfferReading[]): Steps<VariantGroup[]> {
  const groups: VariantGroup[] = [];
  // Found by key, not by a search of the groups: a page can list a hundred thousand offers. A
  // group's key never changes, since a merged offer names the same id (or the same SKU and no id).
  const byKey = new Map<string | null, { group: VariantGroup; seen: Set<string> }>();
  for (const offer of offers) {
    countWork(1 + offer.prices.length);
    yield* checkpoint();
    const key = offer.variantId ?? offer.sku;
    const found = byKey.get(key);
    if (!found) {
      const group = { ...offer, prices: [...offer.prices] };
      groups.push(group);
      byKey.set(key, { group, seen: new Set(offer.prices.map(moneyKey)) });
      continue;
    }
    const { group, seen } = found;
    for (const p of offer.prices) {
      if (seen.has(moneyKey(p))) continue;
      seen.add(moneyKey(p));
      group.prices.push(p);
    }
    group.priceError ??= offer.priceError;
    group.title ??= offer.title;
    group.sku ??= offer.sku;
    if (group.availability !== offer.availability) {
      if (group.availability === 'unknown') group.availability = offer.availability;
      else if (offer.availability !== 'unknown') group.availability = 'unknown';
    }
  }
  return groups;
}

export type Selection = { ok: true; group: VariantGroup } | { ok: false; message: string };

/**
 * The variant the URL names; without one, the first variant the page lists (the one a plain
 * product link shows).
 */
export function* selectVariant(groups: VariantGroup[], selector: VariantSelector): Steps<Selection> {
  const first = groups[0];
  if (!first) return { ok: false, message: 'The page lists no offers.' };
  if (!selector.variantId && !selector.sku) return { ok: true, group: first };
  const isSelected = (g: VariantGroup) =>
    (selector.variantId !== null && (g.variantId === selector.variantId || g.sku === selector.variantId)) ||
    (selector.sku !== null && (g.sku === selector.sku || g.variantId === selector.sku));
  for (const group of groups) {
    countWork();
    if (isSelected(group)) return { ok: true, group };
    yield* checkpoint();
  }
  // One offer that names no variant id is the page's only offer: a `?variant=` (often just the
  // default variant's id in a shared link) cannot contradict it. A `?sku=` must match its SKU.
  if (groups.length === 1 && first.variantId === null && (selector.sku === null || first.sku === null))
    return { ok: true, group: first };
  const named = selector.variantId ? `variant ${selector.variantId}` : `SKU ${selector.sku}`;
  return { ok: false, message: `The URL selects ${named}, which the page does not list.` };
}
