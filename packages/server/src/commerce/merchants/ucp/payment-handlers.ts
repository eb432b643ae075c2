import { AppError } from '../../../platform/errors.js';
import { checkPublicUrl } from '../../../platform/net/public-url.js';
import { trimTrailingSlashes } from '../../../platform/trim-end.js';

/**
 * The payment handlers a store declares in its profile (`ucp.payment_handlers`, a registry keyed
 * by reverse-domain name, each an array of declarations) and the one kind this platform pays
 * through itself: a tokenization handler, whose API is UCP's shared tokenization API
 * (`handlers/tokenization/openapi.json`: `/tokenize`, `/detokenize`). The buyer's card goes from
 * the buyer's browser straight to the handler's tokenizer; this server only ever holds the token,
 * in memory, for the one `complete` it sends (docs/commerce/live.md, "Who pays").
 */

/** A tokenization handler as the store declares it, before its tokenizer URL is judged. */
export interface DeclaredTokenizer {
  handler_id: string;
  endpoint: string;
  identity: string | null;
}

export interface PaymentHandlers {
  /** Every handler's registry name, in the order declared: named in hand-off messages. */
  names: string[];
  /** Tokenization handlers that accept cards, in the order declared. */
  tokenizers: DeclaredTokenizer[];
}

/** A tokenization handler this platform will send the buyer's browser to. */
export interface CardTokenizer {
  /** The handler's `id`: the instrument's `handler_id` at `complete`. */
  handler_id: string;
  /** The tokenizer's base URL, without a trailing slash: the browser posts to `${endpoint}/tokenize`. */
  endpoint: string;
  /** The one origin the pay page's CSP lets the browser connect to. */
  origin: string;
  /** The participant the token is bound to (`binding.identity.access_token`), as the profile publishes it. */
  identity: string | null;
}

/** The shared API a handler names (in `schema` or `spec`) to be a tokenization handler. */
const TOKENIZATION_API = /\/handlers\/tokenization\/openapi\.json$/;
/** A 2026-01-11 handler that produces card instruments names this schema in `instrument_schemas`. */
const CARD_INSTRUMENT = /\/card_payment_instrument\.json$/;
const MAX_HANDLERS = 32;
const MAX_TEXT = 512;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null =>
  typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT ? v : null;

function acceptsCards(h: Record<string, unknown>): boolean {
  const list = h.available_instruments;
  // 2026-01-11 names the instrument schemas the handler produces instead.
  const schemas = h.instrument_schemas;
  if (list === undefined && Array.isArray(schemas))
    return schemas.some((u) => typeof u === 'string' && CARD_INSTRUMENT.test(u));
  // UCP: "When absent, every instrument should be considered available."
  if (list === undefined) return true;
  return Array.isArray(list) && list.some((i) => isObject(i) && i.type === 'card');
}

/** One declared handler: a tokenizer this platform may pay through, or null. */
function tokenizerOf(h: unknown): DeclaredTokenizer | null {
  if (!isObject(h) || !isObject(h.config)) return null;
  // The shared API is named in `schema` or `spec` (2026-04-08), or `spec`/`config_schema` (2026-01-11).
  const names = [h.schema, h.spec, h.config_schema].map((v) => text(v) ?? '');
  if (!names.some((n) => TOKENIZATION_API.test(n))) return null;
  const id = text(h.id);
  const endpoint = text(h.config.endpoint);
  if (!id || !endpoint || !acceptsCards(h)) return null;
  const identity = isObject(h.config.identity) ? text(h.config.identity.access_token) : null;
  return { handler_id: id, endpoint, identity };
}

/**
 * Reads the handlers a profile declares, in either published shape:
 * - 2026-04-08: `ucp.payment_handlers`, a registry keyed by reverse-domain name, each an array;
 * - 2026-01-11: `payment.handlers` beside `ucp` at the top of the profile, one array of
 *   `{ id, name, version, spec, config_schema, instrument_schemas, config }`.
 * A profile that declares none (or in neither shape) has none.
 */
export function readPaymentHandlers(doc: Record<string, unknown>): PaymentHandlers {
  const out: PaymentHandlers = { names: [], tokenizers: [] };
  const add = (name: unknown, h: unknown) => {
    if (typeof name === 'string' && name && !out.names.includes(name.slice(0, 100)))
      out.names.push(name.slice(0, 100));
    const t = tokenizerOf(h);
    if (t) out.tokenizers.push(t);
  };
  const ucp = isObject(doc.ucp) ? doc.ucp : {};
  if (isObject(ucp.payment_handlers)) {
    for (const [name, list] of Object.entries(ucp.payment_handlers).slice(0, MAX_HANDLERS)) {
      if (Array.isArray(list)) for (const h of list.slice(0, MAX_HANDLERS)) add(name, h);
      else add(name, null);
    }
  }
  const older = isObject(doc.payment) && Array.isArray(doc.payment.handlers) ? doc.payment.handlers : [];
  for (const h of older.slice(0, MAX_HANDLERS)) add(isObject(h) ? h.name : null, h);
  return out;
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|\[::1\])$/;
/** What a CSP source and a fetch may safely carry: scheme, a plain host, a port. */
const PLAIN_ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$|^http:\/\/\[::1\](:\d{1,5})?$/;

/**
 * The tokenizer the buyer's browser may be sent to, or why not. The store's profile is outside
 * input: its URL must be https on a public host (the same static checks as every store request;
 * a profile can name an intranet address the server never calls but the buyer's browser would),
 * with no credentials, query or fragment. SERVICE_STORES_ALLOW_PRIVATE lets through loopback only
 * (http or https), for local development and tests.
 */
export function judgeTokenizer(
  declared: DeclaredTokenizer,
  allowPrivate: boolean,
): { ok: true; tokenizer: CardTokenizer } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = checkPublicUrl(declared.endpoint, { allowPrivate, requireHttps: true });
    // The development switch opens this machine (loopback) only: a buyer's browser is never sent
    // to a private network, and never sends a card over plain http across one.
    if (!(allowPrivate && LOOPBACK.test(url.hostname)))
      url = checkPublicUrl(declared.endpoint, { allowPrivate: false, requireHttps: true });
  } catch (err) {
    return { ok: false, reason: err instanceof AppError ? err.message : 'it is not a URL' };
  }
  if (url.search || url.hash) return { ok: false, reason: 'it carries a query or a fragment' };
  if (!PLAIN_ORIGIN.test(url.origin)) return { ok: false, reason: 'its host is not a plain host name' };
  const endpoint = trimTrailingSlashes(`${url.origin}${url.pathname}`);
  return {
    ok: true,
    tokenizer: { handler_id: declared.handler_id, endpoint, origin: url.origin, identity: declared.identity },
  };
}

/** The first declared tokenization handler this platform may use; null when there is none. */
export function cardTokenizerOf(handlers: PaymentHandlers, allowPrivate: boolean): CardTokenizer | null {
  for (const declared of handlers.tokenizers) {
    const judged = judgeTokenizer(declared, allowPrivate);
    if (judged.ok) return judged.tokenizer;
  }
  return null;
}
