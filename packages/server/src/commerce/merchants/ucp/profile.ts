import type { Config } from '../../../config.js';
import { trimTrailingSlashes } from '../../../platform/trim-end.js';

/** The UCP version this platform speaks (the shared schemas' tag). */
export const UCP_VERSION = '2026-04-08';
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

/** The `UCP-Agent` header every store request carries (an RFC 8941 dictionary naming our profile). */
export const ucpAgentHeader = (config: Config): string => `profile="${platformProfileUrl(config)}"`;

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
