// A small UCP store (a "business" in UCP's words) for the example: one product, checkout sessions
// with shipping and tax, and the buyer's payment method on their store account as the instrument
// it offers. It answers in the shapes of UCP 2026-04-08 (the shared schemas); the server's tests
// use a stricter fake that validates every request and response against them.
// `headless: true` makes it a store with no catalog and no product pages (both are optional in
// UCP): it can only be bought from by naming its item id.
// `cards: true` makes it a store that takes cards through its own tokenizer (UCP's shared
// tokenization API, at `<origin>/tokenizer`): it offers no instrument, and `complete` must carry a
// token it detokenizes for exactly that checkout session. `pageOrigin` is the commerce service's
// origin, whose hosted pay page calls `/tokenize` from the buyer's browser (CORS).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const VERSION = '2026-04-08';
const PRODUCT = {
  id: 'prod_teapot',
  handle: 'teapot',
  title: 'Cast Iron Teapot',
  variant: { id: 'var_teapot_black', sku: 'TEAPOT-BLK', title: 'Cast Iron Teapot, black', price: 4200 },
};
const SHIPPING = { id: 'standard', title: 'Standard shipping', amount: 600 };
const TAX_RATE = 0.08;

export async function startStore({
  host = '127.0.0.1',
  headless = false,
  cards = false,
  pageOrigin = '',
} = {}) {
  const sessions = new Map();
  const tokens = new Map(); // token → { card, binding }: the tokenizer's vault
  const answers = new Map(); // Idempotency-Key → answer, so a retried complete places one order
  const orders = [];
  let origin = '';
  const meta = {
    version: VERSION,
    status: 'success',
    capabilities: { 'dev.ucp.shopping.checkout': [{ version: VERSION }] },
    payment_handlers: { 'com.example.store_account': [{ id: 'store_account', version: VERSION }] },
  };
  const cardHandlers = () => ({
    'com.example.tokenizer': [
      {
        id: 'card_tokenizer',
        version: VERSION,
        schema: 'https://ucp.dev/handlers/tokenization/openapi.json',
        config: { endpoint: `${origin}/tokenizer`, identity: { access_token: 'teapot_shop' } },
        available_instruments: [{ type: 'card' }],
      },
    ],
  });

  const view = (s) => {
    const subtotal = s.quantity * PRODUCT.variant.price;
    const shipping = s.address ? SHIPPING.amount : 0;
    const tax = s.address ? Math.round(subtotal * TAX_RATE) : 0;
    const ready = s.status === 'incomplete' && s.email && s.address;
    if (ready) s.status = 'ready_for_complete';
    return {
      ucp: meta,
      id: s.id,
      status: s.status,
      currency: 'USD',
      line_items: [
        {
          id: 'li_1',
          item: { id: PRODUCT.variant.id, title: PRODUCT.variant.title, price: PRODUCT.variant.price },
          quantity: s.quantity,
          totals: [
            { type: 'subtotal', amount: subtotal },
            { type: 'total', amount: subtotal },
          ],
        },
      ],
      totals: [
        { type: 'subtotal', amount: subtotal },
        ...(s.address
          ? [
              { type: 'fulfillment', display_text: SHIPPING.title, amount: shipping },
              { type: 'tax', amount: tax },
            ]
          : []),
        { type: 'total', amount: subtotal + shipping + tax },
      ],
      links: [{ type: 'terms_of_service', url: `${origin}/terms` }],
      ...(cards
        ? {}
        : {
            payment: {
              instruments: [
                { id: 'inst_account', handler_id: 'store_account', type: 'store_account', selected: true },
              ],
            },
          }),
      ...(s.address
        ? {
            fulfillment: {
              methods: [
                {
                  id: 'method_1',
                  type: 'shipping',
                  line_item_ids: ['li_1'],
                  destinations: [s.address],
                  selected_destination_id: s.address.id,
                  groups: [
                    {
                      id: 'group_1',
                      line_item_ids: ['li_1'],
                      selected_option_id: SHIPPING.id,
                      options: [
                        {
                          id: SHIPPING.id,
                          title: SHIPPING.title,
                          totals: [{ type: 'total', amount: SHIPPING.amount }],
                        },
                      ],
                    },
                  ],
                },
              ],
            },
          }
        : {}),
      ...(s.order ? { order: s.order } : {}),
    };
  };

  const take = (s, body) => {
    if (body.buyer?.email) s.email = body.buyer.email;
    const destination = body.fulfillment?.methods?.[0]?.destinations?.[0];
    if (destination) s.address = destination;
  };

  const notFound = (content) => [
    404,
    {
      ucp: { version: VERSION, status: 'error' },
      messages: [{ type: 'error', code: 'not_found', content, severity: 'unrecoverable' }],
    },
  ];

  /** The tokenizer's `/tokenize`: a card credential and its binding in, a token out. */
  function tokenize(body) {
    if (body.credential?.type !== 'card' || !/^[0-9]{12,19}$/.test(body.credential.number ?? ''))
      return [422, { error: 'invalid_card' }];
    if (typeof body.binding?.checkout_id !== 'string') return [400, { error: 'binding_required' }];
    const token = `tok_${randomBytes(12).toString('hex')}`;
    tokens.set(token, { card: body.credential, binding: body.binding });
    return [200, { token }];
  }

  function route(method, path, body) {
    if (cards && method === 'POST' && path === '/tokenizer/tokenize') return tokenize(body);
    if (method === 'GET' && path === '/.well-known/ucp') {
      return [
        200,
        {
          ucp: {
            ...meta,
            services: {
              'dev.ucp.shopping': [{ version: VERSION, transport: 'rest', endpoint: `${origin}/ucp` }],
            },
            capabilities: headless
              ? meta.capabilities
              : { ...meta.capabilities, 'dev.ucp.shopping.catalog.lookup': [{ version: VERSION }] },
          },
        },
      ];
    }
    if (method === 'POST' && path === '/ucp/catalog/lookup' && !headless) {
      const v = PRODUCT.variant;
      return [
        200,
        {
          ucp: { version: VERSION, status: 'success' },
          products: [
            {
              id: PRODUCT.id,
              handle: PRODUCT.handle,
              title: PRODUCT.title,
              url: `${origin}/products/${PRODUCT.handle}`,
              description: { plain: 'Keeps tea hot.' },
              price_range: {
                min: { amount: v.price, currency: 'USD' },
                max: { amount: v.price, currency: 'USD' },
              },
              media: [{ type: 'image', url: `${origin}/cdn/teapot.jpg` }],
              variants: [
                {
                  id: v.id,
                  sku: v.sku,
                  title: v.title,
                  description: { plain: v.title },
                  price: { amount: v.price, currency: 'USD' },
                  availability: { available: true, status: 'in_stock' },
                  inputs: [{ id: body.ids[0], match: 'featured' }],
                },
              ],
            },
          ],
        },
      ];
    }
    if (method === 'POST' && path === '/ucp/checkout-sessions') {
      if (body.line_items?.[0]?.item?.id !== PRODUCT.variant.id)
        return notFound(`No item ${body.line_items?.[0]?.item?.id}.`);
      const s = {
        id: `cs_${sessions.size + 1}`,
        status: 'incomplete',
        quantity: body.line_items[0].quantity,
      };
      take(s, body);
      sessions.set(s.id, s);
      return [201, view(s)];
    }
    const m = /^\/ucp\/checkout-sessions\/([^/]+)(\/complete|\/cancel)?$/.exec(path);
    const s = m && sessions.get(m[1]);
    if (!s) return notFound(m ? 'No such checkout.' : `Nothing at ${path}.`);
    if (method === 'GET') return [200, view(s)];
    if (method === 'PUT') {
      take(s, body);
      return [200, view(s)];
    }
    if (m[2] === '/cancel') {
      s.status = 'canceled';
      return [200, view(s)];
    }
    if (cards) {
      // Detokenize: the token must have been bound to this very session.
      const instrument = body.payment?.instruments?.find((i) => i.handler_id === 'card_tokenizer');
      const held = tokens.get(instrument?.credential?.token);
      if (!held || held.binding.checkout_id !== s.id)
        return [
          402,
          {
            ucp: { version: VERSION, status: 'error' },
            messages: [
              {
                type: 'error',
                code: 'payment_declined',
                content: 'The card token was refused.',
                severity: 'unrecoverable',
              },
            ],
          },
        ];
    }
    const id = `ORD-${1000 + orders.length + 1}`;
    orders.push(id);
    s.status = 'completed';
    s.order = { id, permalink_url: `${origin}/orders/${id}` };
    return [200, view(s)];
  }

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      // The pay page calls the tokenizer from the buyer's browser: CORS for that one origin.
      const cors =
        pageOrigin && req.headers.origin === pageOrigin ? { 'access-control-allow-origin': pageOrigin } : {};
      if (req.method === 'OPTIONS') {
        res.writeHead(cors['access-control-allow-origin'] ? 204 : 403, {
          ...cors,
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type',
        });
        return res.end();
      }
      const key = req.headers['idempotency-key'];
      const answer =
        (key && answers.get(key)) ||
        route(req.method, new URL(req.url, origin).pathname, raw ? JSON.parse(raw) : {});
      if (key) answers.set(key, answer);
      res.writeHead(answer[0], { 'content-type': 'application/json', ...cors });
      res.end(JSON.stringify(answer[1]));
    });
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  origin = `http://${host}:${server.address().port}`;
  if (cards) meta.payment_handlers = cardHandlers();
  return {
    origin,
    productUrl: `${origin}/products/${PRODUCT.handle}`,
    itemRef: PRODUCT.variant.id,
    orders,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
