import { AppError } from '../../../platform/errors.js';
import { parseOutsideJsonSteps } from '../../../platform/sliced/json.js';
import { readSliced } from '../../../platform/sliced/work.js';
import { trimTrailingSlashes } from '../../../platform/trim-end.js';
import type { CommerceContext } from '../../context.js';
import type { CommerceEnv } from '../../db/api-keys-store.js';
import { commerceStores } from '../../db/stores.js';
import type { Merchant } from '../../schemas/resources.js';
import { ucpFetch } from './fetch.js';
import { type PaymentHandlers, readPaymentHandlers } from './payment-handlers.js';
import { CHECKOUT_CAPABILITY, SHOPPING_SERVICE, ucpAgentHeader } from './profile.js';

/** A store's discovery profile, reduced to what the adapter uses; the same for both published shapes. */
export interface UcpStoreProfile {
  origin: string;
  version: string;
  /** The REST endpoint of the shopping service; operation paths are appended to it. */
  endpoint: string;
  capabilities: ReadonlySet<string>;
  /** Which discovery shape the store serves: `2026-01-23` (arrays of transports) or `2026-01-11`. */
  shape: '2026-01-23' | '2026-01-11';
  /** The payment handlers it declares (`ucp.payment_handlers`, or 2026-01-11's `payment.handlers`). */
  paymentHandlers: PaymentHandlers;
}

const PROFILE_TIMEOUT_MS = 5_000;
const PROFILE_MAX_BYTES = 256 * 1024;
/** How long a profile is trusted before the origin is asked again, and how long a miss is remembered. */
const FOUND_TTL_MS = 10 * 60_000;
const MISSING_TTL_MS = 60_000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function restEndpoint(raw: unknown, origin: string): string | null {
  if (typeof raw !== 'string' || raw.length === 0) return null;
  try {
    const url = new URL(raw, origin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? trimTrailingSlashes(url.href) : null;
  } catch {
    return null;
  }
}

/**
 * Reads `/.well-known/ucp` in either shape seen in the wild:
 * - since 2026-01-23: `ucp.services["dev.ucp.shopping"]` is an array of transport bindings
 *   (`{ transport: "rest", endpoint }`) and `ucp.capabilities` a map keyed by capability name;
 * - 2026-01-11: `ucp.services["dev.ucp.shopping"]` is one object with `rest.endpoint`, and
 *   `ucp.capabilities` an array of `{ name, version }`.
 * Null when the document is neither, or names no REST endpoint for the shopping service.
 */
export function parseStoreProfile(doc: unknown, origin: string): UcpStoreProfile | null {
  if (!isObject(doc) || !isObject(doc.ucp)) return null;
  const ucp = doc.ucp;
  const version = typeof ucp.version === 'string' ? ucp.version : '';
  const shopping = isObject(ucp.services) ? ucp.services[SHOPPING_SERVICE] : undefined;
  let endpoint: string | null = null;
  let shape: UcpStoreProfile['shape'];
  if (Array.isArray(shopping)) {
    shape = '2026-01-23';
    const rest = shopping.find((b) => isObject(b) && b.transport === 'rest');
    endpoint = isObject(rest) ? restEndpoint(rest.endpoint, origin) : null;
  } else if (isObject(shopping)) {
    shape = '2026-01-11';
    endpoint = isObject(shopping.rest) ? restEndpoint(shopping.rest.endpoint, origin) : null;
  } else return null;
  if (!endpoint) return null;
  const capabilities = new Set<string>();
  if (isObject(ucp.capabilities)) for (const name of Object.keys(ucp.capabilities)) capabilities.add(name);
  else if (Array.isArray(ucp.capabilities)) {
    for (const c of ucp.capabilities) if (isObject(c) && typeof c.name === 'string') capabilities.add(c.name);
  }
  return { origin, version, endpoint, capabilities, shape, paymentHandlers: readPaymentHandlers(doc) };
}

const cache = new Map<string, { at: number; profile: UcpStoreProfile | null }>();

/** The profile of `origin` while the cache still trusts it, without asking the origin; else null. */
export function cachedStoreProfile(
  ctx: Pick<CommerceContext, 'clock'>,
  origin: string,
): UcpStoreProfile | null {
  const hit = cache.get(origin);
  return hit?.profile && ctx.clock.now().getTime() - hit.at < FOUND_TTL_MS ? hit.profile : null;
}

/**
 * The UCP profile of `origin`, from the cache when it is fresh. Null when the origin serves no
 * usable profile (no document, not JSON, no REST shopping service) or cannot be reached.
 */
export async function storeProfile(
  ctx: Pick<CommerceContext, 'config' | 'clock' | 'logger'>,
  origin: string,
): Promise<UcpStoreProfile | null> {
  const now = ctx.clock.now().getTime();
  const hit = cache.get(origin);
  if (hit && now - hit.at < (hit.profile ? FOUND_TTL_MS : MISSING_TTL_MS)) return hit.profile;
  let profile: UcpStoreProfile | null = null;
  try {
    const res = await ucpFetch(ctx, `${origin}/.well-known/ucp`, {
      headers: { accept: 'application/json', 'ucp-agent': ucpAgentHeader(ctx.config) },
      timeoutMs: PROFILE_TIMEOUT_MS,
      maxBytes: PROFILE_MAX_BYTES,
    });
    if (res.status === 200)
      profile = parseStoreProfile(await readSliced(parseOutsideJsonSteps(await res.text())), origin);
    else await res.body?.cancel().catch(() => undefined);
  } catch (err) {
    // The SSRF guard's refusal is the answer (URL_NOT_ALLOWED), the same as any store request gets.
    if (err instanceof AppError) throw err;
    ctx.logger.info({ origin, err: (err as Error).message }, 'no UCP profile at this origin');
    // An origin that cannot be reached is not remembered as "no profile": it may be back soon.
    return hit?.profile ?? null;
  }
  cache.set(origin, { at: now, profile });
  return profile;
}

/** Forgets what is cached, so a test can change a store's profile. */
export const forgetStoreProfiles = () => cache.clear();

const nameFromDomain = (domain: string) =>
  /^[\d.]+$/.test(domain) || domain.includes(':')
    ? domain
    : (domain.split('.').slice(0, -1).join(' ') || domain)
        .split(/[-\s]+/)
        .filter(Boolean)
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join(' ');

/**
 * Finds a UCP store behind a product URL (`merchantForUrl`'s protocol step): asks the origin for
 * `/.well-known/ucp` and, when it offers checkout over REST, adds the store to the catalog (first
 * use) and returns it. Null when the origin speaks no UCP.
 */
export async function discoverUcpStore(
  ctx: CommerceContext,
  _env: CommerceEnv,
  url: URL,
): Promise<Merchant | null> {
  const profile = await storeProfile(ctx, url.origin);
  if (!profile?.capabilities.has(CHECKOUT_CAPABILITY)) return null;
  const domain = url.hostname.toLowerCase().replace(/^www\./, '');
  const merchant: Merchant = {
    id: `ucp_${domain}`,
    name: nameFromDomain(domain),
    domain,
    tier: 'protocol',
    route: 'ucp',
    // A UCP profile does not say what a store sells.
    category: null,
    // Guest checkout: identity linking is not done in this version (docs/commerce/live.md).
    requires_connection: false,
    capabilities: {
      // From the store's catalog where it has one, else from the product page.
      offers: true,
      checkout: true,
      orders: profile.capabilities.has('dev.ucp.shopping.order'),
    },
    status: 'healthy',
  };
  const catalog = commerceStores(ctx.db).catalog;
  await catalog.insertIfNew(merchant, ctx.clock.now().toISOString());
  const saved = await catalog.findByDomain(domain);
  if (!saved) return merchant;
  const { name_key: _k, ...m } = saved;
  return m;
}
