// TEMPORARY STUB (live-publish): live-connect owns this file; replaced by theirs at `git merge live-connect`.
import { AppError } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import type { Platform } from '../domain.js';
import type { TokenSet } from '../publishers/provider.js';
import { providerFor } from '../publishers/registry.js';

interface Row {
  channel_id: string;
  access_token: string;
  refresh_token: string | null;
  expires_at: string | null;
}

export async function saveTokens(ctx: ContentContext, channelId: string, t: TokenSet): Promise<void> {
  await ctx.db.run(
    'INSERT OR REPLACE INTO channel_tokens (channel_id, access_token, refresh_token, expires_at) VALUES (?, ?, ?, ?)',
    [channelId, t.accessToken, t.refreshToken, t.expiresAt?.toISOString() ?? null],
  );
}

const needsReconnect = () =>
  new AppError(409, 'CHANNEL_NEEDS_RECONNECT', 'Reconnect the channel in Settings → Channels (/settings).');

export async function refreshAccessToken(ctx: ContentContext, channelId: string): Promise<string> {
  const row = await ctx.db.get<Row>('SELECT * FROM channel_tokens WHERE channel_id = ?', [channelId]);
  const ch = await ctx.db.get<{ platform: string }>('SELECT platform FROM channels WHERE id = ?', [
    channelId,
  ]);
  if (!row?.refresh_token || !ch) throw needsReconnect();
  try {
    const t = await providerFor(ctx.config, ch.platform as Platform).refresh(row.refresh_token);
    await saveTokens(ctx, channelId, t);
    return t.accessToken;
  } catch {
    await ctx.db.run("UPDATE channels SET status = 'needs_reconnect' WHERE id = ?", [channelId]);
    throw needsReconnect();
  }
}

export async function accessTokenFor(ctx: ContentContext, channelId: string): Promise<string> {
  const row = await ctx.db.get<Row>('SELECT * FROM channel_tokens WHERE channel_id = ?', [channelId]);
  if (!row) throw needsReconnect();
  if (row.expires_at && Date.parse(row.expires_at) - ctx.clock.now().getTime() < 5 * 60_000)
    return refreshAccessToken(ctx, channelId);
  return row.access_token;
}
