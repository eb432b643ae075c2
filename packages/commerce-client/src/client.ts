import { ClientCore, type ClientOptions } from '@svc/client-core';
import { ApprovalTokens } from './resources/approval-tokens.js';
import { Checkouts } from './resources/checkouts.js';
import { Connections } from './resources/connections.js';
import { Health } from './resources/health.js';
import { Merchants } from './resources/merchants.js';
import { Offers } from './resources/offers.js';
import { Orders } from './resources/orders.js';
import { Sandbox } from './resources/sandbox.js';
import { WebhookEndpoints } from './resources/webhook-endpoints.js';
import { VERSION } from './version.js';

export interface CommerceClientOptions extends ClientOptions {
  /**
   * The service root, e.g. `https://commerce.example.com`, or `http://localhost:4000` for a
   * local `svc-server`. With or without the `/v1` suffix and a trailing slash: all reach the
   * same API.
   */
  baseUrl: string;
  /**
   * `svc_test_...` (sandbox) or `svc_live_...` (live); the prefix picks the environment.
   * Defaults to `process.env.SERVICE_API_KEY` where `process` exists. Keep it server-side.
   */
  apiKey?: string | undefined;
  /** Sent as `Service-User-Token`. Usually set per user with `client.forUser(userToken)`. */
  userToken?: string | undefined;
}

/** `process.env.SERVICE_API_KEY` on Node, Bun and Deno; nothing in browsers and workers. */
function apiKeyFromEnv(): string | undefined {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    return env?.SERVICE_API_KEY || undefined;
  } catch {
    // Deno without --allow-env throws on access; no key is the honest answer.
    return undefined;
  }
}

/**
 * Typed client for the svc commerce API.
 *
 * ```ts
 * const client = new CommerceClient({ baseUrl: 'http://localhost:4000' }); // key from SERVICE_API_KEY
 * const user = client.forUser(userToken);
 * const checkout = await user.checkouts.create({ offer_id, buyer, shipping_address });
 * ```
 */
export class CommerceClient {
  readonly #core: ClientCore;

  readonly merchants: Merchants;
  readonly approvalTokens: ApprovalTokens;
  readonly offers: Offers;
  readonly checkouts: Checkouts;
  readonly orders: Orders;
  readonly connections: Connections;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly sandbox: Sandbox;
  readonly health: Health;

  constructor(options: CommerceClientOptions | ClientCore) {
    if (options instanceof ClientCore) {
      this.#core = options;
    } else {
      this.#core = new ClientCore({
        ...options,
        apiKey: options?.apiKey ?? apiKeyFromEnv(),
        serviceClient: `@svc/commerce-client/${VERSION}`,
      });
    }
    const core = this.#core;
    this.merchants = new Merchants(core);
    this.approvalTokens = new ApprovalTokens(core);
    this.offers = new Offers(core);
    this.checkouts = new Checkouts(core);
    this.orders = new Orders(core);
    this.connections = new Connections(core);
    this.webhookEndpoints = new WebhookEndpoints(core);
    this.sandbox = new Sandbox(core);
    this.health = new Health(core);
  }

  /**
   * A client that acts for one user: the same key and options, plus `Service-User-Token` on
   * every request. Checkouts, orders, connections and most sandbox controls need it.
   */
  forUser(userToken: string): CommerceClient {
    if (typeof userToken !== 'string' || userToken.trim() === '') {
      throw new TypeError(
        'forUser(userToken): expected the user token from approvalTokens.exchange() (it starts with "user-").',
      );
    }
    return new CommerceClient(this.#core.withOptions({ userToken }));
  }

  /** A copy with some options changed, e.g. `client.withOptions({ timeoutMs: 120_000 })`. */
  withOptions(patch: Partial<CommerceClientOptions>): CommerceClient {
    return new CommerceClient(this.#core.withOptions(patch));
  }
}
