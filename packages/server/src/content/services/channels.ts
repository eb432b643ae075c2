import { notFound } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import { channelsStore } from '../db/stores/channels-store.js';
import type { Platform } from '../domain.js';
import { oauthNotConfigured } from '../publishers/registry.js';
import type { ChannelView } from '../schemas/channels.js';
import type { Page } from '../schemas/common.js';
import { requireBrand } from './brands.js';
import { conflict } from './errors.js';
import { channelView } from './views.js';

/** Where a live platform will send the person back after authorising; public through the gate. */
export const oauthCallbackPath = (platform: Platform) => `/oauth/${platform}/callback`;

/**
 * Sandbox: the channel connects at once, with a sandbox handle. Live: the OAuth flow would
 * start here and finish at /oauth/<platform>/callback; with no client configured it refuses.
 */
export async function connectChannel(
  ctx: ContentContext,
  brandId: string,
  input: { platform: Platform; handle?: string | undefined; display_name?: string | undefined },
): Promise<{ channel: ChannelView | null; authorize_url: string | null }> {
  const brand = await requireBrand(ctx, brandId);
  if (ctx.config.mode === 'live') throw oauthNotConfigured(input.platform);
  const store = channelsStore(ctx.db);
  const existing = await store.connectedFor(brandId, input.platform);
  if (existing)
    throw conflict(
      'CHANNEL_ALREADY_CONNECTED',
      `Brand '${brandId}' already has a connected ${input.platform} channel (${existing.id}). Disconnect it first.`,
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
  };
  await store.insert(row);
  return { channel: channelView(row), authorize_url: null };
}

export async function getChannel(ctx: ContentContext, id: string): Promise<ChannelView> {
  const row = await channelsStore(ctx.db).get(id);
  if (!row) throw notFound('channel', id);
  return channelView(row);
}

export async function listChannels(
  ctx: ContentContext,
  filter: { brand_id?: string | undefined },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<ChannelView>> {
  if (filter.brand_id) await requireBrand(ctx, filter.brand_id);
  const page = await channelsStore(ctx.db).list({ brandId: filter.brand_id }, opts.limit, opts.after);
  return { ...page, items: page.items.map(channelView) };
}

/** Disconnecting keeps the row so published posts still say where they went. */
export async function disconnectChannel(ctx: ContentContext, id: string): Promise<ChannelView> {
  const store = channelsStore(ctx.db);
  const row = await store.get(id);
  if (!row) throw notFound('channel', id);
  await store.disconnect(id);
  return channelView({ ...row, status: 'disconnected' });
}

export async function requireConnectedChannel(
  ctx: ContentContext,
  brandId: string,
  platform: Platform,
  channelId?: string,
) {
  const store = channelsStore(ctx.db);
  if (channelId) {
    const ch = await store.get(channelId);
    if (!ch || ch.brand_id !== brandId) throw notFound('channel', channelId);
    if (ch.status !== 'connected')
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
