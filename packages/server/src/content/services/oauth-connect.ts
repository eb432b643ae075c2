import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import type { Platform } from '../domain.js';
import { createPkcePair } from '../publishers/pkce.js';
import { type ProviderAccount, ProviderError, type TokenSet } from '../publishers/provider.js';
import { providerFor } from '../publishers/registry.js';
import { checkedAccount } from './account-names.js';
import { saveTokens, secretBox } from './channel-credentials.js';

/**
 * The live connect flow (OAuth 2.0 authorization code, RFC 6749 §4.1, with PKCE, RFC 7636):
 * `startConnect` keeps a one-time `state` and the PKCE verifier server-side and gives the
 * platform's authorise URL; the platform sends the person's browser to
 * /oauth/<platform>/callback, where `completeConnect` checks the state, exchanges the code,
 * asks the platform which account it is, stores the tokens sealed and connects the channel.
 *
 * The state is also bound to the browser that started the connect (RFC 6749 §10.12): the start
 * hands back a random value for an HttpOnly cookie and keeps only its hash with the state, and
 * the callback refuses a browser that does not present it. Without that, someone could start a
 * connect, authorise their own account, and send the person's browser the callback link, so the
 * person's brand would publish to the attacker's account (login CSRF).
 */

/** Where a live platform sends the person back after authorising; public through the gate. */
export const oauthCallbackPath = (platform: Platform) => `/oauth/${platform}/callback`;

/** A started connect is good for ten minutes, once. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** Finished and expired states are kept a day, so a late replay is told "used" or "expired". */
const STATE_KEEP_MS = 24 * 60 * 60_000;
/** Where the person lands after the callback: the app's Settings page. */
export const SETTINGS_PATH = '/settings';

const hashState = (state: string) => createHash('sha256').update(state, 'utf8').digest('hex');

/**
 * The cookie that binds one connect to the browser: one per started connect (named from the
 * state's hash, so two connects in two tabs do not overwrite each other), gone with the state.
 */
export interface BrowserBinding {
  cookie: string;
  value: string;
  maxAgeSeconds: number;
}
export const browserCookieName = (state: string) => `svc_oauth_${hashState(state).slice(0, 16)}`;

function sameBrowser(presented: string | undefined, storedHash: string | null): boolean {
  if (!presented || !storedHash) return false;
  const got = Buffer.from(hashState(presented), 'hex');
  const want = Buffer.from(storedHash, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
const verifierContext = (stateHash: string) => `oauth_states:${stateHash}:code_verifier`;

export async function startConnect(
  ctx: ContentContext,
  brandId: string,
  platform: Platform,
  baseUrl: string,
): Promise<{ channel: null; authorize_url: string; browser: BrowserBinding }> {
  const provider = providerFor(ctx.config, platform);
  const box = secretBox(ctx);
  const now = ctx.clock.now();
  const state = randomBytes(32).toString('base64url');
  const stateHash = hashState(state);
  const browserKey = randomBytes(32).toString('base64url');
  const pkce = createPkcePair();
  const redirectUri = `${baseUrl}${oauthCallbackPath(platform)}`;
  const states = ctx.stores.oauthStates;
  await states.purge(new Date(now.getTime() - STATE_KEEP_MS).toISOString());
  await states.insert({
    state_hash: stateHash,
    brand_id: brandId,
    platform,
    code_verifier: box.seal(pkce.verifier, verifierContext(stateHash)),
    redirect_uri: redirectUri,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + OAUTH_STATE_TTL_MS).toISOString(),
    used_at: null,
    browser_hash: hashState(browserKey),
  });
  return {
    channel: null,
    browser: {
      cookie: browserCookieName(state),
      value: browserKey,
      maxAgeSeconds: OAUTH_STATE_TTL_MS / 1000,
    },
    authorize_url: provider.authorizeUrl({
      state,
      codeChallenge: pkce.challenge,
      redirectUri,
      scopes: [
        ...new Set([...provider.defaultScopes, ...(ctx.config.platforms[platform].extraScopes ?? [])]),
      ],
    }),
  };
}

const badState = (code: string, message: string) => new AppError(400, code, message, { param: 'state' });

/** Where the callback sends the person: the Settings page, with what happened. */
const settings = (params: Record<string, string>) => `${SETTINGS_PATH}?${new URLSearchParams(params)}`;

/**
 * Codes the Settings page receives as `connect_error` (documented in docs/content/live.md):
 * the person said no, the platform answered with an error, the code could not be exchanged, the
 * account could not be read, or the brand already has another account connected there.
 */
export type ConnectErrorCode =
  | 'access_denied'
  | 'platform_error'
  | 'token_exchange_failed'
  | 'account_lookup_failed'
  | 'channel_already_connected';

/**
 * Finishes a connect. A missing, unknown, expired or used `state`, or one this browser did not
 * start (`cookie` is how the route reads the browser's cookies), is refused with 400 and
 * nothing is written. Once the state is valid it is spent, and every outcome sends the person
 * back to the app: `/settings?connected=<channel id>` or `/settings?connect_error=<code>`.
 */
export async function completeConnect(
  ctx: ContentContext,
  platform: Platform,
  query: Record<string, string>,
  cookie: (name: string) => string | undefined,
): Promise<{ location: string }> {
  const provider = providerFor(ctx.config, platform, { now: () => ctx.clock.now() });
  const state = query.state;
  if (!state) {
    throw badState(
      'OAUTH_STATE_MISSING',
      'This callback carries no state, so it belongs to no connect started here. Start again from Settings → Channels.',
    );
  }
  const stateHash = hashState(state);
  const states = ctx.stores.oauthStates;
  const row = await states.get(stateHash);
  const now = ctx.clock.now();
  if (!row || row.platform !== platform) {
    throw badState(
      'OAUTH_STATE_INVALID',
      `This ${platform} callback's state matches no connect started here. Start again from Settings → Channels.`,
    );
  }
  if (!sameBrowser(cookie(browserCookieName(state)), row.browser_hash)) {
    throw badState(
      'OAUTH_STATE_OTHER_BROWSER',
      'This callback did not come from the browser that started the connect (its cookie is missing or does not match), so it was refused. Start again from Settings → Channels, in the browser you sign in to the platform with.',
    );
  }
  if (row.used_at) {
    throw badState(
      'OAUTH_STATE_USED',
      'This connect was already completed or cancelled; a callback works once. Start again from Settings → Channels.',
    );
  }
  if (Date.parse(row.expires_at) <= now.getTime()) {
    throw badState(
      'OAUTH_STATE_EXPIRED',
      `This connect was started more than ${OAUTH_STATE_TTL_MS / 60_000} minutes ago and has expired. Start again from Settings → Channels.`,
    );
  }
  if (!(await states.use(stateHash, now.toISOString()))) {
    throw badState('OAUTH_STATE_USED', 'This connect was already completed; a callback works once.');
  }

  const fail = (code: ConnectErrorCode, detail: string) => {
    ctx.logger.warn({ platform, brandId: row.brand_id, code, detail }, 'channel connect failed');
    return { location: settings({ connect_error: code, platform }) };
  };
  // RFC 6749 §4.1.2.1: the platform answers a refusal with `error` (and maybe a description).
  if (query.error) {
    return fail(
      query.error === 'access_denied' ? 'access_denied' : 'platform_error',
      `${query.error}: ${query.error_description ?? 'no description'}`,
    );
  }
  if (!query.code) return fail('platform_error', 'the callback has neither a code nor an error');

  const verifier = secretBox(ctx).open(row.code_verifier, verifierContext(stateHash));
  let tokens: TokenSet;
  try {
    tokens = await provider.exchangeCode({
      code: query.code,
      codeVerifier: verifier,
      redirectUri: row.redirect_uri,
    });
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    return fail('token_exchange_failed', err.message);
  }
  let account: ProviderAccount;
  try {
    if (!provider.account)
      throw new ProviderError(platform, 'invalid', `The ${platform} provider cannot name the account.`);
    account = checkedAccount(platform, await provider.account(tokens.accessToken));
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    return fail('account_lookup_failed', err.message);
  }

  // Null when the brand has another account connected on the platform: nothing is written.
  const connected = await ctx.transaction(async (tx): Promise<string | null> => {
    const channels = tx.channels;
    const at = ctx.clock.now().toISOString();
    const names = {
      handle: account.handle,
      display_name: account.displayName,
      connected_at: at,
    };
    const current = await channels.connectedFor(row.brand_id, platform);
    let channelId: string | null = null;
    if (current) {
      if (current.platform_user_id === account.id) channelId = current.id;
      else if (current.status === 'connected') return null;
      // Waiting for a reconnect, and the person chose another account: that channel lets go.
      else await channels.disconnect(current.id);
    }
    // The same account connected to this brand before: the same channel comes back, with its history.
    channelId ??= (await channels.forAccount(row.brand_id, platform, account.id))?.id ?? null;
    if (channelId) await channels.reconnect(channelId, names);
    else {
      channelId = ctx.ids.make('ch');
      await channels.insert({
        id: channelId,
        brand_id: row.brand_id,
        platform,
        ...names,
        kind: 'live',
        status: 'connected',
        created_at: at,
        platform_user_id: account.id,
      });
    }
    // Without the refresh lease: the person must not wait behind a refresh stuck on another
    // instance. A refresh in flight writes nothing over these tokens, and does not mark the channel
    // when the platform refuses the old grant: its writes compare the tokens it read (Held in
    // channel-credentials.ts), and it uses these instead.
    await saveTokens(ctx, channelId, tokens, { db: tx });
    return channelId;
  });
  if (!connected) {
    return fail(
      'channel_already_connected',
      `brand ${row.brand_id} has another ${platform} account connected`,
    );
  }
  ctx.logger.info({ platform, brandId: row.brand_id, channelId: connected }, 'channel connected');
  return { location: settings({ connected }) };
}
