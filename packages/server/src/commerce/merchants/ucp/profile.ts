import type { Config } from '../../../config.js';
import { trimTrailingSlashes } from '../../../platform/trim-end.js';

/** The UCP version this platform speaks (the shared schemas' tag). */
export const UCP_VERSION = '2026-04-08';
/**
 * The versions a store may declare and be spoken to in: its own, never one it did not declare
 * (UCP's negotiation: the business selects the version). 2026-01-11 differs in the checkout
 * bodies (`currency`, `payment` and, on update, `id` are sent) and in the completed answer
 * (`order_id` at the top level); see docs/commerce/live.md.
 */
export const SUPPORTED_VERSIONS = ['2026-04-08', '2026-01-11'] as const;
export type UcpVersion = (typeof SUPPORTED_VERSIONS)[number];
export const isSupportedVersion = (v: string): v is UcpVersion =>
  (SUPPORTED_VERSIONS as readonly string[]).includes(v);
export const SHOPPING_SERVICE = 'dev.ucp.shopping';
export const CHECKOUT_CAPABILITY = 'dev.ucp.shopping.checkout';
export const FULFILLMENT_CAPABILITY = 'dev.ucp.shopping.fulfillment';
export const CATALOG_LOOKUP_CAPABILITY = 'dev.ucp.shopping.catalog.lookup';
/** Older profiles name the catalog as one capability. */
export const CATALOG_CAPABILITY = 'dev.ucp.shopping.catalog';
export const IDENTITY_LINKING_CAPABILITY = 'dev.ucp.common.identity_linking';

const SPEC = 'https://ucp.dev/specification';
const SCHEMAS = 'https://ucp.dev/schemas';

/** The commerce service's public URL (COMMERCE_PUBLIC_URL), for work that runs outside a request. */
export const configuredBaseUrl = (config: Config): string =>
  config.commerce.publicUrl !== undefined
    ? trimTrailingSlashes(config.commerce.publicUrl)
    : `http://127.0.0.1:${config.commerce.port}`;

/** Where our platform profile is served: the commerce service's public URL. */
export const platformProfileUrl = (config: Config): string => `${configuredBaseUrl(config)}/.well-known/ucp`;

/**
 * The `UCP-Agent` header every store request carries: an RFC 8941 dictionary naming our profile
 * and, once the store's profile is known, the version this request speaks.
 */
export const ucpAgentHeader = (config: Config, version?: UcpVersion): string =>
  `profile="${platformProfileUrl(config)}"${version ? `, version="${version}"` : ''}`;

/**
 * Our platform profile: the shopping service over REST, the checkout capability with the
 * fulfillment extension and catalog lookup. No payment handlers: this platform holds no payment
 * credentials of its own (see docs/commerce/live.md, "Who pays").
 */
export function platformProfile() {
  const capability = (path: string, schema: string, extra: Record<string, unknown> = {}) => [
    { version: UCP_VERSION, spec: `${SPEC}/${path}`, schema: `${SCHEMAS}/${schema}`, ...extra },
  ];
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        [SHOPPING_SERVICE]: [
          {
            version: UCP_VERSION,
            transport: 'rest' as const,
            spec: `${SPEC}/overview`,
            schema: 'https://ucp.dev/services/shopping/rest.openapi.json',
          },
        ],
      },
      capabilities: {
        [CHECKOUT_CAPABILITY]: capability('checkout', 'shopping/checkout.json'),
        [FULFILLMENT_CAPABILITY]: capability('fulfillment', 'shopping/fulfillment.json', {
          extends: CHECKOUT_CAPABILITY,
        }),
        [CATALOG_LOOKUP_CAPABILITY]: capability('catalog/lookup', 'shopping/catalog_lookup.json'),
      },
      payment_handlers: {},
    },
  };
}
