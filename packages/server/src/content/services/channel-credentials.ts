import { createSecretBox, type SecretBox, SecretBoxError } from '../../platform/crypto/secret-box.js';
import { type HeldLease, withLeaseLock } from '../../platform/db/lease-lock.js';
import { AppError, notFound } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import type { ChannelRow } from '../db/stores/channels-store.js';
import type { ContentStores } from '../db/stores/index.js';
import { ProviderError, type TokenSet } from '../publishers/provider.js';
import { providerFor } from '../publishers/registry.js';
import { conflict } from './errors.js';

/**
 * The tokens of live channels, and the one place that reads them: `accessTokenFor` gives a usable
 * access token (refreshed first when it expires within five minutes), `refreshAccessToken`
 * refreshes now (after a platform's 401), `saveTokens` writes them sealed with
 * SERVICE_SECRET_KEY. A refresh the platform refuses marks the channel `needs_reconnect`: only the
 * person can fix that, by connecting the account again in Settings → Channels.
 */

/** Refresh this long before the platform says the access token expires. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** Safe per instance: a box is a pure function of the key, the same on every instance. */
const boxes = new WeakMap<Buffer, SecretBox>();

/** The secret box keyed by SERVICE_SECRET_KEY (start-up makes sure live mode has one). */
export function secretBox(ctx: Pick<ContentContext, 'config'>): SecretBox {
  const key = ctx.config.secretKey;
  if (!key) {
    throw new AppError(
      500,
      'SECRET_KEY_MISSING',
      'SERVICE_SECRET_KEY is not set, so platform tokens cannot be stored or read.',
    );
  }
  let box = boxes.get(key);
  if (!box) {
    box = createSecretBox(key);
    boxes.set(key, box);
  }
  return box;
}

/** What a sealed value is bound to: moving it to another row or field makes it unreadable. */
const sealContext = (channelId: string, field: 'access_token' | 'refresh_token') =>
  `channel_credentials:${channelId}:${field}`;

type ChannelNames = Pick<ChannelRow, 'id' | 'platform' | 'handle'> & { status_reason?: string | null };

/** What the person reads wherever the channel shows up: the error, and a pending approval's warning. */
export const reconnectMessage = (channel: ChannelNames, reason = channel.status_reason) =>
  `The ${channel.platform} channel @${channel.handle} (${channel.id}) needs to be connected again: ${reason ?? 'its platform access lapsed.'} Reconnect it in the app's Settings → Channels (/settings).`;

export const needsReconnect = (channel: ChannelNames, reason?: string) =>
  new AppError(409, 'CHANNEL_NEEDS_RECONNECT', reconnectMessage(channel, reason));

async function liveChannel(ctx: ContentContext, channelId: string): Promise<ChannelRow> {
  const channel = await ctx.stores.channels.get(channelId);
  if (!channel) throw notFound('channel', channelId);
  if (channel.kind !== 'live')
    throw conflict(
      'NOT_A_LIVE_CHANNEL',
      `Channel '${channelId}' is a sandbox channel; it has no platform tokens.`,
    );
  if (channel.status === 'disconnected')
    throw conflict('CHANNEL_DISCONNECTED', `Channel '${channelId}' is disconnected. Connect it again first.`);
  if (channel.status === 'needs_reconnect') throw needsReconnect(channel);
  return channel;
}

/**
 * What a write over a channel's tokens was decided on: the sealed access token read (null when
 * none was stored) and, inside a refresh, its lease.
 *
 * The connect flow (oauth-connect.ts) writes the person's new tokens WITHOUT the refresh lease: a
 * person waiting on the platform's redirect must not wait behind a refresh that is stuck for
 * minutes on another instance. So besides the lease's fence, every write decided on what was read
 * (a refresh's new tokens, a needs_reconnect mark inside a refresh or outside one) is a
 * compare-and-set on that read: a seal is unique (a random IV), so any write since (a reconnect,
 * a disconnect) changes the sealed text. A write that finds it changed writes nothing, neither
 * tokens derived from the old grant over the new ones nor a needs_reconnect mark because the
 * platform refused the old grant's refresh token, or because the tokens read before the person
 * connected again were missing or unreadable; it throws TokensReplaced and the caller reads the
 * tokens again (underRefreshLease, accessTokenFor). Checking in the database, not in the process,
 * holds across instances.
 */
interface Held {
  read: string | null;
  lease?: HeldLease;
}

/** Another write replaced the tokens a caller read: it stored nothing, and reads them again. */
class TokensReplaced extends Error {}

/** Marks the channel for the person and returns the error to throw (see Held). */
async function markForReconnect(
  ctx: ContentContext,
  channel: ChannelRow,
  reason: string,
  held: Held,
): Promise<AppError> {
  const marked = await ctx.transaction(async (tx) => {
    if (held.lease) await held.lease.fence(tx.leases);
    // Mark first, look second: on PostgreSQL the mark locks the channel row, and a connect
    // writes the channel row before its tokens in one transaction, so it has either committed
    // (this read sees its tokens, and the mark rolls back) or waits to connect it after us.
    // Looking first would read the tokens from before a connect still open, then mark the
    // channel it connects (test reconnect-beside-mark.postgres).
    const moved = await tx.channels.markNeedsReconnect(channel.id, reason);
    const now = await tx.channelCredentials.get(channel.id);
    if ((now?.access_token ?? null) !== held.read) throw new TokensReplaced();
    return moved;
  });
  if (marked) {
    ctx.logger.warn(
      { channelId: channel.id, platform: channel.platform, reason },
      'channel needs reconnecting',
    );
  }
  return needsReconnect(channel, reason);
}

/** The credentials row for `tokens`, sealed for the channel. */
function sealed(ctx: ContentContext, channelId: string, tokens: TokenSet) {
  const box = secretBox(ctx);
  return {
    channel_id: channelId,
    access_token: box.seal(tokens.accessToken, sealContext(channelId, 'access_token')),
    refresh_token: tokens.refreshToken
      ? box.seal(tokens.refreshToken, sealContext(channelId, 'refresh_token'))
      : null,
    expires_at: tokens.expiresAt ? tokens.expiresAt.toISOString() : null,
    scopes: tokens.scopes.join(' '),
    updated_at: ctx.clock.now().toISOString(),
  };
}

/** Stores the tokens of a connect, over whatever was stored (see Held for a refresh in flight). */
export async function saveTokens(
  ctx: ContentContext,
  channelId: string,
  tokens: TokenSet,
  /** `db`: a transaction to write in (the connect flow creates the channel in the same one). */
  opts: { db?: ContentStores } = {},
): Promise<void> {
  const row = sealed(ctx, channelId, tokens);
  await (opts.db ?? ctx.stores).channelCredentials.upsert({ ...row, created_at: row.updated_at });
}

/**
 * Refresh tokens rotate: two refreshes sent with one refresh token spend it twice, and the second
 * is refused, which would cost the person the channel. So a channel's refresh runs under a lease
 * in the database, one at a time across every instance; a caller that finds one running waits for
 * it and then reads the tokens it stored instead of refreshing again.
 */
export const REFRESH_LEASE_MS = 2 * 60_000;
const refreshLease = (channelId: string) => `content:token-refresh:${channelId}`;

/**
 * Runs `fn` under the channel's refresh lease. A lease another holder keeps past the wait, or a
 * stop while waiting for it, is LOCK_BUSY, and a second LOCK_LOST is thrown as well
 * (LeaseUnavailable): nothing was done, so a publish is tried again later and a request is
 * answered 503 with Retry-After.
 *
 * `fn` reads the tokens again first, so when this call stalled past its lease and another refresh
 * took over (LOCK_LOST: nothing of ours was written), running it once more waits for that refresh
 * and uses what it stored; and when a connect replaced the tokens it read (TokensReplaced: nothing
 * of ours was written either), running it again under the same lease uses the person's new tokens.
 */
async function underRefreshLease(
  ctx: ContentContext,
  channelId: string,
  fn: (lease: HeldLease) => Promise<string>,
) {
  const ttlMs = ctx.workLeaseMs ?? REFRESH_LEASE_MS;
  const run = () =>
    withLeaseLock(
      ctx.db,
      refreshLease(channelId),
      {
        instance: ctx.instanceId,
        // Longer than the refresh call can take (its timeout); renewed while it runs all the same.
        ttlMs,
        // An eighth longer than the lease (2 min 15 s), so a dead holder's lease runs out first.
        waitMs: ttlMs + ttlMs / 8,
        what: `the token refresh of channel ${channelId}`,
        // A stop ends the wait (LOCK_BUSY): up to two waits after a LOCK_LOST held close() 4.5 min.
        signal: ctx.stopSignal,
      },
      async (lease) => {
        for (;;) {
          try {
            return await fn(lease);
          } catch (err) {
            if (!(err instanceof TokensReplaced)) throw err;
          }
        }
      },
    );
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'LOCK_LOST')) throw err;
    return run();
  }
}

/** The stored access token, opened; marks the channel when it cannot be read. */
async function openAccessToken(
  ctx: ContentContext,
  channel: ChannelRow,
  read: string,
  lease?: HeldLease,
): Promise<string> {
  try {
    return secretBox(ctx).open(read, sealContext(channel.id, 'access_token'));
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw await markForReconnect(ctx, channel, `its stored tokens cannot be read (${err.message})`, {
      read,
      lease,
    });
  }
}

const expiresSoon = (ctx: ContentContext, expiresAt: string | null) =>
  expiresAt !== null && Date.parse(expiresAt) - ctx.clock.now().getTime() <= REFRESH_MARGIN_MS;

/**
 * Refreshes under the lease: every write (the new tokens, or the mark for the person) goes behind
 * its fence, and only over the tokens it read (Held). The platform call itself is not cut short when the lease is lost: once sent, the
 * platform may already have rotated the refresh token, and only the fence can tell whether the
 * answer is still ours to store.
 */
async function refreshNow(ctx: ContentContext, channel: ChannelRow, lease: HeldLease): Promise<string> {
  const creds = await ctx.stores.channelCredentials.get(channel.id);
  const held: Held = { read: creds?.access_token ?? null, lease };
  if (!creds) throw await markForReconnect(ctx, channel, 'no platform tokens are stored for it.', held);
  if (!creds.refresh_token) {
    throw await markForReconnect(
      ctx,
      channel,
      `its ${channel.platform} access token expired and ${channel.platform} gave no refresh token.`,
      held,
    );
  }
  let refreshToken: string;
  try {
    refreshToken = secretBox(ctx).open(creds.refresh_token, sealContext(channel.id, 'refresh_token'));
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw await markForReconnect(ctx, channel, `its stored tokens cannot be read (${err.message})`, held);
  }
  const provider = providerFor(ctx.config, channel.platform, { now: () => ctx.clock.now() });
  let tokens: TokenSet;
  try {
    tokens = await provider.refresh(refreshToken);
  } catch (err) {
    // No answer or a rate limit says nothing about the grant: the caller may try again later.
    if (err instanceof ProviderError && (err.kind === 'unavailable' || err.kind === 'rate_limited'))
      throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw await markForReconnect(
      ctx,
      channel,
      `${channel.platform} refused to refresh its access (${why}).`,
      held,
    );
  }
  const stored: TokenSet = {
    ...tokens,
    // RFC 6749 §6: without a new refresh token the old one stays good; without scopes, they did not change.
    refreshToken: tokens.refreshToken ?? refreshToken,
    scopes: tokens.scopes.length ? tokens.scopes : creds.scopes.split(' ').filter(Boolean),
  };
  const saved = await ctx.transaction(async (tx) => {
    await lease.fence(tx.leases);
    return tx.channelCredentials.replace(sealed(ctx, channel.id, stored), creds.access_token);
  });
  if (!saved) throw new TokensReplaced();
  return tokens.accessToken;
}

/**
 * Refreshes the channel's access token now (after the platform answered 401 to `rejected`). Throws
 * 409 CHANNEL_NEEDS_RECONNECT, with the channel marked, when the platform refuses the refresh; a
 * ProviderError `unavailable` / `rate_limited` when it could not be asked (nothing marked). When
 * another call (on any instance) stored a new token since `rejected` was read, or a reconnect did
 * while the refresh ran, that one is used.
 */
export async function refreshAccessToken(
  ctx: ContentContext,
  channelId: string,
  rejected?: string,
): Promise<string> {
  await liveChannel(ctx, channelId);
  return underRefreshLease(ctx, channelId, async (lease) => {
    // Read again under the lease: the status and tokens may have changed while we waited.
    const channel = await liveChannel(ctx, channelId);
    const creds = await ctx.stores.channelCredentials.get(channelId);
    if (creds && rejected !== undefined) {
      const current = await openAccessToken(ctx, channel, creds.access_token, lease);
      if (current !== rejected) return current;
    }
    return refreshNow(ctx, channel, lease);
  });
}

/**
 * A usable access token for the channel, refreshed first when it expires within five minutes.
 * Read again from the start when a connect replaced the tokens while a mark was being decided on
 * them (TokensReplaced).
 */
export async function accessTokenFor(ctx: ContentContext, channelId: string): Promise<string> {
  for (;;) {
    try {
      return await currentAccessToken(ctx, channelId);
    } catch (err) {
      if (!(err instanceof TokensReplaced)) throw err;
    }
  }
}

async function currentAccessToken(ctx: ContentContext, channelId: string): Promise<string> {
  const channel = await liveChannel(ctx, channelId);
  const creds = await ctx.stores.channelCredentials.get(channelId);
  if (!creds)
    throw await markForReconnect(ctx, channel, 'no platform tokens are stored for it.', { read: null });
  if (!expiresSoon(ctx, creds.expires_at)) return openAccessToken(ctx, channel, creds.access_token);
  return underRefreshLease(ctx, channelId, async (lease) => {
    // Whoever held the lease before us may have refreshed already: then its token is the one.
    const fresh = await liveChannel(ctx, channelId);
    const now = await ctx.stores.channelCredentials.get(channelId);
    if (now && !expiresSoon(ctx, now.expires_at)) return openAccessToken(ctx, fresh, now.access_token, lease);
    return refreshNow(ctx, fresh, lease);
  });
}
