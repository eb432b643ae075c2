import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { type Config, PLATFORM_URLS, type PlatformClientConfig } from '../../src/config.js';
import type { ContentHandle } from '../../src/content/app.js';
import { PLATFORMS, type Platform } from '../../src/content/domain.js';
import type { ChannelView } from '../../src/content/schemas/channels.js';
import type { ManualClock } from '../../src/platform/clock.js';
import type { Logger } from '../../src/platform/logger.js';
import { type InstagramFake, startInstagramFake } from '../fakes/instagram-fake.js';
import { type LinkedInFake, startLinkedInFake } from '../fakes/linkedin-fake.js';
import { type OpenAiFake, startOpenAiFake } from '../fakes/openai-fake.js';
import { startThreadsFake, type ThreadsFake } from '../fakes/threads-fake.js';
import { startXFake, type XFake } from '../fakes/x-fake.js';
import { api, startTestService, type TestService } from './start.js';

/**
 * The live path on loopback: the platform fakes, and a content server in live mode whose
 * SERVICE_<P>_* settings point at them (and, with `model`, SERVICE_MODEL=real at the OpenAI fake).
 * Every platform that has a fake is configured unless listed in `unconfigured`.
 */
export interface LiveStack {
  svc: TestService;
  /** The content service's context, for what has no HTTP route (e.g. accessTokenFor). */
  ctx: ContentHandle['ctx'];
  x: XFake;
  linkedin: LinkedInFake;
  instagram: InstagramFake;
  threads: ThreadsFake;
  openai: OpenAiFake | null;
  /** SERVICE_SECRET_KEY, as the operator would set it. */
  secretKey: string;
  close(): Promise<void>;
}

export const X_CLIENT_SECRET = 'x-client-secret';

export async function startLive(
  opts: {
    /** Options for the X fake (e.g. `accessTokenSeconds`); the client secret is the harness's. */
    x?: Omit<NonNullable<Parameters<typeof startXFake>[0]>, 'clientSecret'>;
    /** Options for the LinkedIn fake (e.g. `refreshTokens`, which LinkedIn gives only approved apps). */
    linkedin?: Omit<NonNullable<Parameters<typeof startLinkedInFake>[0]>, 'clientSecret'>;
    /** SERVICE_<P>_EXTRA_SCOPES: scopes asked for besides the provider's own. */
    extraScopes?: Partial<Record<Platform, string[]>>;
    /** Platforms left without an OAuth app (their connect answers 501). */
    unconfigured?: Platform[];
    /** The URL the service is given for a platform's API, from its fake's (a front before the fake). */
    apiUrlOf?: Partial<Record<Platform, (fakeUrl: string) => string>>;
    /** The same for a platform's authorise page (LinkedIn's token endpoint sits beside it). */
    authUrlOf?: Partial<Record<Platform, (fakeUrl: string) => string>>;
    /** Starts the OpenAI-compatible fake and runs the real-model adapter against it. */
    model?: Parameters<typeof startOpenAiFake>[0];
    config?: Partial<Config>;
    clock?: ManualClock;
    background?: boolean;
    /** The token refresh and media edit leases' length (startTestService). */
    workLeaseMs?: number;
    /** Where the service logs (startTestService; silent by default). */
    logger?: Logger;
  } = {},
): Promise<LiveStack> {
  const clock = opts.clock;
  // On the service's clock, the fake can tell a status check made before check_after_secs.
  const x = await startXFake({
    ...(clock ? { now: () => clock.now().getTime() } : {}),
    ...opts.x,
    clientSecret: X_CLIENT_SECRET,
  });
  const linkedin = await startLinkedInFake(opts.linkedin);
  const instagram = await startInstagramFake();
  const threads = await startThreadsFake();
  const openai = opts.model ? await startOpenAiFake(opts.model) : null;
  const secretKey = randomBytes(32).toString('base64');

  const fakes: Partial<Record<Platform, PlatformClientConfig>> = {
    x: { client: { id: x.clientId, secret: X_CLIENT_SECRET }, apiUrl: x.url, authUrl: x.authUrl },
    ...Object.fromEntries(
      (
        [
          ['linkedin', linkedin],
          ['instagram', instagram],
          ['threads', threads],
        ] as const
      ).map(([p, f]) => [
        p,
        { client: { id: f.clientId, secret: f.clientSecret }, apiUrl: f.url, authUrl: f.authUrl },
      ]),
    ),
  };
  const platforms = Object.fromEntries(
    PLATFORMS.map((p) => {
      const fake = fakes[p];
      const configured = fake && !opts.unconfigured?.includes(p);
      const extraScopes = opts.extraScopes?.[p] ?? [];
      const apiUrl = fake && (opts.apiUrlOf?.[p]?.(fake.apiUrl) ?? fake.apiUrl);
      const authUrl = fake && (opts.authUrlOf?.[p]?.(fake.authUrl) ?? fake.authUrl);
      return [
        p,
        configured ? { ...fake, apiUrl, authUrl, extraScopes } : { client: null, ...PLATFORM_URLS[p] },
      ];
    }),
  ) as Record<Platform, PlatformClientConfig>;

  const svc = await startTestService('content', {
    config: {
      mode: 'live',
      secretKey: Buffer.from(secretKey, 'base64'),
      platforms,
      // Instagram and Threads fetch media by URL; the fakes fetch it from this loopback server.
      mediaAllowPrivate: true,
      ...(openai ? { model: 'real', realModel: { baseUrl: openai.baseUrl, name: 'test-model' } } : {}),
      ...opts.config,
    },
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.background ? { background: true } : {}),
    ...(opts.workLeaseMs ? { workLeaseMs: opts.workLeaseMs } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  return {
    svc,
    ctx: (svc.handle as ContentHandle).ctx,
    x,
    linkedin,
    instagram,
    threads,
    openai,
    secretKey,
    close: async () => {
      await svc.close();
      await Promise.all([x.close(), linkedin.close(), instagram.close(), threads.close()]);
      await openai?.close();
    },
  };
}

/** POST …/channels/connect, then the platform's authorise page (the person says yes): the callback URL. */
export async function authorize(svc: TestService, brandId: string, platform: Platform) {
  const started = await api(svc.url, 'POST', `/v1/brands/${brandId}/channels/connect`, {
    body: { platform },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  expect(started.body.channel).toBeNull();
  const authorizeUrl = started.body.authorize_url as string;
  // The browser keeps the cookie that binds this connect to it, for the callback.
  const setCookie = started.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(
    new RegExp(
      `^svc_oauth_[0-9a-f]{16}=[\\w-]{43}; Max-Age=600; Path=/oauth/${platform}/callback; HttpOnly; SameSite=Lax`,
    ),
  );
  jar.set(new URL(authorizeUrl).searchParams.get('state') as string, setCookie.split(';')[0] as string);
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(page.status).toBe(302);
  return { authorizeUrl, callbackUrl: page.headers.get('location') as string };
}

/**
 * The test's browser: the binding cookie each started connect set, by its state. A callback URL
 * names its state, so `visit` sends the cookie that connect set, as the person's browser would.
 */
const jar = new Map<string, string>();

/**
 * The browser's visit to the callback: its status and where it sends the person. `cookie`
 * overrides the jar: null sends none (another browser), a string sends that.
 */
export async function visit(url: string, opts: { cookie?: string | null } = {}) {
  const state = new URL(url).searchParams.get('state') ?? '';
  const cookie = opts.cookie === undefined ? jar.get(state) : opts.cookie;
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const text = await res.text();
  return {
    status: res.status,
    location: res.headers.get('location'),
    body: text ? (JSON.parse(text) as any) : null,
  };
}

/** The whole OAuth dance over HTTP: connect → authorise on the fake → callback. Returns the channel. */
export async function connectLive(
  svc: TestService,
  brandId: string,
  platform: Platform,
): Promise<ChannelView> {
  const { callbackUrl } = await authorize(svc, brandId, platform);
  const back = await visit(callbackUrl);
  expect(back.status, JSON.stringify(back.body)).toBe(302);
  const connected = new URL(back.location as string, svc.url).searchParams.get('connected');
  expect(connected, back.location ?? '').toMatch(/^ch_/);
  const channel = await api(svc.url, 'GET', `/v1/channels/${connected}`);
  expect(channel.status).toBe(200);
  return channel.body as ChannelView;
}
