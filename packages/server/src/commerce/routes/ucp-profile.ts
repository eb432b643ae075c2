import { z } from 'zod';
import { platformProfile, UCP_VERSION } from '../merchants/ucp/profile.js';
import { defineRoute } from '../route.js';
import { named } from '../schemas.js';

const entity = z.object({
  version: z.string(),
  spec: z.string(),
  schema: z.string(),
});

const UcpPlatformProfile = named(
  'UcpPlatformProfile',
  z.object({
    ucp: z.object({
      version: z.string(),
      services: z.record(
        z.string(),
        z.array(entity.extend({ transport: z.enum(['rest', 'mcp', 'a2a', 'embedded']) })),
      ),
      capabilities: z.record(z.string(), z.array(entity.extend({ extends: z.string().optional() }))),
      payment_handlers: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
    }),
  }),
  "A UCP platform discovery profile (the shared schema's `platform_profile`).",
);

export const ucpProfileRoutes = [
  defineRoute({
    method: 'get',
    path: '/.well-known/ucp',
    auth: 'none',
    operationId: 'getUcpPlatformProfile',
    summary: "This platform's UCP profile; needs no API key.",
    description: `The Universal Commerce Protocol platform profile (UCP ${UCP_VERSION}) that UCP stores read: the shopping service over REST, the checkout capability with the fulfillment extension, and catalog lookup. Every request to a store names this URL in its \`UCP-Agent\` header. No payment handlers: this platform holds no payment credentials (see docs/commerce/live.md).`,
    tags: ['Health'],
    response: UcpPlatformProfile,
    handler: () => platformProfile(),
  }),
];
