import { reply } from '../../platform/http/index.js';
import type { CommerceContext } from '../context.js';
import { defineRoute } from '../route.js';
import { idParam } from '../schemas/common.js';
import { CreateOfferBody } from '../schemas/requests.js';
import { Offer } from '../schemas/resources.js';
import { createOffer, getOffer } from '../services/offers.js';

export const offerRoutes = (ctx: CommerceContext) => [
  defineRoute({
    method: 'post',
    path: '/v1/offers',
    auth: 'key',
    operationId: 'createOffer',
    description:
      'Asks the store for the live price, availability and variants of a product link. The offer is valid for 15 minutes. Major retailers answer MERCHANT_NOT_SUPPORTED: pass their link as `product_url` when creating the checkout instead.',
    summary: 'Live price and availability for a product link. Not for major retailers.',
    tags: ['Offers'],
    body: CreateOfferBody,
    status: 201,
    response: Offer,
    errors: {
      400: 'URL_NOT_ALLOWED: the link is not a public https address (see SERVICE_STORES_ALLOW_PRIVATE).',
      422: 'MERCHANT_NOT_SUPPORTED: a major retailer, or no store at this link. Product pages: AMBIGUOUS_PRICE, NO_PRICE, UNREADABLE_PRICE, VARIANT_NOT_FOUND, PRODUCT_NOT_FOUND, PRODUCT_PAGE_UNREADABLE.',
      503: 'MERCHANT_UNAVAILABLE: the store failed, timed out or is down; Retry-After says when it is asked again.',
    },
    handler: async ({ auth, body }) =>
      reply(await createOffer(ctx, auth, body.url, body.item_ref), { status: 201 }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/offers/:id',
    auth: 'key',
    operationId: 'getOffer',
    description:
      'One offer as it was fetched, with `expires_at`. The answer carries an `ETag`; send it back in `If-None-Match` and an unchanged offer is answered `304 Not Modified` without a body.',
    summary: 'One offer.',
    tags: ['Offers'],
    params: idParam,
    response: Offer,
    etag: true,
    handler: ({ auth, params }) => getOffer(ctx, auth, params.id),
  }),
];
