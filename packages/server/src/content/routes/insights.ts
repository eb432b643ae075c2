import { z } from 'zod';
import { APP_CALLER, type ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { Id, IdParams } from '../schemas/common.js';
import { Conversation, Digest, Overview } from '../schemas/insights.js';
import { getAgentRun, runAgent } from '../services/agent-runs.js';
import { getLatestDigest, getOverview } from '../services/insights.js';
import { getConversation } from '../services/themes.js';
import { callerOf, NOT_FOUND } from './helpers.js';

const tags = ['Insights'];

export function insightRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/insights/overview',
      auth: 'person',
      operationId: 'getOverview',
      description:
        'Posts published, impressions, engagements and engagement rate over the last `days` (default 28), compared with the period before, for one brand or the whole workspace.',
      summary:
        'Totals for the last `days` (default 28) against the period before, for one brand or the workspace.',
      tags,
      query: z.strictObject({
        brand_id: Id.optional(),
        days: z.coerce.number().int().min(1).max(365).default(28),
      }),
      response: Overview,
      errors: NOT_FOUND,
      handler: ({ query }) => getOverview(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/brands/:id/digest',
      auth: 'person',
      operationId: 'getDigest',
      description:
        "The brand's latest weekly digest: headline, stats, wins, misses, patterns and recommendations, each citing posts and signals. 404 until one has been generated.",
      summary: 'The latest digest (404 until one is generated).',
      tags,
      params: IdParams,
      response: Digest,
      errors: NOT_FOUND,
      handler: ({ params }) => getLatestDigest(ctx, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/digest',
      auth: 'person',
      operationId: 'generateDigest',
      description: 'Runs the digest agent now (recorded as a run) and returns the new digest.',
      summary: 'Generate a digest now by running the digest agent (recorded as a run); returns the digest.',
      tags,
      status: 201,
      params: IdParams,
      body: z.strictObject({ days: z.number().int().min(1).max(31).default(7) }),
      response: Digest,
      errors: NOT_FOUND,
      handler: async ({ params, body, auth }) => {
        const run = await runAgent(
          ctx,
          'digest',
          { brandId: params.id, days: body.days },
          auth ? callerOf(auth) : APP_CALLER,
        );
        if (run.status !== 'succeeded') await getAgentRun(ctx, run.id);
        return getLatestDigest(ctx, params.id);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/brands/:id/conversation',
      auth: 'person',
      operationId: 'getConversation',
      description:
        'What people say in replies over the last `days`, grouped into themes (questions, objections, praise, requests), largest first, each with its count, share and top terms.',
      summary:
        'Reply themes (questions, objections, praise, requests) over the last `days` (default 30), largest first.',
      tags,
      params: IdParams,
      query: z.strictObject({ days: z.coerce.number().int().min(1).max(365).default(30) }),
      response: Conversation,
      errors: NOT_FOUND,
      handler: ({ params, query }) => getConversation(ctx, params.id, query.days),
    }),
  ];
}
