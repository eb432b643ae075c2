import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { headerProblems, operationFor, problems, type RequestOp, SCHEMA } from './ucp-schemas.js';
import { callTokenizer } from './ucp-tokenizer.js';

/**
 * A local, stateful UCP store (a "business" in UCP's words) on loopback. It follows the shared
 * UCP 2026-04-08 contract (../shared/platform-specs/ucp-2026-04-08/): every request is checked
 * against the REST OpenAPI's operation (required headers: UCP-Agent, Request-Id, and
 * Idempotency-Key on mutations) and its body against the operation's request schema; every JSON
 * answer it gives against the response schema. A request the contract does not allow is answered
 * 400 with a UCP error response AND recorded in `violations`, so a test fails on it even when our
 * adapter swallows the error; a response of its own that breaks the contract is recorded too.
 *
 * Discovery is served in either published shape (`shape`), the catalog capability can be turned
 * off (then the product page is the only source), and `script` makes it escalate, change prices,
 * decline, run out of stock, go down, answer slowly, or drop the answer to a complete it placed.
 */

export interface FakeVariant {
  id: string;
  sku: string;
  title: string;
  price: number;
  status: 'in_stock' | 'out_of_stock' | 'preorder';
}
export interface FakeProduct {
  id: string;
  handle: string;
  title: string;
  variants: FakeVariant[];
}

export interface UcpScript {
  /** Discovery shape: since 2026-01-23 (arrays, map) or 2026-01-11 (objects, array). */
  shape: '2026-01-23' | '2026-01-11';
  /** Offer the catalog lookup capability. */
  catalog: boolean;
  /** Every request fails: the socket is closed without an answer. */
  down: boolean;
  /** Every answer waits this long first. */
  slowMs: number;
  /** Every answer waits until this settles first (a slow store the test lets go); null: none. */
  holdUntil: Promise<void> | null;
  /** Complete asks for the buyer: `requires_escalation` with a continue_url to pay on the store's page. */
  escalateOnComplete: boolean;
  /** Create and update say the buyer must give something at the store (incomplete + requires_buyer_input). */
  buyerInput: boolean;
  /** Each update raises the unit price by 10% (a price change between quotes). */
  priceChangeOnUpdate: boolean;
  /** Complete is refused: the payment fails. */
  declineComplete: boolean;
  /** The store offers no payment instrument in its checkout (the buyer must pay at the store). */
  noInstrument: boolean;
  /** This many completes are placed, then the connection is dropped before the answer. */
  dropCompleteAnswers: number;
  /** The same for updates. */
  dropUpdateAnswers: number;
  /**
   * Checkout answers break the contract on purpose: amounts as decimal strings. Not recorded as
   * violations (the point is to see our adapter refuse them).
   */
  corruptCheckouts: boolean;
  /**
   * How the store says no (to a decline, a sold-out item, an unknown item, `refuseNext`): the UCP
   * error envelope, `{"detail": "…"}` JSON (what many real stores send), or text/plain.
   */
  refusalStyle: 'ucp' | 'detail' | 'text';
  /** The next create or update is refused with this status and message (in `refusalStyle`). */
  refuseNext: { op: 'create' | 'update'; status: number; message: string } | null;
  /** A completed checkout carries a top-level `order_id` and no `order` object (the 2026-01-11 shape). */
  orderIdOnly: boolean;
  /** Serve product pages (off with `catalog: false`: a headless store with nothing to read). */
  productPages: boolean;
  /** Every session stays `incomplete` whatever is sent, with no continue_url and no instrument. */
  stuckIncomplete: boolean;
  /** Never hand out a continue_url (with `noInstrument`: only unsupported payment handlers, no page). */
  noContinueUrl: boolean;
  /** Every operation is answered 429 (the store is up, and rate-limits us). */
  busy: boolean;
  /** A completed session is answered without line items and totals (seen from 2026-01-11 stores). */
  completedBare: boolean;
  /** The `ucp.version` the profile declares (default: the shape's own). */
  version: string | null;
  /** The instrument the store offers carries its credential (a token), as some stores send it. */
  instrumentCredential: boolean;
  /**
   * Catalog lookup answers each product with only the variants the ids matched (the featured one
   * for a product URL); `POST /catalog/product` answers them all.
   */
  lookupMatchedOnly: boolean;
  /**
   * The store takes cards through a tokenization handler (UCP's shared tokenization API) at this
   * tokenizer: its profile declares it, its checkouts offer no instrument, and `complete` must
   * carry the handler's token, which the store detokenizes with the session's binding.
   */
  tokenizer: { endpoint: string; identity: string } | null;
  /** The store declares only a wallet handler (Google Pay) that svc does not support, and offers no instrument. */
  walletOnly: boolean;
  /**
   * `complete` is answered 200 with something that is not a checkout session: `placed` places the
   * order and answers an HTML thank-you page; `pending` leaves the session `complete_in_progress`
   * (the order is placed later, with `payAtStore`) and answers `{"ok": true}`; `huge` places the
   * order and answers a 2 MB JSON body.
   */
  unreadableComplete: 'placed' | 'pending' | 'huge' | null;
}

interface Session {
  id: string;
  status: string;
  line_items: { id: string; item: { id: string; title: string; price: number }; quantity: number }[];
  buyer?: Record<string, unknown>;
  destination?: Record<string, unknown>;
  selectedOption: string | null;
  order?: { id: string; permalink_url: string };
  messages: Record<string, unknown>[];
  priceBump: number;
}

export interface UcpStore {
  /** http://127.0.0.x:port */
  origin: string;
  /** The product page URL of a product (by handle). */
  productUrl(handle: string, query?: string): string;
  products: FakeProduct[];
  script: UcpScript;
  sessions: Map<string, Session>;
  orders: { id: string; session: string }[];
  /** Cards the store got back from the tokenizer at complete (what it would charge). */
  detokenized: { session: string; card: Record<string, unknown> }[];
  /** Every request: method, path, headers and parsed body. */
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: unknown }[];
  violations: string[];
  /** The buyer finishes paying on the store's page (the continue_url): the session completes. */
  payAtStore(sessionId: string): void;
  close(): Promise<void>;
}

const VERSION = '2026-04-08';
/** The id of the tokenization handler the store declares (the instrument's `handler_id`). */
export const TOKENIZER_HANDLER = 'card_tokenizer';
/** The credential a store may put on the instrument it offers: svc must never keep or log it. */
export const STORE_CREDENTIAL = 'tok_store_secret_4242424242424242';

/** One answer of the store: JSON unless `type` says otherwise (a text/plain refusal). */
interface Answer {
  status: number;
  body: unknown;
  kind: 'checkout' | 'lookup' | 'product' | 'other';
  type?: string;
}
const CURRENCY = 'USD';
const OPTIONS = [
  { id: 'standard', title: 'Standard shipping', amount: 500 },
  { id: 'express', title: 'Express shipping', amount: 1500 },
];

export const DEFAULT_PRODUCTS: FakeProduct[] = [
  {
    id: 'prod_mug',
    handle: 'mug',
    title: 'Ceramic Mug',
    variants: [
      { id: 'var_mug_blue', sku: 'MUG-BLUE', title: 'Ceramic Mug, blue', price: 1800, status: 'in_stock' },
      { id: 'var_mug_red', sku: 'MUG-RED', title: 'Ceramic Mug, red', price: 1900, status: 'out_of_stock' },
    ],
  },
  {
    id: 'prod_lamp',
    handle: 'lamp',
    title: 'Desk Lamp',
    variants: [{ id: 'var_lamp', sku: 'LAMP', title: 'Desk Lamp', price: 12_000, status: 'in_stock' }],
  },
];

export async function startUcpStore(
  opts: { host?: string; script?: Partial<UcpScript>; products?: FakeProduct[] } = {},
): Promise<UcpStore> {
  const host = opts.host ?? '127.0.0.1';
  const script: UcpScript = {
    shape: '2026-01-23',
    catalog: true,
    down: false,
    slowMs: 0,
    holdUntil: null,
    escalateOnComplete: false,
    buyerInput: false,
    priceChangeOnUpdate: false,
    declineComplete: false,
    noInstrument: false,
    dropCompleteAnswers: 0,
    dropUpdateAnswers: 0,
    corruptCheckouts: false,
    refusalStyle: 'ucp',
    refuseNext: null,
    orderIdOnly: false,
    productPages: true,
    stuckIncomplete: false,
    noContinueUrl: false,
    busy: false,
    completedBare: false,
    version: null,
    instrumentCredential: false,
    lookupMatchedOnly: false,
    tokenizer: null,
    walletOnly: false,
    unreadableComplete: null,
    ...opts.script,
  };
  const products = structuredClone(opts.products ?? DEFAULT_PRODUCTS);
  const sessions = new Map<string, Session>();
  const orders: { id: string; session: string }[] = [];
  const detokenized: UcpStore['detokenized'] = [];
  const requests: UcpStore['requests'] = [];
  const violations: string[] = [];
  /** Idempotency-Key → the body it was first sent with and the answer given. */
  const answered = new Map<
    string,
    { fingerprint: string; status: number; body: unknown; type: string | undefined }
  >();
  let origin = '';
  let seq = 0;

  const variantById = (id: string) => {
    for (const p of products) {
      const v = p.variants.find((x) => x.id === id);
      if (v) return { product: p, variant: v };
    }
    return null;
  };
  /** The UCP version this store speaks: what its profile declares. */
  const speaks = () => script.version ?? (script.shape === '2026-01-11' ? '2026-01-11' : VERSION);
  const speaksOld = () => speaks() === '2026-01-11';
  const media = (p: FakeProduct) => [
    { type: 'image', url: `${origin}/cdn/${p.handle}.jpg`, alt_text: p.title },
  ];

  function profile() {
    const endpoint = `${origin}/ucp/v1`;
    const capNames = [
      'dev.ucp.shopping.checkout',
      'dev.ucp.shopping.fulfillment',
      ...(script.catalog ? ['dev.ucp.shopping.catalog.lookup'] : []),
    ];
    if (script.shape === '2026-01-11') {
      return {
        ucp: {
          version: speaks(),
          services: {
            'dev.ucp.shopping': {
              version: speaks(),
              spec: 'https://ucp.dev/specification/overview',
              rest: { schema: 'https://ucp.dev/services/shopping/rest.openapi.json', endpoint },
            },
          },
          capabilities: capNames.map((name) => ({
            name,
            version: speaks(),
            ...(name === 'dev.ucp.shopping.fulfillment' ? { extends: 'dev.ucp.shopping.checkout' } : {}),
          })),
        },
        payment: { handlers: handlersList() },
      };
    }
    return {
      ucp: {
        version: speaks(),
        services: { 'dev.ucp.shopping': [{ version: speaks(), transport: 'rest', endpoint }] },
        capabilities: Object.fromEntries(
          capNames.map((name) => [
            name,
            [
              {
                version: VERSION,
                ...(name === 'dev.ucp.shopping.fulfillment' ? { extends: 'dev.ucp.shopping.checkout' } : {}),
              },
            ],
          ]),
        ),
        payment_handlers: paymentHandlers(),
      },
    };
  }

  /** The handlers the store declares, in its profile and in every checkout's `ucp`. */
  function paymentHandlers() {
    if (script.walletOnly) {
      return {
        'com.google.pay': [
          {
            id: 'gpay',
            version: VERSION,
            config: { merchant_id: 'fake' },
            available_instruments: [{ type: 'card' }],
          },
        ],
      };
    }
    if (!script.tokenizer)
      return { 'com.example.store_account': [{ id: 'store_account', version: VERSION }] };
    return {
      'com.example.tokenizer': [
        {
          id: TOKENIZER_HANDLER,
          version: VERSION,
          schema: SCHEMA.tokenizationApi,
          config: {
            endpoint: script.tokenizer.endpoint,
            identity: { access_token: script.tokenizer.identity },
          },
          available_instruments: [{ type: 'card' }],
        },
      ],
    };
  }
  /**
   * The same handlers in the 2026-01-11 shape (its schemas/shopping/types/payment_handler.json):
   * one array of `{ id, name, version, spec, config_schema, instrument_schemas, config }`, in the
   * profile's top-level `payment.handlers` and in every checkout's `payment.handlers`.
   */
  function handlersList() {
    return Object.entries(paymentHandlers()).flatMap(([name, list]) =>
      (list as Record<string, any>[]).map((h) => ({
        id: h.id,
        name,
        version: speaks(),
        spec: h.schema ?? `https://${name.split('.').reverse().join('.')}/ucp/handler`,
        config_schema: h.schema ?? `https://${name.split('.').reverse().join('.')}/ucp/config.json`,
        instrument_schemas: [
          `https://ucp.dev/2026-01-11/schemas/shopping/types/card_payment_instrument.json`,
        ],
        config: h.config ?? {},
      })),
    );
  }
  /** No instrument of its own: the buyer (or the platform) must supply the payment. */
  const offersNoInstrument = () => script.noInstrument || script.walletOnly || script.tokenizer !== null;

  const ucpMeta = () => ({
    version: speaks(),
    status: 'success',
    capabilities: {
      'dev.ucp.shopping.checkout': [{ version: VERSION }],
      'dev.ucp.shopping.fulfillment': [{ version: VERSION, extends: 'dev.ucp.shopping.checkout' }],
    },
    payment_handlers: paymentHandlers(),
  });

  const errorResponse = (code: string, content: string, severity = 'unrecoverable') => ({
    ucp: { version: speaks(), status: 'error' },
    messages: [{ type: 'error', code, content, severity }],
  });

  /** A refusal in the store's `refusalStyle`: the UCP envelope, `{"detail"}` JSON, or text/plain. */
  const refusal = (status: number, code: string, content: string, severity?: string): Answer =>
    script.refusalStyle === 'detail'
      ? { status, kind: 'other', body: { detail: content } }
      : script.refusalStyle === 'text'
        ? { status, kind: 'other', body: content, type: 'text/plain; charset=utf-8' }
        : { status, kind: 'checkout', body: errorResponse(code, content, severity) };

  function present(s: Session) {
    const whole = presentWhole(s);
    if (!(script.completedBare && s.status === 'completed')) return whole;
    const { line_items: _l, totals: _t, ...bare } = whole;
    return bare;
  }

  function presentWhole(s: Session) {
    const subtotal = s.line_items.reduce((sum, li) => sum + li.item.price * li.quantity, 0);
    const option = OPTIONS.find((o) => o.id === s.selectedOption);
    const tax = s.destination ? Math.round(subtotal * 0.08) : null;
    const totals = [
      { type: 'subtotal', amount: subtotal },
      ...(option ? [{ type: 'fulfillment', display_text: option.title, amount: option.amount }] : []),
      ...(tax === null ? [] : [{ type: 'tax', amount: tax }]),
      { type: 'total', amount: subtotal + (option?.amount ?? 0) + (tax ?? 0) },
    ];
    const lineIds = s.line_items.map((li) => li.id);
    return {
      ucp: ucpMeta(),
      id: s.id,
      status: s.status,
      currency: CURRENCY,
      line_items: s.line_items.map((li) => ({
        ...li,
        item: { ...li.item, image_url: `${origin}/cdn/item.jpg` },
        totals: [
          { type: 'subtotal', amount: li.item.price * li.quantity },
          { type: 'total', amount: li.item.price * li.quantity },
        ],
      })),
      ...(s.buyer ? { buyer: s.buyer } : {}),
      totals,
      links: [{ type: 'terms_of_service', url: `${origin}/terms` }],
      ...(s.messages.length ? { messages: s.messages } : {}),
      ...((s.status === 'requires_escalation' ||
        script.buyerInput ||
        script.noInstrument ||
        script.walletOnly) &&
      !script.stuckIncomplete &&
      !script.noContinueUrl
        ? { continue_url: `${origin}/checkout/${s.id}` }
        : {}),
      ...(offersNoInstrument() || script.stuckIncomplete
        ? speaksOld()
          ? { payment: { handlers: handlersList(), instruments: [] } }
          : {}
        : {
            payment: {
              ...(speaksOld() ? { handlers: handlersList() } : {}),
              instruments: [
                {
                  id: 'inst_account',
                  handler_id: 'store_account',
                  type: 'store_account',
                  selected: true,
                  ...(script.instrumentCredential
                    ? { credential: { type: 'token', token: STORE_CREDENTIAL } }
                    : {}),
                },
              ],
            },
          }),
      ...(s.destination
        ? {
            fulfillment: {
              methods: [
                {
                  id: 'method_1',
                  type: 'shipping',
                  line_item_ids: lineIds,
                  destinations: [s.destination],
                  selected_destination_id: s.destination.id,
                  groups: [
                    {
                      id: 'group_1',
                      line_item_ids: lineIds,
                      selected_option_id: s.selectedOption,
                      options: OPTIONS.map((o) => ({
                        id: o.id,
                        title: o.title,
                        totals: [{ type: 'total', amount: o.amount }],
                      })),
                    },
                  ],
                },
              ],
            },
          }
        : {}),
      ...(s.order ? (script.orderIdOnly ? { order_id: s.order.id } : { order: s.order }) : {}),
    };
  }

  /** Where the session stands after a change: what is still missing decides. */
  function settle(s: Session) {
    s.messages = s.messages.filter((m) => m.type !== 'error');
    if (script.stuckIncomplete) {
      s.status = 'incomplete';
      return;
    }
    if (script.buyerInput) {
      s.status = 'incomplete';
      s.messages.push({
        type: 'error',
        code: 'age_verification',
        content: 'The buyer must confirm their age on the store page.',
        severity: 'requires_buyer_input',
      });
      return;
    }
    const ready = Boolean(
      (s.buyer as { email?: string } | undefined)?.email && s.destination && s.selectedOption,
    );
    s.status = ready ? 'ready_for_complete' : 'incomplete';
  }

  function applyChange(s: Session, body: Record<string, any>, op: RequestOp) {
    if (body.buyer) s.buyer = body.buyer;
    const method = body.fulfillment?.methods?.[0];
    if (method?.destinations?.[0]) {
      s.destination = method.destinations[0];
    }
    const chosen = method?.groups?.[0]?.selected_option_id;
    if (chosen && OPTIONS.some((o) => o.id === chosen)) s.selectedOption = chosen;
    if (op === 'update' && script.priceChangeOnUpdate) {
      s.priceBump += 1;
      for (const li of s.line_items) {
        const before = li.item.price;
        li.item.price = Math.round(
          (variantById(li.item.id)?.variant.price ?? before) * (1 + 0.1 * s.priceBump),
        );
        if (li.item.price !== before) {
          s.messages.push({
            type: 'info',
            code: 'price_changed',
            content: `Price changed from ${before} to ${li.item.price}.`,
          });
        }
      }
    }
    settle(s);
  }

  /** A product as the catalog shows it, with the variants given (each correlated to the ids asked). */
  const catalogProduct = (p: FakeProduct, variants: FakeVariant[], ids: string[]) => ({
    id: p.id,
    handle: p.handle,
    title: p.title,
    description: { plain: `${p.title} from the fake store.` },
    url: `${origin}/products/${p.handle}`,
    price_range: {
      min: { amount: Math.min(...p.variants.map((v) => v.price)), currency: CURRENCY },
      max: { amount: Math.max(...p.variants.map((v) => v.price)), currency: CURRENCY },
    },
    media: media(p),
    variants: variants.map((v) => ({
      id: v.id,
      sku: v.sku,
      title: v.title,
      description: { plain: v.title },
      price: { amount: v.price, currency: CURRENCY },
      availability: { available: v.status !== 'out_of_stock', status: v.status },
      inputs: [
        {
          id: ids.find((i) => i === v.id) ?? ids[0],
          match: ids.includes(v.id) ? 'exact' : 'featured',
        },
      ],
    })),
  });

  /**
   * A complete at a tokenizing store: the instrument must be the handler's, with a token the
   * tokenizer gives back for exactly this session's binding; anything else is a declined payment.
   */
  async function paidByToken(s: Session, body: any): Promise<string | null> {
    const tokenizer = script.tokenizer;
    if (!tokenizer) return null;
    // 2026-01-11 sends the one instrument as `payment_data`; 2026-04-08 lists them, one selected.
    const chosen = speaksOld()
      ? body?.payment_data?.handler_id === TOKENIZER_HANDLER
        ? body.payment_data
        : null
      : (body?.payment?.instruments ?? []).find(
          (i: any) => i?.handler_id === TOKENIZER_HANDLER && i?.selected === true,
        );
    const token = chosen?.credential?.token;
    if (chosen?.type !== 'card' || typeof token !== 'string')
      return 'No card token from the tokenization handler.';
    const out = await callTokenizer(tokenizer.endpoint, '/detokenize', {
      token,
      binding: { checkout_id: s.id, identity: { access_token: tokenizer.identity } },
    });
    if (out.status !== 200 || out.body?.type !== 'card')
      return `The card token was refused (HTTP ${out.status}).`;
    detokenized.push({ session: s.id, card: out.body });
    return null;
  }

  async function handle(method: string, path: string, body: any): Promise<Answer> {
    if (method === 'POST' && path === '/catalog/product') {
      const p = products.find((x) => x.id === body.id || x.variants.some((v) => v.id === body.id));
      if (!p) return refusal(404, 'not_found', `No product ${body.id}.`);
      const whole = catalogProduct(p, p.variants, [body.id]);
      return {
        status: 200,
        kind: 'product',
        body: {
          ucp: {
            version: speaks(),
            status: 'success',
            capabilities: { 'dev.ucp.shopping.catalog.lookup': [{ version: speaks() }] },
          },
          product: { ...whole, variants: whole.variants.map(({ inputs: _in, ...v }) => v) },
        },
      };
    }
    if (method === 'POST' && path === '/catalog/lookup') {
      const ids: string[] = body.ids;
      const matches = (p: FakeProduct, id: string) =>
        id === p.id || id === p.handle || id === `${origin}/products/${p.handle}`;
      const found = products.filter((p) =>
        ids.some((id) => matches(p, id) || p.variants.some((v) => v.id === id)),
      );
      return {
        status: 200,
        kind: 'lookup',
        body: {
          ucp: {
            version: speaks(),
            status: 'success',
            capabilities: { 'dev.ucp.shopping.catalog.lookup': [{ version: speaks() }] },
          },
          products: found.map((p) => {
            if (!script.lookupMatchedOnly) return catalogProduct(p, p.variants, ids);
            const exact = p.variants.filter((v) => ids.includes(v.id));
            return catalogProduct(p, exact.length ? exact : p.variants.slice(0, 1), ids);
          }),
        },
      };
    }
    const refused = script.refuseNext;
    const op =
      method === 'POST' && path === '/checkout-sessions' ? 'create' : method === 'PUT' ? 'update' : null;
    if (refused && refused.op === op) {
      script.refuseNext = null;
      return refusal(refused.status, 'invalid', refused.message);
    }
    if (method === 'POST' && path === '/checkout-sessions') {
      const lines: Session['line_items'] = [];
      for (const li of body.line_items as { item: { id: string }; quantity: number }[]) {
        const found = variantById(li.item.id);
        if (!found) return refusal(404, 'not_found', `No item ${li.item.id}.`);
        if (found.variant.status === 'out_of_stock') {
          return refusal(409, 'out_of_stock', `${found.variant.title} is out of stock.`);
        }
        lines.push({
          id: `li_${lines.length + 1}`,
          item: { id: found.variant.id, title: found.variant.title, price: found.variant.price },
          quantity: li.quantity,
        });
      }
      const s: Session = {
        id: `cs_${++seq}`,
        status: 'incomplete',
        line_items: lines,
        selectedOption: null,
        messages: [],
        priceBump: 0,
      };
      sessions.set(s.id, s);
      applyChange(s, body, 'create');
      return { status: 201, kind: 'checkout', body: present(s) };
    }
    const m = /^\/checkout-sessions\/([^/]+)(\/complete|\/cancel)?$/.exec(path);
    const s = m ? sessions.get(decodeURIComponent(m[1] as string)) : undefined;
    if (m && !s)
      return { status: 404, kind: 'checkout', body: errorResponse('not_found', 'No such checkout session.') };
    if (s && method === 'GET' && !m?.[2]) return { status: 200, kind: 'checkout', body: present(s) };
    if (s && method === 'PUT' && !m?.[2]) {
      if (['completed', 'canceled'].includes(s.status)) {
        return {
          status: 409,
          kind: 'checkout',
          body: errorResponse('invalid_state', `The session is ${s.status}.`),
        };
      }
      applyChange(s, body, 'update');
      return { status: 200, kind: 'checkout', body: present(s) };
    }
    if (s && method === 'POST' && m?.[2] === '/cancel') {
      if (s.status === 'completed')
        return { status: 409, kind: 'checkout', body: errorResponse('invalid_state', 'Already completed.') };
      s.status = 'canceled';
      return { status: 200, kind: 'checkout', body: present(s) };
    }
    if (s && method === 'POST' && m?.[2] === '/complete') {
      if (s.status !== 'ready_for_complete') {
        return {
          status: 409,
          kind: 'checkout',
          body: errorResponse('invalid_state', `The session is ${s.status}.`, 'recoverable'),
        };
      }
      if (script.declineComplete) {
        return refusal(
          402,
          'payment_failed',
          script.refusalStyle === 'ucp'
            ? 'The card on the account was declined.'
            : 'Payment Failed: Insufficient Funds',
        );
      }
      const unpaid = await paidByToken(s, body);
      if (unpaid) return refusal(402, 'payment_failed', unpaid);
      if (script.escalateOnComplete) {
        s.status = 'requires_escalation';
        s.messages.push({
          type: 'error',
          code: 'payment_required',
          content: 'The buyer pays on the store page.',
          severity: 'requires_buyer_review',
        });
        return { status: 200, kind: 'checkout', body: present(s) };
      }
      if (script.unreadableComplete === 'pending') {
        s.status = 'complete_in_progress';
        return { status: 200, kind: 'other', body: { ok: true } };
      }
      placeOrder(s);
      if (script.unreadableComplete === 'huge') {
        return { status: 200, kind: 'other', body: { padding: 'x'.repeat(2 * 1024 * 1024) } };
      }
      if (script.unreadableComplete === 'placed') {
        const page = '<!doctype html><html><body><h1>Thank you for your order!</h1></body></html>';
        return { status: 200, kind: 'other', body: page, type: 'text/html; charset=utf-8' };
      }
      return { status: 200, kind: 'checkout', body: present(s) };
    }
    return { status: 404, kind: 'other', body: errorResponse('not_found', `No route ${method} ${path}.`) };
  }

  function placeOrder(s: Session) {
    const id = `ord_${orders.length + 1}`;
    orders.push({ id, session: s.id });
    s.status = 'completed';
    s.messages = [];
    s.order = { id, permalink_url: `${origin}/orders/${id}` };
  }

  function send(res: ServerResponse, status: number, body: unknown, type = 'application/json') {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': type });
    res.end(text);
  }

  function checkResponse(kind: string, status: number, body: unknown, what: string) {
    const ref =
      (body as { ucp?: { status?: string } })?.ucp?.status === 'error'
        ? SCHEMA.errorResponse
        : kind === 'checkout'
          ? SCHEMA.checkoutResponse
          : kind === 'lookup'
            ? SCHEMA.lookupResponse
            : kind === 'product'
              ? SCHEMA.productResponse
              : null;
    if (!ref) return;
    const found = problems(ref, body);
    if (found.length) violations.push(`response to ${what} (${status}): ${found.join('; ')}`);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: any = null;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          body = raw;
        }
        requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body });
        if (script.down) {
          req.socket.destroy();
          return;
        }
        if (script.slowMs) await new Promise((r) => setTimeout(r, script.slowMs));
        if (script.holdUntil) await script.holdUntil;
        if (url.pathname === '/.well-known/ucp') {
          const doc = profile();
          // The 2026-01-11 shape predates the shared schemas (tag 2026-04-08): it is served as stores
          // still serve it, and only the current shape is checked against the schema.
          if (script.shape === '2026-01-23') {
            const found = problems(SCHEMA.businessProfile, doc);
            if (found.length) violations.push(`discovery profile: ${found.join('; ')}`);
          }
          return send(res, 200, doc);
        }
        const page = /^\/products\/([^/]+)$/.exec(url.pathname);
        if (page && req.method === 'GET' && script.productPages) {
          const p = products.find((x) => x.handle === page[1]);
          if (!p) return send(res, 404, 'not found', 'text/plain');
          return send(res, 200, productPage(p), 'text/html; charset=utf-8');
        }
        if (!url.pathname.startsWith('/ucp/v1/')) return send(res, 404, 'not found', 'text/plain');
        const path = url.pathname.slice('/ucp/v1'.length);
        const what = `${req.method} ${path}`;
        const op = operationFor(req.method ?? 'GET', path);
        if (!op) {
          violations.push(`${what}: no such operation in the UCP REST OpenAPI`);
          return send(res, 404, errorResponse('not_found', `No operation ${what}.`));
        }
        const wrong = headerProblems(op.params, req.headers);
        if (op.bodyRequired && (body === null || typeof body !== 'object'))
          wrong.push('a JSON body is required');
        const bodyRef =
          op.operationId === 'create_checkout'
            ? SCHEMA.checkoutRequest('create')
            : op.operationId === 'update_checkout'
              ? SCHEMA.checkoutRequest('update')
              : op.operationId === 'complete_checkout'
                ? SCHEMA.checkoutRequest('complete')
                : op.operationId === 'lookup_catalog'
                  ? SCHEMA.lookupRequest
                  : null;
        if (bodyRef && body && typeof body === 'object') {
          wrong.push(
            ...(speaksOld() ? oldShapeProblems(op.operationId, path, body) : problems(bodyRef, body)),
          );
        }
        if (op.operationId === 'get_product') wrong.push(...problems(SCHEMA.productRequest, body));
        if ((op.operationId === 'lookup_catalog' || op.operationId === 'get_product') && !script.catalog)
          wrong.push('the store offers no catalog capability');
        wrong.push(...versionProblems(req.headers['ucp-agent']));
        if (wrong.length) {
          violations.push(`${what}: ${wrong.join('; ')}`);
          return send(res, 400, errorResponse('invalid_request', wrong.join('; ')));
        }
        if (script.busy) return send(res, 429, errorResponse('rate_limited', 'Slow down.', 'recoverable'));
        const key = req.headers['idempotency-key'] as string | undefined;
        const fingerprint = createHash('sha256').update(`${what}\n${raw}`).digest('hex');
        const earlier = key ? answered.get(key) : undefined;
        if (earlier) {
          if (earlier.fingerprint !== fingerprint) {
            return send(
              res,
              422,
              errorResponse('idempotency_conflict', 'This Idempotency-Key was used for another request.'),
            );
          }
          return send(res, earlier.status, earlier.body, earlier.type);
        }
        const out = await handle(req.method ?? 'GET', path, body);
        if (script.corruptCheckouts && out.kind === 'checkout' && out.status < 400) {
          const c = out.body as { totals: { amount: unknown }[] };
          for (const t of c.totals) t.amount = ((t.amount as number) / 100).toFixed(2);
        } else if (!speaksOld()) checkResponse(out.kind, out.status, out.body, what);
        if (key) answered.set(key, { fingerprint, status: out.status, body: out.body, type: out.type });
        if (op.operationId === 'complete_checkout' && script.dropCompleteAnswers > 0) {
          script.dropCompleteAnswers--;
          req.socket.destroy();
          return;
        }
        if (op.operationId === 'update_checkout' && script.dropUpdateAnswers > 0) {
          script.dropUpdateAnswers--;
          req.socket.destroy();
          return;
        }
        send(res, out.status, out.body, out.type);
      })().catch((err) => {
        violations.push(`fake store crashed: ${(err as Error).stack}`);
        res.destroy();
      });
    });
  });

  /**
   * A request body as a 2026-01-11 store checks it. That version's schemas are not in the shared
   * contract (tag 2026-04-08), so the differences this platform implements are checked here one by
   * one, as that version's REST OpenAPI and schemas (ucp.dev/2026-01-11) state them:
   * - create and update: `currency` (ISO 4217) and `payment` are required, and update carries the
   *   session's `id`; the rest of the body has the 2026-04-08 request's shape and is checked
   *   against it;
   * - complete: the body is `payment_data` (one payment instrument: `id`, `handler_id`, `type`,
   *   and for a card `brand` and `last_digits`; a `credential` has a `type`) and optionally
   *   `risk_signals`, nothing else: no `payment.instruments`.
   */
  function oldShapeProblems(operationId: string, path: string, body: Record<string, unknown>): string[] {
    const out: string[] = [];
    const { currency, id, ...rest } = body;
    const opName: RequestOp | null =
      operationId === 'create_checkout' ? 'create' : operationId === 'update_checkout' ? 'update' : null;
    if (operationId === 'complete_checkout') return oldCompleteProblems(body);
    if (opName) {
      if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
        out.push('2026-01-11: currency (ISO 4217) is required');
      if (!body.payment || typeof body.payment !== 'object') out.push('2026-01-11: payment is required');
      out.push(...problems(SCHEMA.checkoutRequest(opName), rest));
    }
    if (opName === 'update' && id !== decodeURIComponent(path.split('/')[2] ?? ''))
      out.push("2026-01-11: update needs the session's id in the body");
    if (opName !== 'update' && id !== undefined) out.push('2026-01-11: id is only sent on update');
    if (operationId === 'lookup_catalog') out.push(...problems(SCHEMA.lookupRequest, body));
    return out;
  }

  function oldCompleteProblems(body: Record<string, unknown>): string[] {
    const out = Object.keys(body)
      .filter((k) => k !== 'payment_data' && k !== 'risk_signals')
      .map((k) => `2026-01-11: complete takes payment_data and risk_signals only, not ${k}`);
    const pd = body.payment_data as Record<string, unknown> | undefined;
    if (!pd || typeof pd !== 'object') return [...out, '2026-01-11: complete needs payment_data'];
    for (const k of ['id', 'handler_id', 'type'])
      if (typeof pd[k] !== 'string') out.push(`2026-01-11: payment_data.${k} must be a string`);
    if (pd.type === 'card')
      for (const k of ['brand', 'last_digits'])
        if (typeof pd[k] !== 'string') out.push(`2026-01-11: a card's payment_data.${k} is required`);
    const cred = pd.credential as Record<string, unknown> | undefined;
    if (cred !== undefined && (typeof cred !== 'object' || typeof cred?.type !== 'string'))
      out.push('2026-01-11: payment_data.credential needs a type');
    return out;
  }

  /** UCP-Agent must name the version this store speaks (a platform never sends one it did not declare). */
  function versionProblems(header: string | string[] | undefined): string[] {
    const text = Array.isArray(header) ? header.join(',') : (header ?? '');
    const sent = /(?:^|,\s*)version="([^"]*)"/.exec(text)?.[1];
    if (sent === undefined) return ['UCP-Agent names no version'];
    return sent === speaks() ? [] : [`UCP-Agent speaks version ${sent}; this store declared ${speaks()}`];
  }

  function productPage(p: FakeProduct) {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: p.title,
      image: `${origin}/cdn/${p.handle}.jpg`,
      sku: p.variants[0]?.sku,
      offers: p.variants.map((v) => ({
        '@type': 'Offer',
        sku: v.sku,
        name: v.title,
        price: (v.price / 100).toFixed(2),
        priceCurrency: CURRENCY,
        availability: `https://schema.org/${v.status === 'in_stock' ? 'InStock' : v.status === 'preorder' ? 'PreOrder' : 'OutOfStock'}`,
      })),
    };
    return `<!doctype html><html><head><title>${p.title}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>${p.title}</h1></body></html>`;
  }

  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://${host}:${port}`;
  return {
    origin,
    productUrl: (handle, query) => `${origin}/products/${handle}${query ? `?${query}` : ''}`,
    products,
    script,
    sessions,
    orders,
    detokenized,
    requests,
    violations,
    payAtStore(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      placeOrder(s);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
