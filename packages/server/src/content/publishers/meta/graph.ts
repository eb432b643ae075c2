import { checkPublicUrl } from '../../../platform/net/public-url.js';
import type { Platform } from '../../domain.js';
import {
  type ClientOptions,
  count,
  expiresAt,
  firstMessage,
  grantRefused,
  type ProviderHttp,
  providerHttp,
  retryAfter,
  withQuery,
} from '../http.js';
import {
  type AuthorizeInput,
  type ExchangeInput,
  type ProviderAccount,
  ProviderError,
  type ProviderErrorKind,
  type ProviderMedia,
  type ProviderReply,
  type ProviderStatus,
  type TokenSet,
} from '../provider.js';
import { pauseUnlessStopped } from '../stop-wait.js';

/**
 * What Instagram (API with Instagram Login) and Threads share: both are Meta Graph APIs with the
 * same error body, the same short-lived → long-lived token dance, and the same publish shape
 * (create a container, wait until it is FINISHED, publish it).
 * - Errors: `{error: {message, type, code, error_subcode, fbtrace_id}}`; code 190 is an invalid or
 *   expired token, codes 4, 17, 32 and 613 are rate limits, whatever the HTTP status:
 *   https://developers.facebook.com/docs/graph-api/guides/error-handling
 * - Rate limits: `X-Business-Use-Case-Usage` carries `estimated_time_to_regain_access` (minutes):
 *   https://developers.facebook.com/docs/graph-api/overview/rate-limiting
 */

export interface MetaClientOptions extends ClientOptions {
  /** Meta fetches media from its URL, so it must be public. Tests and local demos set this. */
  allowPrivateMediaUrls?: boolean;
  /** Between container status checks; 2 s by default. */
  pollIntervalMs?: number;
  /** Status checks before giving up on a container; 30 by default. */
  pollAttempts?: number;
  /** Injected wait, so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** The service stopping: a wait on a container ends at once, and the post is left to be tried again. */
  stopSignal?: AbortSignal;
}

interface GraphError {
  error?: {
    message?: string;
    code?: number;
    error_subcode?: number;
    is_transient?: boolean;
    error_user_msg?: string;
  };
  error_message?: string;
  error_type?: string;
}

function describe(body: unknown): string | undefined {
  const b = (body ?? {}) as GraphError;
  const e = b.error;
  const text = firstMessage(e?.error_user_msg, e?.message, b.error_message);
  return text && e?.code !== undefined
    ? `${text} (code ${e.code}${e.error_subcode ? `/${e.error_subcode}` : ''})`
    : text;
}

const RATE_CODES = new Set([4, 17, 32, 613]);
/** Instagram's "maximum posts per 24 hours" refusal of a publish. */
const IG_DAILY_LIMIT_SUBCODE = 2207042;

function classify(status: number, body: unknown): ProviderErrorKind | undefined {
  const e = (body as GraphError | null)?.error;
  if (!e || typeof e.code !== 'number') return undefined;
  if (e.code === 190 || e.code === 102) return 'token_expired';
  if (RATE_CODES.has(e.code) || e.error_subcode === IG_DAILY_LIMIT_SUBCODE) return 'rate_limited';
  if (e.code === 10 || (e.code >= 200 && e.code < 300)) return 'forbidden';
  if (e.is_transient || e.code === 1 || e.code === 2) return status >= 500 ? undefined : 'unavailable';
  return undefined;
}

/** `Retry-After`, else the longest `estimated_time_to_regain_access` (minutes) Meta reports. */
function retryAt(res: Response, now: Date): Date | null {
  const after = retryAfter(res, now);
  if (after) return after;
  let minutes = 0;
  for (const name of ['x-business-use-case-usage', 'x-app-usage']) {
    try {
      const usage = JSON.parse(res.headers.get(name) ?? 'null') as unknown;
      const entries = usage && typeof usage === 'object' ? Object.values(usage).flat() : [];
      for (const u of [usage, ...entries] as { estimated_time_to_regain_access?: number }[]) {
        minutes = Math.max(minutes, count(u?.estimated_time_to_regain_access));
      }
    } catch {
      // An unreadable usage header says nothing about when to come back.
    }
  }
  return minutes > 0 ? new Date(now.getTime() + minutes * 60_000) : null;
}

export function metaHttp(
  platform: Platform,
  label: string,
  apiUrl: string,
  opts: ClientOptions,
): ProviderHttp {
  return providerHttp({
    platform,
    label,
    apiUrl,
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    now: opts.now,
    describe,
    classify,
    retryAt,
  });
}

export interface MetaOAuthConfig {
  platform: Platform;
  label: string;
  authUrl: string;
  /** Where the code is exchanged for a short-lived token (form POST). */
  codeUrl: string;
  scopes: readonly string[];
  /** `GET <path>?grant_type=<exchange>` turns a short-lived token into a 60-day one. */
  exchange: { path: string; grantType: string };
  /** `GET <path>?grant_type=<refresh>` renews a long-lived token for another 60 days. */
  renew: { path: string; grantType: string };
}

interface TokenBody {
  access_token?: string;
  expires_in?: number;
  permissions?: string | string[];
  data?: TokenBody[];
}

/**
 * Meta's login: the code gives a short-lived token (an hour), which is exchanged at once for a
 * long-lived one (60 days). A long-lived token is its own refresh token: refreshing it (at least a
 * day old, not yet expired) gives a new 60-day token. So `refreshToken` is the long-lived token.
 */
export function metaOAuth(cfg: MetaOAuthConfig, opts: ClientOptions, call: ProviderHttp) {
  const now = opts.now ?? (() => new Date());
  const { platform, label } = cfg;
  const noToken = () => new ProviderError(platform, 'rejected', `${label} answered without an access token.`);

  const longLived = async (
    path: string,
    params: Record<string, string>,
    scopes: string[],
  ): Promise<TokenSet> => {
    let body: TokenBody;
    try {
      const query = `${path}?${new URLSearchParams(params)}`;
      body = (await call<TokenBody>({ method: 'GET', path: query, tokenEndpoint: true })).body;
    } catch (err) {
      throw grantRefused(err);
    }
    if (!body?.access_token) throw noToken();
    return {
      accessToken: body.access_token,
      refreshToken: body.access_token,
      expiresAt: expiresAt(now(), body.expires_in),
      scopes,
    };
  };

  return {
    authorizeUrl(input: AuthorizeInput): string {
      // Meta's login takes no PKCE; the app secret protects the exchange. Scopes are comma-separated.
      return withQuery(cfg.authUrl, {
        client_id: opts.clientId,
        redirect_uri: input.redirectUri,
        response_type: 'code',
        scope: (input.scopes ?? cfg.scopes).join(','),
        state: input.state,
      });
    },

    async exchangeCode(input: ExchangeInput): Promise<TokenSet> {
      let body: TokenBody;
      try {
        const res = await call<TokenBody>({
          method: 'POST',
          path: cfg.codeUrl,
          tokenEndpoint: true,
          form: {
            client_id: opts.clientId,
            client_secret: opts.clientSecret ?? '',
            grant_type: 'authorization_code',
            redirect_uri: input.redirectUri,
            code: input.code,
          },
        });
        body = res.body;
      } catch (err) {
        throw grantRefused(err);
      }
      // Instagram wraps the answer in `data: [...]`; Threads does not.
      const short = body?.data?.[0] ?? body;
      if (!short?.access_token) throw noToken();
      const granted = Array.isArray(short.permissions)
        ? short.permissions
        : (short.permissions ?? '').split(',');
      const scopes = granted.map((s) => s.trim()).filter(Boolean);
      return longLived(
        cfg.exchange.path,
        {
          grant_type: cfg.exchange.grantType,
          client_secret: opts.clientSecret ?? '',
          access_token: short.access_token,
        },
        scopes.length ? scopes : [...cfg.scopes],
      );
    },

    refresh: (longLivedToken: string) =>
      longLived(cfg.renew.path, { grant_type: cfg.renew.grantType, access_token: longLivedToken }, []),
  };
}

/**
 * The public URL Meta will fetch the image from. Meta's servers cannot reach loopback, private
 * networks or internal names, and they need https; refusing those here gives a clear error
 * instead of a container that fails minutes later.
 */
export function publicMediaUrl(
  platform: Platform,
  label: string,
  m: ProviderMedia,
  allowPrivate: boolean,
): string {
  if (!m.url) {
    throw new ProviderError(
      platform,
      'invalid',
      `${label} fetches images from a public URL and this image has none: set CONTENT_PUBLIC_URL to the service's public https address.`,
    );
  }
  try {
    return checkPublicUrl(m.url, { allowPrivate, requireHttps: true }).toString();
  } catch (err) {
    throw new ProviderError(
      platform,
      'invalid',
      `${label} must fetch the image from ${m.url}, which it cannot reach: ${(err as Error).message} Set CONTENT_PUBLIC_URL to a public https address.`,
    );
  }
}

/** Numeric Graph ids only: nothing in a path that could step elsewhere. */
export function graphId(platform: Platform, label: string, id: string): string {
  if (!/^[0-9]{1,25}$/.test(id))
    throw new ProviderError(platform, 'invalid', `${id} is no ${label} media id.`);
  return id;
}

export interface ContainerWait {
  call: ProviderHttp;
  token: string;
  platform: Platform;
  label: string;
  path: (id: string) => string;
  /** `status_code` on Instagram, `status` on Threads. */
  field: string;
  opts: MetaClientOptions;
}

/** Polls a container until FINISHED; ERROR and EXPIRED (and never finishing) are clear refusals. */
export async function waitForContainer(w: ContainerWait, id: string): Promise<void> {
  const sleep = w.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const attempts = w.opts.pollAttempts ?? 30;
  for (let i = 0; i < attempts; i++) {
    const res = await w.call<Record<string, string | undefined>>({
      method: 'GET',
      path: `${w.path(id)}?fields=${w.field}`,
      token: w.token,
    });
    const state = res.body?.[w.field];
    if (state === 'FINISHED') return;
    if (state === 'ERROR' || state === 'EXPIRED') {
      const why =
        state === 'EXPIRED' ? 'it was not published within 24 hours' : 'the media could not be processed';
      throw new ProviderError(
        w.platform,
        'rejected',
        `${w.label} refused the media container ${id}: ${state} (${why}).`,
      );
    }
    try {
      await pauseUnlessStopped(() => sleep(w.opts.pollIntervalMs ?? 2000), w.opts.stopSignal);
    } catch (err) {
      if (!w.opts.stopSignal?.aborted) throw err;
      // Up to 30 checks of up to 30 s each: a stop must not wait them out (a request's publish
      // holds the drain, the background pass's holds close()). The container is never published.
      throw new ProviderError(
        w.platform,
        'unavailable',
        `svc stopped while ${w.label} was still processing the media container ${id}; it was not published. The post will be tried again later.`,
      );
    }
  }
  throw new ProviderError(
    w.platform,
    'unavailable',
    `${w.label} was still processing the media container ${id} after ${attempts} checks; nothing was published.`,
  );
}

/** The 24-hour publishing quota, checked before anything is published. */
export async function checkQuota(
  w: Pick<ContainerWait, 'call' | 'token' | 'platform' | 'label'>,
  path: string,
  needed: number,
): Promise<void> {
  const res = await w.call<{
    data?: { quota_usage?: number; config?: { quota_total?: number; quota_duration?: number } }[];
  }>({ method: 'GET', path: `${path}?fields=quota_usage,config`, token: w.token });
  const row = res.body?.data?.[0];
  const total = row?.config?.quota_total;
  if (typeof total !== 'number') return;
  const used = count(row?.quota_usage);
  if (used + needed > total) {
    const hours = Math.round(count(row?.config?.quota_duration) / 3600) || 24;
    throw new ProviderError(
      w.platform,
      'rate_limited',
      `${w.label} allows ${total} published posts per ${hours} hours and this account has used ${used}; try again later.`,
    );
  }
}

/** `GET /<media-id>/insights?metric=…` as a name → lifetime value map. */
export async function insights(
  call: ProviderHttp,
  token: string,
  path: string,
  metrics: readonly string[],
): Promise<Record<string, number>> {
  const res = await call<{
    data?: { name?: string; values?: { value?: number }[]; total_value?: { value?: number } }[];
  }>({
    method: 'GET',
    path: `${path}?metric=${metrics.join(',')}`,
    token,
  });
  const out: Record<string, number> = {};
  for (const row of res.body?.data ?? []) {
    if (row.name) out[row.name] = count(row.total_value?.value ?? row.values?.[0]?.value);
  }
  return out;
}

/** Comments (Instagram) or replies (Threads) under a post: first page, as the platform orders it. */
export async function readReplies(
  call: ProviderHttp,
  token: string,
  path: string,
  textField: string,
): Promise<ProviderReply[]> {
  const res = await call<{ data?: Record<string, string | undefined>[] }>({
    method: 'GET',
    path: `${path}?fields=id,${textField},username,timestamp`,
    token,
  });
  return (res.body?.data ?? [])
    .filter((r) => r.id)
    .map((r) => {
      const at = r.timestamp ? new Date(r.timestamp) : null;
      return {
        externalId: r.id as string,
        author: r.username ?? '',
        text: r[textField] ?? '',
        createdAt: at && !Number.isNaN(at.getTime()) ? at : null,
      };
    });
}

/** A published post's status: its text, or gone (Graph answers 400, code 100 "does not exist"). */
export async function mediaStatus(
  call: ProviderHttp,
  token: string,
  path: string,
  textField: string,
  externalId: string,
): Promise<ProviderStatus> {
  try {
    const res = await call<Record<string, string | undefined>>({
      method: 'GET',
      path: `${path}?fields=id,${textField}`,
      token,
    });
    return { externalId, exists: Boolean(res.body?.id), text: res.body?.[textField] ?? null };
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'rejected')
      return { externalId, exists: false, text: null };
    throw err;
  }
}

/** The post's permalink. The post is already live, so a failed read falls back instead of failing. */
export function permalinkOr(
  call: ProviderHttp,
  token: string,
  path: string,
  fallback: string,
): Promise<string> {
  return call<{ permalink?: string }>({ method: 'GET', path: `${path}?fields=permalink`, token })
    .then((r) => r.body?.permalink ?? fallback)
    .catch(() => fallback);
}

export interface MetaApp {
  platform: Platform;
  label: string;
  /** The API base and the version every path names. */
  apiUrl: string;
  version: string;
  oauth: Omit<MetaOAuthConfig, 'platform' | 'label'>;
  /** `status_code` (Instagram) or `status` (Threads). */
  statusField: string;
  /** The account's 24-hour publishing quota edge. */
  limitEdge: string;
}

/** The pieces an Instagram or Threads provider is built from. */
export function metaClient(app: MetaApp, opts: MetaClientOptions) {
  const { platform, label } = app;
  const call = metaHttp(platform, label, app.apiUrl, opts);
  const oauth = metaOAuth({ ...app.oauth, platform, label }, opts, call);
  const media = (id: string) => `/${app.version}/${graphId(platform, label, id)}`;

  /**
   * Everything that can fail safely, before anything is created: the media URLs Meta must fetch,
   * the account the token is for, and the 24-hour quota.
   */
  async function prepare(token: string, files: ProviderMedia[] | undefined) {
    const urls = (files ?? []).map((m) =>
      publicMediaUrl(platform, label, m, opts.allowPrivateMediaUrls ?? false),
    );
    const me = await account(token);
    const user = media(me.id);
    const wait: ContainerWait = { call, token, platform, label, path: media, field: app.statusField, opts };
    await checkQuota(wait, `${user}/${app.limitEdge}`, 1);
    return { urls, user, username: me.handle, wait };
  }

  /** The account the token is for: Instagram names its id `user_id`, Threads `id`. */
  async function account(token: string): Promise<ProviderAccount> {
    const idField = platform === 'instagram' ? 'user_id' : 'id';
    const me = await call<{ user_id?: string; id?: string; username?: string; name?: string }>({
      method: 'GET',
      path: `/${app.version}/me?fields=${idField},username,name`,
      token,
    });
    const id = me.body?.user_id ?? me.body?.id;
    const handle = me.body?.username;
    if (!id || !handle) {
      throw new ProviderError(platform, 'rejected', `${label} did not say which account the token is for.`);
    }
    return { id: graphId(platform, label, id), handle, displayName: me.body?.name || handle };
  }

  return { call, oauth, media, prepare, account };
}
