import { countWork } from '../../../platform/sliced/work.js';
import { trimEnd } from '../../../platform/trim-end.js';
import type { Money } from '../../schemas/common.js';

/**
 * Minor-unit digits by code, asked of Intl once per code: building an `Intl.NumberFormat` costs
 * tens of microseconds, and a page can state a price a hundred thousand times. At most 26³ keys.
 */
const DIGITS = new Map<string, number | null>();

/** How many decimals a currency's minor unit has (JPY 0, USD 2, KWD 3), as Intl knows it. */
export function currencyDigits(currency: string): number | null {
  if (!/^[A-Z]{3}$/.test(currency)) return null;
  const known = DIGITS.get(currency);
  if (known !== undefined) return known;
  let digits: number | null;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits as number;
  } catch {
    digits = null;
  }
  DIGITS.set(currency, digits);
  return digits;
}

/** An ISO 4217 code from a page (`usd`, ` EUR `), upper-cased; null when it is not one. */
export function normalizeCurrency(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  countWork(raw.length);
  const code = raw.trim().toUpperCase();
  return currencyDigits(code) === null ? null : code;
}

/** A plain decimal (`19.99`, `1299`, `.5` is not one) or one grouped with commas and a dot decimal (`1,299.00`). */
const PLAIN = /^(\d+)(?:\.(\d+))?$/;
const GROUPED = /^(\d{1,3}(?:,\d{3})+)\.(\d+)$/;

/**
 * The longest amount text read. A price that fits in a safe integer of minor units has at most 16
 * digits before the point; this leaves room for grouping commas and trailing zeros, and keeps
 * `BigInt` (whose parsing is not linear in the digits) and error messages away from a page's
 * three-megabyte "price".
 */
const MAX_AMOUNT_CHARS = 64;

/** A page's text, cut for an error message. */
const quote = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

export type AmountResult = { ok: true; money: Money } | { ok: false; message: string };

/**
 * Exact conversion of a page's price to minor units, without floating point. Accepted: JSON
 * numbers, plain decimal strings (`"19.99"`, `"1299"`) and comma-grouped strings with a dot
 * decimal (`"1,299.00"`). Refused: decimal commas (`"19,99"`), `"1,299"` (a thousands group or a
 * decimal comma?), currency symbols, exponents, negatives, and more decimals than the currency has
 * unless they are zeros (`"19.990"` is fine in USD, `"19.999"` is not).
 */
export function parseAmount(raw: unknown, currency: string): AmountResult {
  const digits = currencyDigits(currency);
  if (digits === null) return { ok: false, message: `'${String(currency)}' is not a currency code.` };
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw) || raw < 0) return { ok: false, message: `The price ${raw} is not a price.` };
    text = String(raw);
  } else if (typeof raw === 'string') {
    countWork(raw.length);
    text = raw.trim();
  } else {
    return { ok: false, message: 'The price is missing.' };
  }
  if (text.length > MAX_AMOUNT_CHARS)
    return { ok: false, message: `The price '${quote(text)}' is longer than any price this reader accepts.` };
  const plain = PLAIN.exec(text);
  const grouped = plain ? null : GROUPED.exec(text);
  const match = plain ?? grouped;
  if (!match)
    return { ok: false, message: `The price '${quote(text)}' is not a number this reader accepts.` };
  const whole = (match[1] as string).replaceAll(',', '');
  // Not `/0+$/`, which is retried from every zero of `1.000…001` (platform/trim-end.ts).
  const fraction = trimEnd(match[2] ?? '', (c) => c === '0');
  if (fraction.length > digits) {
    return {
      ok: false,
      message: `The price '${text}' has more decimals than ${currency} allows (${digits}).`,
    };
  }
  const minor = BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER))
    return { ok: false, message: `The price '${text}' is too large.` };
  return { ok: true, money: { amount: Number(minor), currency } };
}

export const sameMoney = (a: Money, b: Money) => a.amount === b.amount && a.currency === b.currency;

export const formatMoney = (m: Money) => {
  const digits = currencyDigits(m.currency) ?? 2;
  return `${(m.amount / 10 ** digits).toFixed(digits)} ${m.currency}`;
};

/** One key per amount and currency, for sets of prices (a list searched on every price would be quadratic). */
export const moneyKey = (m: Money) => `${m.amount} ${m.currency}`;

/** The distinct prices a source states, and the first reason one of them could not be read. */
export interface PriceCollector {
  prices: Money[];
  /** `moneyKey` of each of `prices`. */
  seen: Set<string>;
  error: string | null;
}

export const priceCollector = (): PriceCollector => ({ prices: [], seen: new Set(), error: null });

/** Reads one stated amount into `into`; missing amounts are skipped, bad ones noted. */
export function collectPrice(into: PriceCollector, amount: unknown, rawCurrency: unknown): void {
  if (amount === undefined || amount === null || amount === '') return;
  countWork();
  const currency = normalizeCurrency(rawCurrency);
  if (!currency) {
    into.error ??= `The price ${quote(String(amount))} has no valid currency (got ${quote(JSON.stringify(rawCurrency ?? null) ?? 'null')}).`;
    return;
  }
  const read = parseAmount(amount, currency);
  if (!read.ok) into.error ??= read.message;
  else if (!into.seen.has(moneyKey(read.money))) {
    into.seen.add(moneyKey(read.money));
    into.prices.push(read.money);
  }
}
