import { z } from 'zod';
import { AppError } from '../../platform/errors.js';
import { publicBaseUrl } from '../../platform/http/base-url.js';
import { reply } from '../../platform/http/route.js';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { Channel, ConnectChannelBody, ConnectResult, CreateSignalBody, Signal } from '../schemas/channels.js';
import { Id, IdParams, Platform, pageOf, pageQuery, SignalKind } from '../schemas/common.js';
import { connectChannel, disconnectChannel, getChannel, listChannels } from '../services/channels.js';
import { completeConnect } from '../services/oauth-connect.js';
import { createSignal, listSignals } from '../services/signals.js';
import { listBody, NOT_FOUND } from './helpers.js';
import { bindingCookie, readCookie } from './oauth-cookie.js';

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
        "Starts connecting a platform account to the brand. Sandbox: the channel is connected at once with a sandbox handle (`handle` and `display_name` may name it). Live: answers `{channel: null, authorize_url}` and sets an HttpOnly cookie scoped to the callback path that binds the connect to this browser; send the same browser to `authorize_url`. The platform returns them to `/oauth/{platform}/callback`, which connects the channel and sends them on to the app's Settings page. The link works once, for ten minutes. A channel marked `needs_reconnect` is reconnected the same way. 501 OAUTH_NOT_CONFIGURED, naming the variables to set, when the platform has no OAuth app configured.",
      summary:
        'Start connecting an account. Sandbox: connected at once. Live: returns the authorise URL of the OAuth flow, which finishes at /oauth/{platform}/callback.',
      tags,
      status: 201,
      params: IdParams,
      body: ConnectChannelBody,
      response: ConnectResult,
      errors: {
        ...NOT_FOUND,
        409: 'CHANNEL_ALREADY_CONNECTED',
        501: 'OAUTH_NOT_CONFIGURED (live mode, the platform has no OAuth app configured)',
      },
      handler: async ({ params, body, req }) => {
        const baseUrl = publicBaseUrl(req, ctx.config.content.publicUrl, ctx.config.content.port);
        const { browser, ...result } = await connectChannel(ctx, params.id, body, baseUrl);
        // Live: the browser that started the connect carries the cookie the callback asks for.
        const headers: Record<string, string> = browser
          ? { 'set-cookie': bindingCookie(browser, body.platform, baseUrl) }
          : {};
        return reply(result, { status: 201, headers });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/oauth/:platform/callback',
      auth: 'public',
      operationId: 'oauthCallback',
      description:
        "Where a platform sends the person's browser back after they authorise (register `<CONTENT_PUBLIC_URL>/oauth/<platform>/callback` with the platform). Reachable through the local-only gate, because the platform redirects a browser that may be anywhere. A missing, unknown, expired or already used `state`, or a browser without the cookie the connect set, is refused with 400 and nothing is written. Otherwise the state is spent and the person is redirected (302) to the app: `/settings?connected=<channel id>`, or `/settings?connect_error=<code>&platform=<platform>` with code `access_denied` (the person said no), `platform_error`, `token_exchange_failed`, `account_lookup_failed` or `channel_already_connected`.",
      summary:
        'Where a platform returns after the person authorises: checks the state, stores the tokens encrypted, connects the channel and redirects to the app.',
      tags,
      status: 302,
      params: z.strictObject({ platform: Platform }),
      query: z.record(z.string(), z.string()),
      response: z.object({}),
      errors: {
        400: 'OAUTH_STATE_MISSING, OAUTH_STATE_INVALID, OAUTH_STATE_OTHER_BROWSER (the browser lacks the cookie the connect set), OAUTH_STATE_EXPIRED, OAUTH_STATE_USED; NOT_AN_OAUTH_FLOW in sandbox mode',
        501: 'OAUTH_NOT_CONFIGURED',
      },
      handler: async ({ params, query, req }) => {
        if (ctx.config.mode === 'sandbox')
          throw new AppError(
            400,
            'NOT_AN_OAUTH_FLOW',
            'Sandbox channels connect at once with POST /v1/brands/:id/channels/connect; there is no OAuth callback to complete.',
          );
        const { location } = await completeConnect(ctx, params.platform, query, (name) =>
          readCookie(req, name),
        );
        return reply({}, { status: 302, headers: { location } });
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
