import { invalidRequest, notFound } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import type { Platform } from '../domain.js';
import type { ChannelView } from '../schemas/channels.js';
import type { Page } from '../schemas/common.js';
import { requireBrand } from './brands.js';
import { conflict } from './errors.js';
import { type BrowserBinding, startConnect } from './oauth-connect.js';
import { channelView } from './views.js';

/**
 * Sandbox: the channel connects at once, with a sandbox handle. Live: the OAuth flow starts here
 * (see oauth-connect.ts) and finishes at /oauth/<platform>/callback; `baseUrl` is where the
 * platform sends the person back. A channel waiting to be reconnected may be connected again.
 */
export async function connectChannel(
  ctx: ContentContext,
  brandId: string,
  input: { platform: Platform; handle?: string | undefined; display_name?: string | undefined },
  baseUrl = ctx.config.content.publicUrl ?? `http://127.0.0.1:${ctx.config.content.port}`,
): Promise<{ channel: ChannelView | null; authorize_url: string | null; browser?: BrowserBinding }> {
  const brand = await requireBrand(ctx, brandId);
  const store = ctx.stores.channels;
  const existing = await store.connectedFor(brandId, input.platform);
  if (existing?.status === 'connected')
    throw conflict(
      'CHANNEL_ALREADY_CONNECTED',
      `Brand '${brandId}' already has a connected ${input.platform} channel (${existing.id}). Disconnect it first.`,
    );
  if (ctx.config.mode === 'live') {
    const named =
      input.handle !== undefined ? 'handle' : input.display_name !== undefined ? 'display_name' : null;
    if (named)
      throw invalidRequest(
        `'${named}' is for sandbox channels only: a live channel takes its handle and name from the ${input.platform} account the person authorises.`,
        named,
      );
    return startConnect(ctx, brandId, input.platform, baseUrl);
  }
  if (existing)
    throw conflict(
      'CHANNEL_ALREADY_CONNECTED',
      `Brand '${brandId}' already has a ${input.platform} channel (${existing.id}). Disconnect it first.`,
    );
  const at = ctx.clock.now().toISOString();
  const handle =
    (input.handle ?? brand.name.toLowerCase().replace(/[^a-z0-9]+/g, '')).replace(/^@/, '') || 'brand';
  const row = {
    id: ctx.ids.make('ch'),
    brand_id: brandId,
    platform: input.platform,
    handle,
    display_name: input.display_name ?? brand.name,
    kind: 'sandbox',
    status: 'connected',
    connected_at: at,
    created_at: at,
  } as const;
  await store.insert(row);
  return { channel: channelView(row), authorize_url: null };
}

export async function getChannel(ctx: ContentContext, id: string): Promise<ChannelView> {
  const row = await ctx.stores.channels.get(id);
  if (!row) throw notFound('channel', id);
  return channelView(row);
}

export async function listChannels(
  ctx: ContentContext,
  filter: { brand_id?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<ChannelView>> {
  if (filter.brand_id) await requireBrand(ctx, filter.brand_id);
  const page = await ctx.stores.channels.list({ brandId: filter.brand_id }, opts.limit, opts.after);
  return { ...page, items: page.items.map(channelView) };
}

/** Disconnecting keeps the row so published posts still say where they went. */
export async function disconnectChannel(ctx: ContentContext, id: string): Promise<ChannelView> {
  const store = ctx.stores.channels;
  const row = await store.get(id);
  if (!row) throw notFound('channel', id);
  await ctx.transaction((tx) => tx.channels.disconnect(id));
  return channelView({ ...row, status: 'disconnected', status_reason: null });
}

export async function requireConnectedChannel(
  ctx: ContentContext,
  brandId: string,
  platform: Platform,
  channelId?: string,
) {
  const store = ctx.stores.channels;
  if (channelId) {
    const ch = await store.get(channelId);
    if (!ch || ch.brand_id !== brandId) throw notFound('channel', channelId);
    // A channel waiting to be reconnected still takes work: the person reconnects before the slot.
    if (ch.status === 'disconnected')
      throw conflict(
        'CHANNEL_DISCONNECTED',
        `Channel '${channelId}' is disconnected. Connect it again first.`,
      );
    if (ch.platform !== platform)
      throw conflict(
        'PLATFORM_MISMATCH',
        `Channel '${channelId}' is a ${ch.platform} channel, not ${platform}.`,
      );
    return ch;
  }
  const ch = await store.connectedFor(brandId, platform);
  if (!ch)
    throw conflict(
      'NO_CHANNEL',
      `Brand '${brandId}' has no connected ${platform} channel. Connect one (POST /v1/brands/${brandId}/channels/connect).`,
    );
  return ch;
}
