import { z } from 'zod';
import { AppError } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import { oauthNotConfigured } from '../publishers/registry.js';
import { defineRoute } from '../route.js';
import { Channel, ConnectChannelBody, ConnectResult, CreateSignalBody, Signal } from '../schemas/channels.js';
import { Id, IdParams, Platform, pageOf, pageQuery, SignalKind } from '../schemas/common.js';
import { connectChannel, disconnectChannel, getChannel, listChannels } from '../services/channels.js';
import { createSignal, listSignals } from '../services/signals.js';
import { listBody, NOT_FOUND } from './helpers.js';

const tags = ['Channels'];

export function channelRoutes(ctx: ContentContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/channels',
      auth: 'person',
      operationId: 'listChannels',
      description:
        "The social accounts connected to the workspace's brands, with their platform, handle and status, including disconnected ones.",
      summary: 'List channels (connected and disconnected), newest first.',
      tags,
      query: z.strictObject({ brand_id: Id.optional(), ...pageQuery }),
      response: pageOf('channels', Channel),
      handler: async ({ query }) => listBody('channels', await listChannels(ctx, query, query)),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/channels/:id',
      auth: 'person',
      operationId: 'getChannel',
      description: 'One channel with its platform, handle, brand and status.',
      summary: 'One channel.',
      tags,
      params: IdParams,
      response: Channel,
      errors: NOT_FOUND,
      handler: ({ params }) => getChannel(ctx, params.id),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/channels/:id',
      auth: 'person',
      operationId: 'disconnectChannel',
      description:
        'Disconnects the account from the brand. Posts already published stay; posts scheduled on it fail when due, with a reason.',
      summary: 'Disconnect a channel. Its published posts stay; scheduled posts on it fail when due.',
      tags,
      params: IdParams,
      response: Channel,
      errors: NOT_FOUND,
      handler: ({ params }) => disconnectChannel(ctx, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/channels/connect',
      auth: 'person',
      operationId: 'connectChannel',
      description:
        'Starts connecting a platform account to the brand. In sandbox mode the channel is connected at once with a sandbox handle. In live mode this build answers 501 OAUTH_NOT_CONFIGURED: live publishing is not available yet.',
      summary:
        'Start connecting an account. Sandbox: connected at once. Live: the OAuth flow, which returns to /oauth/{platform}/callback (501 OAUTH_NOT_CONFIGURED in this build).',
      tags,
      status: 201,
      params: IdParams,
      body: ConnectChannelBody,
      response: ConnectResult,
      errors: { ...NOT_FOUND, 409: 'CHANNEL_ALREADY_CONNECTED', 501: 'OAUTH_NOT_CONFIGURED (live mode)' },
      handler: ({ params, body }) => connectChannel(ctx, params.id, body),
    }),
    defineRoute({
      method: 'get',
      path: '/oauth/:platform/callback',
      auth: 'public',
      operationId: 'oauthCallback',
      description:
        'Where a platform sends the person back after they authorise. Reachable through the local-only gate, because the platform redirects a browser that may be anywhere. No platform OAuth client exists in this build yet, so the page explains that.',
      summary:
        'Where a platform returns after the person authorises. Reachable through the local-only gate. No OAuth client exists in this build, so it always explains why.',
      tags,
      params: z.strictObject({ platform: Platform }),
      query: z.record(z.string(), z.string()),
      response: z.object({}),
      handler: ({ params }) => {
        if (ctx.config.mode === 'sandbox')
          throw new AppError(
            400,
            'NOT_AN_OAUTH_FLOW',
            'Sandbox channels connect at once with POST /v1/brands/:id/channels/connect; there is no OAuth callback to complete.',
          );
        throw oauthNotConfigured(params.platform);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/brands/:id/signals',
      auth: 'person',
      operationId: 'listSignals',
      description:
        "What the brand's world is saying: trends, questions, competitor moves, mentions and news, newest first. Idea suggestions cite these.",
      summary: 'Signals (trends, questions, competitor moves, mentions, news) for a brand, newest first.',
      tags: ['Insights'],
      params: IdParams,
      query: z.strictObject({ kind: SignalKind.optional(), ...pageQuery }),
      response: pageOf('signals', Signal),
      errors: NOT_FOUND,
      handler: async ({ params, query }) =>
        listBody('signals', await listSignals(ctx, params.id, query, query)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/signals',
      auth: 'person',
      operationId: 'createSignal',
      description:
        'Records a signal by hand (kind, title, summary, optional URL and strength). Idea suggestions can then cite it.',
      summary: 'Record a signal by hand; ideas can then be suggested from it.',
      tags: ['Insights'],
      status: 201,
      params: IdParams,
      body: CreateSignalBody,
      response: Signal,
      errors: NOT_FOUND,
      handler: ({ params, body }) => createSignal(ctx, params.id, body),
    }),
  ];
}
