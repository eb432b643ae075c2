import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createXProvider, X_SCOPES } from '../../src/content/publishers/x/index.js';
import {
  accessTokenFor,
  refreshAccessToken,
  secretBox,
} from '../../src/content/services/channel-credentials.js';
import { browserCookieName } from '../../src/content/services/oauth-connect.js';
import type { SqlValue } from '../../src/platform/db/sql.js';
import type { SqliteDatabase } from '../../src/platform/db/sqlite.js';
import { AppError } from '../../src/platform/errors.js';
import {
  authorize,
  connectLive,
  type LiveStack,
  startLive,
  visit,
  X_CLIENT_SECRET,
} from '../helpers/live.js';
import { api } from '../helpers/start.js';
import { makeBrand, makeDraft } from './helpers.js';
import { makeKey, connect as mcpConnect } from './mcp-helpers.js';

let live: LiveStack;
afterEach(async () => {
  await live?.close();
});

const rows = (sql: string, ...params: SqlValue[]) => live.ctx.db.all<any>(sql, params);
const channelsOf = (brandId: string) => rows('SELECT * FROM channels WHERE brand_id = ?', brandId);
const HOUR = 3_600_000;

/** What the database holds for the channel's tokens, opened with the service's key. */
async function storedTokens(channelId: string) {
  const [row] = await rows('SELECT * FROM channel_credentials WHERE channel_id = ?', channelId);
  const box = secretBox(live.ctx);
  return {
    row,
    access: box.open(row.access_token, `channel_credentials:${channelId}:access_token`),
    refresh: box.open(row.refresh_token, `channel_credentials:${channelId}:refresh_token`),
  };
}

/**
 * What the database keeps, as bytes: on SQLite the files themselves (WAL checkpointed in), on
 * PostgreSQL every row of the tables that hold a channel (what a dump of them would show).
 */
async function storedBytes(): Promise<Buffer> {
  const db = live.ctx.db;
  if (db.dialect === 'sqlite') {
    (db as SqliteDatabase).raw.pragma('wal_checkpoint(TRUNCATE)');
    const files = readdirSync(live.svc.dataDir).filter((f) => f.startsWith('content.sqlite'));
    expect(files).toContain('content.sqlite');
    return Buffer.concat(files.map((f) => readFileSync(join(live.svc.dataDir, f))));
  }
  const tables = await rows('SELECT * FROM channels');
  tables.push(...(await rows('SELECT * FROM channel_credentials')));
  return Buffer.from(JSON.stringify(tables));
}

async function rejected(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('live connect: OAuth end to end against the X fake', () => {
  beforeEach(async () => {
    live = await startLive();
  });

  it('connects an X account: authorise URL with PKCE, callback, encrypted tokens, channel named by the account', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { authorizeUrl, callbackUrl } = await authorize(live.svc, brand.id, 'x');
    const auth = new URL(authorizeUrl);
    expect(`${auth.origin}${auth.pathname}`).toBe(live.x.authUrl);
    expect(auth.searchParams.get('redirect_uri')).toBe(`${live.svc.url}/oauth/x/callback`);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    const state = auth.searchParams.get('state') as string;
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only the state's hash and the sealed verifier are kept.
    const [kept] = await rows('SELECT * FROM oauth_states');
    expect(kept.state_hash).not.toContain(state);
    expect(kept.code_verifier).toMatch(/^v1\./);

    const back = await visit(callbackUrl);
    expect(back.status).toBe(302);
    expect(back.location).toMatch(/^\/settings\?connected=ch_/);
    const channelId = new URL(back.location as string, live.svc.url).searchParams.get('connected');

    const list = await api(live.svc.url, 'GET', `/v1/channels?brand_id=${brand.id}`);
    expect(list.body.channels).toEqual([
      expect.objectContaining({
        id: channelId,
        platform: 'x',
        handle: live.x.user.username,
        display_name: live.x.user.name,
        kind: 'live',
        status: 'connected',
        status_reason: null,
      }),
    ]);
    expect(live.x.requests).toEqual(['GET /i/oauth2/authorize', 'POST /2/oauth2/token', 'GET /2/users/me']);
    expect(live.x.violations).toEqual([]);
    // The token works against the platform.
    const me = await fetch(`${live.x.url}/2/users/me`, {
      headers: { authorization: `Bearer ${await accessTokenFor(live.ctx, channelId as string)}` },
    });
    expect(me.status).toBe(200);
  });

  it('keeps no token in the clear: the database holds sealed values only', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const channel = await connectLive(live.svc, brand.id, 'x');
    const { row, access, refresh } = await storedTokens(channel.id);
    expect(access).toMatch(/^at-/);
    expect(refresh).toMatch(/^rt-/);
    expect(row.access_token).toMatch(/^v1\./);
    expect(row.refresh_token).toMatch(/^v1\./);
    const bytes = await storedBytes();
    expect(bytes.includes(access)).toBe(false);
    expect(bytes.includes(refresh)).toBe(false);
    // The test would see them if they were there: the handle is stored in the clear.
    expect(bytes.includes(live.x.user.username)).toBe(true);
  });

  it('refuses a missing, unknown or forged state with 400 and writes nothing', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    const url = new URL(callbackUrl);
    const code = url.searchParams.get('code') as string;
    const before = await rows('SELECT * FROM oauth_states');

    const missing = await visit(`${live.svc.url}/oauth/x/callback?code=${code}`);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'OAUTH_STATE_MISSING', request_id: expect.any(String) });

    for (const forged of ['nope', `${url.searchParams.get('state')}x`, '%00', 'a'.repeat(5000)]) {
      const bad = await visit(
        `${live.svc.url}/oauth/x/callback?code=${code}&state=${encodeURIComponent(forged)}`,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('OAUTH_STATE_INVALID');
    }
    expect(await channelsOf(brand.id)).toEqual([]);
    expect(await rows('SELECT * FROM channel_credentials')).toEqual([]);
    expect(await rows('SELECT * FROM oauth_states')).toEqual(before);
    // The code was never spent: the real callback still works.
    expect((await visit(callbackUrl)).status).toBe(302);
  });

  it('refuses a callback from a browser that did not start the connect (RFC 6749 §10.12), writing nothing', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    const state = new URL(callbackUrl).searchParams.get('state') as string;
    // Another connect started elsewhere: its cookie has another name, and its value is not this one's.
    const other = await makeBrand(live.svc, { channels: [] });
    const started = await api(live.svc.url, 'POST', `/v1/brands/${other.id}/channels/connect`, {
      body: { platform: 'x' },
    });
    const otherCookie = (started.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const before = await rows('SELECT * FROM oauth_states ORDER BY created_at, state_hash');

    const name = otherCookie.slice(0, otherCookie.indexOf('=')).replace(/_[0-9a-f]{16}$/, '');
    for (const cookie of [
      null, // no cookie at all: a browser that never started a connect
      otherCookie, // the cookie of another connect
      `${name}_${'0'.repeat(16)}=${'A'.repeat(43)}`, // a made-up one
      `${browserCookieName(state)}=${'A'.repeat(43)}`, // the right name, the wrong value
    ]) {
      const refused = await visit(callbackUrl, { cookie });
      expect(refused.status, String(cookie)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'OAUTH_STATE_OTHER_BROWSER', param: 'state' });
    }
    expect(await channelsOf(brand.id)).toEqual([]);
    expect(await rows('SELECT * FROM channel_credentials')).toEqual([]);
    expect(await rows('SELECT * FROM oauth_states ORDER BY created_at, state_hash')).toEqual(before);
    // The browser that started it still can.
    const back = await visit(callbackUrl);
    expect(back.status).toBe(302);
    expect(back.location).toMatch(/^\/settings\?connected=ch_/);
  });

  it('refuses a replayed callback: the state works once', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    expect((await visit(callbackUrl)).status).toBe(302);
    const tokensBefore = await rows('SELECT * FROM channel_credentials');
    const again = await visit(callbackUrl);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('OAUTH_STATE_USED');
    expect(await channelsOf(brand.id)).toHaveLength(1);
    expect(await rows('SELECT * FROM channel_credentials')).toEqual(tokensBefore);
  });

  it('lets only one of two simultaneous callbacks with the same state through', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    const answers = await Promise.all([visit(callbackUrl), visit(callbackUrl), visit(callbackUrl)]);
    expect(answers.map((a) => a.status).sort()).toEqual([302, 400, 400]);
    expect(await channelsOf(brand.id)).toHaveLength(1);
    expect(live.x.requests.filter((r) => r === 'POST /2/oauth2/token')).toHaveLength(1);
  });

  it('answers a callback on a platform without an OAuth app with 501, leaving the state unspent', async () => {
    await live.close();
    live = await startLive({ unconfigured: ['linkedin'] });
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    const elsewhere = callbackUrl.replace('/oauth/x/', '/oauth/linkedin/');
    // LinkedIn has no OAuth app in this stack: refused before the state is even looked at.
    expect((await visit(elsewhere)).body.error.code).toBe('OAUTH_NOT_CONFIGURED');
    expect(await rows('SELECT used_at FROM oauth_states')).toEqual([{ used_at: null }]);
  });

  it("refuses a state spent on another platform's callback, leaving it unspent", async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    const elsewhere = callbackUrl.replace('/oauth/x/', '/oauth/linkedin/');
    expect((await visit(elsewhere)).body.error.code).toBe('OAUTH_STATE_INVALID');
    expect(await rows('SELECT used_at FROM oauth_states')).toEqual([{ used_at: null }]);
    expect(await channelsOf(brand.id)).toEqual([]);
  });

  it('refuses a state older than ten minutes, and writes nothing', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    live.svc.clock.advance(10 * 60_000 + 1000);
    const late = await visit(callbackUrl);
    expect(late.status).toBe(400);
    expect(late.body.error.code).toBe('OAUTH_STATE_EXPIRED');
    expect(late.body.error.message).toMatch(/more than 10 minutes ago/);
    expect(await channelsOf(brand.id)).toEqual([]);
    expect(await rows('SELECT used_at FROM oauth_states')).toEqual([{ used_at: null }]);
  });

  it('sends the person back to Settings with connect_error=access_denied when they say no', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const started = await api(live.svc.url, 'POST', `/v1/brands/${brand.id}/channels/connect`, {
      body: { platform: 'x' },
    });
    const state = new URL(started.body.authorize_url).searchParams.get('state') as string;
    // The same browser comes back: it carries the cookie the connect set.
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0] as string;
    // What X sends back when the person cancels (RFC 6749 §4.1.2.1).
    const denied = await visit(
      `${live.svc.url}/oauth/x/callback?error=access_denied&error_description=The+user+denied&state=${state}`,
      { cookie },
    );
    expect(denied.status).toBe(302);
    expect(denied.location).toBe('/settings?connect_error=access_denied&platform=x');
    expect(await channelsOf(brand.id)).toEqual([]);
    expect(live.x.requests).not.toContain('POST /2/oauth2/token');
    // The refusal spent the state.
    expect(
      (await visit(`${live.svc.url}/oauth/x/callback?code=c&state=${state}`, { cookie })).body.error.code,
    ).toBe('OAUTH_STATE_USED');
  });

  it('sends the person back with token_exchange_failed when the platform refuses the code', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const { callbackUrl } = await authorize(live.svc, brand.id, 'x');
    const forged = new URL(callbackUrl);
    forged.searchParams.set('code', 'code-not-issued');
    const back = await visit(forged.toString());
    expect(back.location).toBe('/settings?connect_error=token_exchange_failed&platform=x');
    expect(await channelsOf(brand.id)).toEqual([]);
  });

  it('refuses handle/display_name in live mode, and a second account while one is connected', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const named = await api(live.svc.url, 'POST', `/v1/brands/${brand.id}/channels/connect`, {
      body: { platform: 'x', handle: 'someone' },
    });
    expect(named.status).toBe(400);
    expect(named.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'handle' });
    await connectLive(live.svc, brand.id, 'x');
    const twice = await api(live.svc.url, 'POST', `/v1/brands/${brand.id}/channels/connect`, {
      body: { platform: 'x' },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('CHANNEL_ALREADY_CONNECTED');
  });

  it('refreshes an access token that expires within five minutes, and after a 401', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const channel = await connectLive(live.svc, brand.id, 'x');
    const first = await storedTokens(channel.id);
    // Still valid for more than five minutes: the stored token, no call.
    live.svc.clock.advance(2 * HOUR - 6 * 60_000);
    expect(await accessTokenFor(live.ctx, channel.id)).toBe(first.access);
    // Within five minutes of expiry: refreshed first, and the rotated tokens are stored sealed.
    live.svc.clock.advance(2 * 60_000);
    const [a, b] = await Promise.all([
      accessTokenFor(live.ctx, channel.id),
      accessTokenFor(live.ctx, channel.id),
    ]);
    expect(a).toBe(b); // one refresh for both callers: refresh tokens rotate
    expect(a).not.toBe(first.access);
    const second = await storedTokens(channel.id);
    expect(second.access).toBe(a);
    expect(second.refresh).not.toBe(first.refresh);
    expect(second.row.expires_at).toBe(new Date(live.svc.clock.now().getTime() + 2 * HOUR).toISOString());
    expect(live.x.requests.filter((r) => r === 'POST /2/oauth2/token')).toHaveLength(2);

    // The platform says 401 before the expiry we know: refresh now.
    live.x.expire(a);
    const third = await refreshAccessToken(live.ctx, channel.id);
    expect(third).not.toBe(a);
    const me = await fetch(`${live.x.url}/2/users/me`, { headers: { authorization: `Bearer ${third}` } });
    expect(me.status).toBe(200);
    expect((await api(live.svc.url, 'GET', `/v1/channels/${channel.id}`)).body.status).toBe('connected');
    expect(live.x.violations).toEqual([]);
  });

  it('marks the channel needs_reconnect when the refresh fails: GET /v1/channels, list_brands and pending approvals say so; reconnecting clears it', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const channel = await connectLive(live.svc, brand.id, 'x');
    const draft = await makeDraft(live.svc, brand.id, 'x');
    const proposed = await api(live.svc.url, 'POST', '/v1/approvals', { body: { draft_id: draft } });
    expect(proposed.status).toBe(201);
    expect(proposed.body.channel).toMatchObject({ id: channel.id, status: 'connected', warning: null });

    // The grant is spent elsewhere (another install, or revoked): our refresh token no longer works.
    const elsewhere = createXProvider({
      clientId: live.x.clientId,
      clientSecret: X_CLIENT_SECRET,
      apiUrl: live.x.url,
    });
    await elsewhere.refresh((await storedTokens(channel.id)).refresh);
    live.svc.clock.advance(2 * HOUR);
    const err = await rejected(accessTokenFor(live.ctx, channel.id));
    expect(err).toMatchObject({ status: 409, code: 'CHANNEL_NEEDS_RECONNECT' });
    expect(err.message).toMatch(/Settings → Channels \(\/settings\)/);
    // Asked again: refused at once, without another call to X.
    const calls = live.x.requests.length;
    expect((await rejected(accessTokenFor(live.ctx, channel.id))).code).toBe('CHANNEL_NEEDS_RECONNECT');
    expect(live.x.requests).toHaveLength(calls);

    // Still the brand's X channel: the one-per-platform index holds a second one off.
    await expect(
      live.ctx.db.run(
        "INSERT INTO channels (id, brand_id, platform, handle, display_name, kind, status, created_at) VALUES ('ch_2', ?, 'x', 'b', 'B', 'live', 'connected', '2026-01-01T00:00:00Z')",
        [brand.id],
      ),
    ).rejects.toThrow(/UNIQUE constraint failed|duplicate key value violates unique constraint/);

    const listed = await api(live.svc.url, 'GET', `/v1/channels?brand_id=${brand.id}`);
    expect(listed.body.channels[0]).toMatchObject({
      id: channel.id,
      status: 'needs_reconnect',
      status_reason: expect.stringMatching(/x refused to refresh/),
    });

    const { key } = await makeKey(live.svc, ['read']);
    const client = await mcpConnect(live.svc, key);
    try {
      const r = (await client.callTool({ name: 'list_brands', arguments: {} })) as any;
      const mine = r.structuredContent.brands.find((b: { id: string }) => b.id === brand.id);
      expect(mine.channels).toEqual([expect.objectContaining({ id: channel.id, status: 'needs_reconnect' })]);
      expect(r.content[0].text).toMatch(/x needs reconnecting/);
    } finally {
      await client.close();
    }

    const pending = await api(live.svc.url, 'GET', `/v1/approvals/${proposed.body.id}`);
    expect(pending.body.channel).toMatchObject({
      status: 'needs_reconnect',
      warning: expect.stringMatching(/needs to be connected again.*Settings → Channels/),
    });
    const listedApprovals = await api(
      live.svc.url,
      'GET',
      `/v1/approvals?brand_id=${brand.id}&status=pending`,
    );
    expect(listedApprovals.body.approvals[0].channel.warning).toBe(pending.body.channel.warning);
    const approve = await api(live.svc.url, 'POST', `/v1/approvals/${proposed.body.id}/approve`, {
      body: {},
    });
    expect(approve.status).toBe(409);
    expect(approve.body.error.code).toBe('CHANNEL_NEEDS_RECONNECT');

    // The person reconnects the same account: the same channel, connected again.
    const again = await connectLive(live.svc, brand.id, 'x');
    expect(again).toMatchObject({ id: channel.id, status: 'connected', status_reason: null });
    expect(typeof (await accessTokenFor(live.ctx, channel.id))).toBe('string');
    const after = await api(live.svc.url, 'GET', `/v1/approvals/${proposed.body.id}`);
    expect(after.body.channel).toMatchObject({ status: 'connected', warning: null });
  });

  it('tokens sealed with another SERVICE_SECRET_KEY are refused, and the channel asks for a reconnect', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const channel = await connectLive(live.svc, brand.id, 'x');
    // The operator replaced the key: the same service and database, another key.
    const rekeyed = { ...live.ctx, config: { ...live.ctx.config, secretKey: randomBytes(32) } };
    const err = await rejected(accessTokenFor(rekeyed, channel.id));
    expect(err.code).toBe('CHANNEL_NEEDS_RECONNECT');
    expect(err.message).toMatch(/encrypted with another SERVICE_SECRET_KEY/);
    const shown = await api(live.svc.url, 'GET', `/v1/channels/${channel.id}`);
    expect(shown.body).toMatchObject({
      status: 'needs_reconnect',
      status_reason: expect.stringMatching(/cannot be read/),
    });
  });

  it('disconnecting forgets the tokens; connecting the same account again brings the channel back', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const channel = await connectLive(live.svc, brand.id, 'x');
    const gone = await api(live.svc.url, 'DELETE', `/v1/channels/${channel.id}`);
    expect(gone.body).toMatchObject({ status: 'disconnected' });
    expect(await rows('SELECT * FROM channel_credentials')).toEqual([]);
    expect((await rejected(accessTokenFor(live.ctx, channel.id))).code).toBe('CHANNEL_DISCONNECTED');
    const back = await connectLive(live.svc, brand.id, 'x');
    expect(back).toMatchObject({ id: channel.id, status: 'connected' });
    expect(await channelsOf(brand.id)).toHaveLength(1);
  });
});

describe('live connect: all four platforms through their own OAuth flows', () => {
  beforeEach(async () => {
    live = await startLive();
  });

  it('connects X, LinkedIn, Instagram and Threads on one brand, each named by its account, each token usable', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const fakes = { x: live.x, linkedin: live.linkedin, instagram: live.instagram, threads: live.threads };
    for (const platform of ['x', 'linkedin', 'instagram', 'threads'] as const) {
      const { authorizeUrl } = await authorize(live.svc, brand.id, platform);
      // Each platform's own authorise page, with our callback for that platform.
      expect(authorizeUrl.startsWith(fakes[platform].authUrl)).toBe(true);
      expect(new URL(authorizeUrl).searchParams.get('redirect_uri')).toBe(
        `${live.svc.url}/oauth/${platform}/callback`,
      );
      const channel = await connectLive(live.svc, brand.id, platform);
      expect(channel).toMatchObject({ platform, kind: 'live', status: 'connected', brand_id: brand.id });
      expect(channel.handle).not.toBe('');
      expect(await accessTokenFor(live.ctx, channel.id)).toMatch(/\S/);
    }
    const list = await api(live.svc.url, 'GET', `/v1/channels?brand_id=${brand.id}`);
    expect(list.body.channels.map((c: { platform: string }) => c.platform).sort()).toEqual([
      'instagram',
      'linkedin',
      'threads',
      'x',
    ]);
    for (const fake of Object.values(fakes)) expect(fake.violations).toEqual([]);
  });
});

describe('live connect without an OAuth app', () => {
  beforeEach(async () => {
    live = await startLive({ unconfigured: ['x'] });
  });

  it('answers 501 OAUTH_NOT_CONFIGURED naming the variables, at connect and at the callback', async () => {
    const brand = await makeBrand(live.svc, { channels: [] });
    const res = await api(live.svc.url, 'POST', `/v1/brands/${brand.id}/channels/connect`, {
      body: { platform: 'x' },
    });
    expect(res.status).toBe(501);
    expect(res.body.error.code).toBe('OAUTH_NOT_CONFIGURED');
    expect(res.body.error.message).toMatch(/SERVICE_X_CLIENT_ID and SERVICE_X_CLIENT_SECRET/);
    const cb = await visit(`${live.svc.url}/oauth/x/callback?code=a&state=b`);
    expect(cb.status).toBe(501);
    expect(await rows('SELECT * FROM oauth_states')).toEqual([]);
  });
});

describe('SERVICE_<P>_EXTRA_SCOPES', () => {
  it('reads a space- or comma-separated list per platform', () => {
    const config = loadConfig({ SERVICE_LINKEDIN_EXTRA_SCOPES: 'r_member_postAnalytics, email' });
    expect(config.platforms.linkedin.extraScopes).toEqual(['r_member_postAnalytics', 'email']);
    expect(config.platforms.x.extraScopes).toEqual([]);
  });

  it('asks for the extra scopes after the provider’s own, each once, and the token carries them', async () => {
    live = await startLive({ extraScopes: { linkedin: ['r_member_postAnalytics', 'openid'] } });
    const brand = await makeBrand(live.svc, { channels: [] });
    const { authorizeUrl } = await authorize(live.svc, brand.id, 'linkedin');
    expect(new URL(authorizeUrl).searchParams.get('scope')).toBe(
      'openid profile w_member_social r_member_postAnalytics',
    );
    const x = await authorize(live.svc, brand.id, 'x');
    expect(new URL(x.authorizeUrl).searchParams.get('scope')).toBe(X_SCOPES.join(' '));
    const channel = await connectLive(live.svc, brand.id, 'linkedin');
    const [row] = await rows('SELECT scopes FROM channel_credentials WHERE channel_id = ?', channel.id);
    expect(String(row?.scopes)).toContain('r_member_postAnalytics');
    expect(live.linkedin.violations).toEqual([]);
  });
});
