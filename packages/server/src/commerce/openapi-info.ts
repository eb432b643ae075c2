import type { Config } from '../config.js';
import { type OpenApiInfo, serviceServer } from '../platform/http/index.js';
import { VERSION } from '../version.js';
import { eventEnvelopes } from './schemas/events.js';
import { commerceRegistry } from './schemas.js';

const TAGS = [
  {
    name: 'Merchants',
    description: 'Stores that can be bought from: the registry, sandbox stores and the discovered catalog.',
  },
  {
    name: 'Users',
    description:
      'The hosted approval flow: approval tokens, the hosted page, and the exchange for a user token.',
  },
  { name: 'Offers', description: 'Live price and availability for a product link, valid for 15 minutes.' },
  {
    name: 'Checkouts',
    description:
      'Buy for a user: create, update, answer user actions, confirm or cancel. Use an Idempotency-Key on every confirm.',
  },
  { name: 'Orders', description: "The user's orders, newest first." },
  { name: 'Connections', description: "The user's store connections." },
  {
    name: 'Webhooks',
    description: 'Register endpoints that receive signed events; list and remove them in the dashboard.',
  },
  {
    name: 'Sandbox',
    description: 'Controls that move sandbox objects along. Sandbox keys (svc_test_) only.',
  },
  { name: 'Health', description: 'Liveness; no key needed.' },
];

const KEY_ERRORS = {
  401: "AUTHENTICATION_REQUIRED (no 'Authorization: Bearer' key) or INVALID_API_KEY (unknown or revoked).",
};
const USER_ERRORS = {
  401: 'AUTHENTICATION_REQUIRED, INVALID_API_KEY, USER_TOKEN_REQUIRED (no Service-User-Token) or INVALID_USER_TOKEN (not valid for this key’s account and environment).',
};

export function commerceOpenApiInfo(config: Config): OpenApiInfo {
  return {
    title: 'svc commerce API',
    version: VERSION,
    description:
      'Buy from online stores on behalf of your users: merchants, a hosted approval flow, offers, checkouts, orders and connections, with Stripe-style idempotency keys and signed webhooks. The key prefix (svc_test_ or svc_live_) selects the environment.',
    servers: [
      serviceServer({
        publicUrl: config.commerce.publicUrl,
        port: config.commerce.port,
        defaultPort: 4000,
        publicUrlSetting: 'COMMERCE_PUBLIC_URL',
      }),
    ],
    tags: TAGS,
    registry: commerceRegistry,
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'svc_test_... (sandbox) or svc_live_... (live)',
      },
      userToken: { type: 'apiKey', in: 'header', name: 'Service-User-Token' },
      webhookSignature: {
        type: 'apiKey',
        in: 'header',
        name: 'Service-Signature',
        description:
          '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{raw body}" keyed with the endpoint secret>`. Verify with @svc/webhooks.',
      },
    },
    security: {
      none: [],
      key: [{ apiKey: [] }],
      user: [{ apiKey: [], userToken: [] }],
      sandboxKey: [{ apiKey: [] }],
      sandboxUser: [{ apiKey: [], userToken: [] }],
    },
    serviceErrors: (route) => {
      switch (route.auth) {
        case 'key':
          return KEY_ERRORS;
        case 'user':
          return USER_ERRORS;
        case 'sandboxKey':
          return { ...KEY_ERRORS, 403: 'SANDBOX_ONLY: sandbox endpoints answer svc_test_ keys only.' };
        case 'sandboxUser':
          return { ...USER_ERRORS, 403: 'SANDBOX_ONLY: sandbox endpoints answer svc_test_ keys only.' };
        default:
          return {};
      }
    },
    webhooks: eventEnvelopes,
    webhookSecurity: [{ webhookSignature: [] }],
  };
}
