import { AppError } from '../../../platform/errors.js';
import type { Merchant } from '../../schemas/resources.js';
import { isErrorResponse, messageText, type UcpMessage } from './mapping.js';

/** A store's answer as read off the wire: the status, the JSON (null when it is not JSON) and the text. */
export interface StoreAnswer {
  status: number;
  body: unknown;
  text: string;
}

const WORDS_MAX_CHARS = 500;
const clip = (s: string) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > WORDS_MAX_CHARS ? `${t.slice(0, WORDS_MAX_CHARS - 1)}…` : t;
};
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What the store said, in its own words, whatever shape it said it in. Real stores refuse with
 * the UCP error envelope (`messages[]`), with `{"detail": "…"}` (FastAPI and friends; a list of
 * `{ msg }` for validation errors), `{"message"}`, `{"error": "…" | { message }}`, or plain text.
 */
export function storeWords(a: StoreAnswer): { code: string | null; words: string } {
  const b = a.body;
  if (isErrorResponse(b)) {
    const first = b.messages.find((m) => m.type === 'error') ?? b.messages[0];
    return { code: first?.code ?? null, words: first ? messageText(first) : '' };
  }
  if (isObject(b)) {
    const d = b.detail;
    if (typeof d === 'string') return { code: null, words: clip(d) };
    if (Array.isArray(d)) {
      const msgs = d.map((x) => (isObject(x) && typeof x.msg === 'string' ? x.msg : null)).filter(Boolean);
      if (msgs.length) return { code: null, words: clip(msgs.join('; ')) };
    }
    if (typeof b.message === 'string')
      return { code: typeof b.code === 'string' ? b.code : null, words: clip(b.message) };
    if (typeof b.error === 'string') return { code: null, words: clip(b.error) };
    if (isObject(b.error) && typeof b.error.message === 'string')
      return { code: typeof b.error.code === 'string' ? b.error.code : null, words: clip(b.error.message) };
  }
  // Not JSON, or JSON we cannot name a message in: the text itself (an HTML error page says little).
  const text = /^\s*</.test(a.text) ? '' : clip(a.text);
  return { code: null, words: text };
}

const OUT_OF_STOCK_CODES = new Set(['out_of_stock', 'item_unavailable', 'insufficient_stock']);
const PAYMENT_CODES = new Set(['payment_failed', 'payment_declined', 'card_declined', 'insufficient_funds']);
const OUT_OF_STOCK_WORDS = /\b(out of stock|sold out|no longer available|insufficient (stock|inventory))\b/i;

/**
 * The API error for a store's definite 4xx answer: the meaning where it is clear (out of stock,
 * no such item, payment declined), else `MERCHANT_DECLINED`; every one quotes the store. Never a
 * 503: the store answered, so retrying the same request would get the same answer, and its
 * health is not in question (only timeouts, network errors and 5xx count).
 */
export function refusalOf(merchant: Merchant, a: StoreAnswer): AppError {
  const { code, words } = storeWords(a);
  const said = words || `no reason given (HTTP ${a.status})`;
  if ((code && OUT_OF_STOCK_CODES.has(code)) || OUT_OF_STOCK_WORDS.test(words)) {
    return new AppError(422, 'OUT_OF_STOCK', `${merchant.name}: ${said}`);
  }
  if ((code && PAYMENT_CODES.has(code)) || a.status === 402) {
    return new AppError(422, 'PAYMENT_DECLINED', `${merchant.name} declined the payment: ${said}`);
  }
  if (code === 'not_found' || a.status === 404 || a.status === 410) {
    return new AppError(422, 'PRODUCT_NOT_FOUND', `${merchant.name}: ${said}`);
  }
  const why = a.status === 400 || a.status === 422 ? 'as invalid' : `(HTTP ${a.status})`;
  return new AppError(422, 'MERCHANT_DECLINED', `${merchant.name} refused the request ${why}: ${said}`);
}

/** The store's UCP messages, as `merchant_messages` lines. */
export const messageLines = (messages: UcpMessage[] | undefined) => (messages ?? []).map(messageText);
