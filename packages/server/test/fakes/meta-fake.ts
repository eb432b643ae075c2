import { z } from 'zod';
import {
  type Answer,
  consent,
  type FakeCore,
  type FakeRequest,
  formOf,
  jsonOf,
  type Matched,
  opaqueIds,
  problemOf,
  startFake,
} from './fake-core.js';

/**
 * What the Instagram and Threads fakes share: both are Meta Graph APIs with the same login dance
 * (code → short-lived token → 60-day token, renewed by a refresh grant), the same error body, and
 * the same publishing shape (container → status → publish). The platform files give the names,
 * fields and limits, each with the reference page it comes from.
 *
 * Meta's error body and codes: https://developers.facebook.com/docs/graph-api/guides/error-handling
 * (`{error: {message, type, code, error_subcode, fbtrace_id}}`; 190 = invalid or expired token,
 * answered with HTTP 400; 100/33 = no such object; 4 = application request limit).
 */

export interface MetaFakeConfig {
  name: string;
  /** The app's scopes the authorise page knows. */
  scopes: string[];
  exchangeGrant: string;
  refreshGrant: string;
  /** Instagram wraps the code exchange's answer in `data: [...]` and lists the permissions. */
  wrapCodeAnswer: boolean;
  user: { id: string; username: string; name: string };
  /** Fields GET /me may ask for. */
  meFields: string[];
  /** `media` (Instagram) or `threads`; `media_publish` or `threads_publish`. */
  createEdge: string;
  publishEdge: string;
  limitEdge: string;
  quotaTotal: number;
  publishScope: string;
  /** The container status field: `status_code` (Instagram) or `status` (Threads). */
  statusField: string;
  /** The text field of a post: `caption` (Instagram) or `text` (Threads). */
  textField: string;
  /** Fields GET /<media> may ask for on a published post. */
  mediaFields: string[];
  insightsScope: string;
  insightMetrics: string[];
  repliesEdge: string;
  repliesScope: string;
  replyFields: string[];
  /** Validates a container request (already parsed); returns the problem, or the container to create. */
  container(
    body: Record<string, unknown>,
    known: { containers: Map<string, MetaContainer>; posts: Map<string, MetaPost> },
  ): string | Omit<MetaContainer, 'id' | 'states' | 'published'>;
  /** Reads the container request body: JSON (Instagram's examples) or a form (Threads'). */
  bodyOf(req: FakeRequest): Record<string, unknown> | undefined;
}

export interface MetaContainer {
  id: string;
  mediaType: string;
  text: string;
  imageUrls: string[];
  children: string[];
  carouselItem: boolean;
  replyTo: string | null;
  /** What the status checks report, in order; the last one stays. */
  states: string[];
  published: boolean;
}

export interface MetaPost {
  id: string;
  text: string;
  mediaType: string;
  imageUrls: string[];
  replyTo: string | null;
  insights: Record<string, number>;
  replies: { id: string; text: string; username: string; timestamp: string }[];
}

export interface MetaFake extends FakeCore {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  user: { id: string; username: string; name: string };
  containers: Map<string, MetaContainer>;
  posts: Map<string, MetaPost>;
  /** The next container reports these states, one per status check (FINISHED by default, at once). */
  nextContainerStates(states: string[]): void;
  /** Posts already published in the moving 24 hours, as the quota reports them. */
  setQuotaUsage(n: number): void;
  expire(accessToken: string): void;
}

const GRAPH_ERRORS = 'https://developers.facebook.com/docs/graph-api/guides/error-handling';

const graphError = (message: string, code: number, extra: Record<string, unknown> = {}) => ({
  error: {
    message,
    type: code === 190 ? 'OAuthException' : 'GraphMethodException',
    code,
    fbtrace_id: 'AbCdEfGh123',
    ...extra,
  },
});

const Answers = {
  token: z.object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int(),
  }),
  id: z.strictObject({ id: z.string().regex(/^[0-9]+$/) }),
  insights: z.object({
    data: z.array(
      z.object({
        name: z.string(),
        period: z.string(),
        values: z.array(z.object({ value: z.number() })),
        title: z.string(),
        id: z.string(),
      }),
    ),
  }),
  limit: z.object({
    data: z.array(
      z.object({
        quota_usage: z.number(),
        config: z.object({ quota_total: z.number(), quota_duration: z.number() }),
      }),
    ),
  }),
};

export async function startMetaFake(cfg: MetaFakeConfig): Promise<MetaFake> {
  const clientId = `fake-${cfg.name}-app`;
  const clientSecret = `${cfg.name}-secret`;
  const opaque = opaqueIds();
  const codes = new Map<string, { redirectUri: string; scopes: string[] }>();
  const tokens = new Map<string, { scopes: string[]; long: boolean; expired: boolean }>();
  const containers = new Map<string, MetaContainer>();
  const posts = new Map<string, MetaPost>();
  let nextStates: string[] = ['FINISHED'];
  let quotaUsage = 0;
  let seq = 17_900_000_000_000_000n;
  const nextId = () => String(++seq);

  const error = (status: number, message: string) =>
    status === 429
      ? graphError(message, 4, { is_transient: true })
      : status >= 500
        ? graphError(message, 2, { is_transient: true })
        : graphError(message, status === 401 ? 190 : 100);

  const route = (
    req: FakeRequest,
    core: { violate: (d: string, s?: number) => Answer },
  ): Matched | Answer => {
    const { violate } = core;
    const { method, path, query } = req;

    if (method === 'GET' && path === '/oauth/authorize') {
      const scopes = (query.get('scope') ?? '').split(',').filter(Boolean);
      const redirectUri = query.get('redirect_uri') ?? '';
      const problem =
        query.get('client_id') !== clientId
          ? 'unknown client_id'
          : query.get('response_type') !== 'code'
            ? 'response_type must be code'
            : !/^https?:\/\//.test(redirectUri)
              ? 'redirect_uri must be an absolute URL'
              : !query.get('state')
                ? 'state is required'
                : scopes.length === 0 || scopes.some((s) => !cfg.scopes.includes(s))
                  ? `scope must be comma-separated known scopes: ${query.get('scope')}`
                  : null;
      if (problem) return violate(`authorize: ${problem}`);
      const code = opaque(`${cfg.name}-code`);
      codes.set(code, { redirectUri, scopes });
      return consent(redirectUri, query.get('state') as string, code);
    }

    const issue = (scopes: string[], long: boolean) => {
      const t = opaque(long ? `${cfg.name}-long` : `${cfg.name}-short`);
      tokens.set(t, { scopes, long, expired: false });
      return t;
    };

    // The code exchange: a form POST with client_id, client_secret, grant_type, redirect_uri, code.
    if (method === 'POST' && path === '/oauth/access_token') {
      return {
        route: 'POST /oauth/access_token',
        check: () => {
          const form = formOf(req);
          if (!form) return violate('oauth/access_token: the body must be form-encoded');
          const missing = ['client_id', 'client_secret', 'grant_type', 'redirect_uri', 'code'].filter(
            (k) => !form.get(k),
          );
          if (missing.length) return violate(`oauth/access_token: missing ${missing.join(', ')}`);
          if (form.get('grant_type') !== 'authorization_code')
            return violate('oauth/access_token: grant_type must be authorization_code');
          if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
            return {
              status: 400,
              body: { error_type: 'OAuthException', code: 400, error_message: 'Invalid client secret' },
            };
          }
          return null;
        },
        effect: () => {
          const form = formOf(req) as URLSearchParams;
          const issued = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          if (!issued || issued.redirectUri !== form.get('redirect_uri')) {
            return {
              status: 400,
              body: { error_type: 'OAuthException', code: 400, error_message: 'Invalid authorization code' },
            };
          }
          const short = { access_token: issue(issued.scopes, false), user_id: cfg.user.id };
          return {
            status: 200,
            body: cfg.wrapCodeAnswer ? { data: [{ ...short, permissions: issued.scopes.join(',') }] } : short,
          };
        },
      };
    }

    // The long-lived exchange and the refresh: GET with grant_type and the token in the query.
    if (method === 'GET' && (path === '/access_token' || path === '/refresh_access_token')) {
      const exchange = path === '/access_token';
      return {
        route: `GET ${path}`,
        check: () => {
          const grant = exchange ? cfg.exchangeGrant : cfg.refreshGrant;
          if (query.get('grant_type') !== grant) return violate(`${path}: grant_type must be ${grant}`);
          if (exchange && query.get('client_secret') !== clientSecret)
            return violate(`${path}: client_secret is required`);
          if (!query.get('access_token')) return violate(`${path}: access_token is required`);
          return null;
        },
        effect: () => {
          const old = tokens.get(query.get('access_token') ?? '');
          // A short-lived token is exchanged, a long-lived one refreshed; anything else is refused.
          if (!old || old.expired || old.long !== !exchange) {
            return { status: 400, body: graphError('Error validating access token', 190) };
          }
          return {
            status: 200,
            body: { access_token: issue(old.scopes, true), token_type: 'bearer', expires_in: 5_183_944 },
          };
        },
      };
    }

    // Every other call is versioned (unversioned calls go to the oldest version) and authenticated.
    const versioned = /^\/v[0-9]+\.[0-9]+(\/.*)$/.exec(path);
    if (!versioned) return violate(`${method} ${path}: Graph calls name a version (/vXX.X/…)`, 400);
    const rest = versioned[1] as string;
    const bearer = req.bearer ?? query.get('access_token') ?? undefined;
    const grant = bearer ? tokens.get(bearer) : undefined;
    const authed = (scope?: string): Answer | null => {
      if (!grant || grant.expired) {
        // Meta answers an expired token with HTTP 400 and code 190 (GRAPH_ERRORS), not 401.
        return {
          status: 400,
          body: graphError('Error validating access token: Session has expired.', 190, {
            error_subcode: 463,
          }),
        };
      }
      if (scope && !grant.scopes.includes(scope)) {
        return {
          status: 403,
          body: graphError(`(#10) Application does not have permission for this action: ${scope}`, 10),
        };
      }
      return null;
    };
    const fields = (allowed: string[], required = false): Answer | null => {
      const asked = (query.get('fields') ?? '').split(',').filter(Boolean);
      if (required && asked.length === 0) return violate(`${method} ${path}: fields is required`);
      const unknown = asked.filter((f) => !allowed.includes(f));
      return unknown.length ? violate(`${method} ${path}: unknown fields ${unknown.join(', ')}`) : null;
    };
    const extraQuery = (allowed: string[]) => {
      const extra = [...query.keys()].filter((k) => !allowed.includes(k) && k !== 'access_token');
      return extra.length ? violate(`${method} ${path}: undocumented query ${extra.join(', ')}`) : null;
    };
    const ok = (body: unknown): Answer => ({ status: 200, body });
    const notFound = (id: string): Answer => ({
      status: 400,
      body: graphError(`Unsupported get request. Object with ID '${id}' does not exist`, 100, {
        error_subcode: 33,
      }),
    });

    if (method === 'GET' && rest === '/me') {
      return {
        route: 'GET /me',
        check: () => extraQuery(['fields']) ?? fields(cfg.meFields, true) ?? authed(),
        effect: () => {
          const all = {
            id: cfg.user.id,
            user_id: cfg.user.id,
            username: cfg.user.username,
            name: cfg.user.name,
          };
          const asked = ['id', ...(query.get('fields') ?? '').split(',')];
          return ok(Object.fromEntries(Object.entries(all).filter(([k]) => asked.includes(k))));
        },
      };
    }

    const userEdge = /^\/([0-9]+)\/([a-z_]+)$/.exec(rest);
    if (userEdge && userEdge[1] === cfg.user.id) {
      const edge = userEdge[2];
      if (method === 'POST' && edge === cfg.createEdge) {
        return {
          route: `POST /:user/${edge}`,
          check: () => {
            const problem = extraQuery([]) ?? authed(cfg.publishScope);
            if (problem) return problem;
            const body = cfg.bodyOf(req);
            if (!body)
              return violate(
                `POST /${edge}: the body must be ${cfg.name === 'instagram' ? 'JSON or a form' : 'a form'}`,
              );
            const made = cfg.container(body, { containers, posts });
            return typeof made === 'string' ? violate(`POST /${edge}: ${made}`) : null;
          },
          effect: () => {
            const made = cfg.container(cfg.bodyOf(req) as Record<string, unknown>, {
              containers,
              posts,
            }) as Omit<MetaContainer, 'id'>;
            const id = nextId();
            containers.set(id, {
              ...made,
              id,
              states: made.carouselItem ? ['FINISHED'] : nextStates,
              published: false,
            });
            if (!made.carouselItem) nextStates = ['FINISHED'];
            return ok({ id });
          },
        };
      }
      if (method === 'POST' && edge === cfg.publishEdge) {
        return {
          route: `POST /:user/${edge}`,
          check: () => {
            const problem = extraQuery([]) ?? authed(cfg.publishScope);
            if (problem) return problem;
            const body = cfg.bodyOf(req);
            const id = String(body?.creation_id ?? '');
            const c = containers.get(id);
            if (!c || c.carouselItem)
              return violate(`POST /${edge}: creation_id ${id} is no container to publish`);
            if (c.published) return violate(`POST /${edge}: container ${id} is already published`);
            if (c.states[0] !== 'FINISHED')
              return violate(`POST /${edge}: container ${id} is ${c.states[0]}, not FINISHED`);
            if (quotaUsage >= cfg.quotaTotal) {
              return {
                status: 400,
                body: graphError('The user has reached the maximum number of posts in 24 hours', 9, {
                  error_subcode: 2207042,
                }),
              };
            }
            return null;
          },
          effect: () => {
            const c = containers.get(String(cfg.bodyOf(req)?.creation_id)) as MetaContainer;
            c.published = true;
            c.states = ['PUBLISHED'];
            quotaUsage++;
            const id = nextId();
            const urls = c.children.length
              ? c.children.flatMap((k) => containers.get(k)?.imageUrls ?? [])
              : c.imageUrls;
            posts.set(id, {
              id,
              text: c.text,
              mediaType: c.mediaType,
              imageUrls: urls,
              replyTo: c.replyTo,
              insights: {},
              replies: [],
            });
            return ok({ id });
          },
        };
      }
      if (method === 'GET' && edge === cfg.limitEdge) {
        return {
          route: `GET /:user/${edge}`,
          check: () =>
            extraQuery(['fields', 'since']) ??
            fields(['quota_usage', 'config', 'reply_quota_usage', 'reply_config']) ??
            authed(),
          effect: () =>
            ok({
              data: [
                { quota_usage: quotaUsage, config: { quota_total: cfg.quotaTotal, quota_duration: 86_400 } },
              ],
            }),
        };
      }
    }

    const node = /^\/([0-9]+)(?:\/(insights|[a-z_]+))?$/.exec(rest);
    if (method === 'GET' && node && !(userEdge && userEdge[1] === cfg.user.id)) {
      const id = node[1] as string;
      const edge = node[2];
      if (!edge) {
        return {
          route: 'GET /:id',
          check: () => {
            const c = containers.get(id);
            const allowed = c && !posts.has(id) ? ['id', cfg.statusField, 'error_message'] : cfg.mediaFields;
            return extraQuery(['fields']) ?? fields(allowed, true) ?? authed();
          },
          effect: () => {
            const c = containers.get(id);
            if (c) return ok({ id, [cfg.statusField]: c.states.length > 1 ? c.states.shift() : c.states[0] });
            const p = posts.get(id);
            if (!p) return notFound(id);
            const all: Record<string, unknown> = {
              id,
              [cfg.textField]: p.text,
              permalink: `https://www.${cfg.name}.com/p/${id}/`,
              media_type: p.mediaType,
              timestamp: '2026-11-23T12:00:00+0000',
              username: cfg.user.username,
            };
            const asked = (query.get('fields') ?? '').split(',');
            return ok(Object.fromEntries(Object.entries(all).filter(([k]) => asked.includes(k))));
          },
        };
      }
      if (edge === 'insights') {
        return {
          route: 'GET /:id/insights',
          check: () => {
            const metrics = (query.get('metric') ?? '').split(',').filter(Boolean);
            const unknown = metrics.filter((m) => !cfg.insightMetrics.includes(m));
            if (metrics.length === 0 || unknown.length)
              return violate(`insights: unknown metric ${unknown.join(', ') || '(none)'}`);
            return extraQuery(['metric', 'period', 'metric_type', 'breakdown']) ?? authed(cfg.insightsScope);
          },
          effect: () => {
            const p = posts.get(id);
            if (!p) return notFound(id);
            const metrics = (query.get('metric') ?? '').split(',');
            return ok({
              data: metrics.map((name) => ({
                name,
                period: 'lifetime',
                values: [{ value: p.insights[name] ?? 0 }],
                title: name,
                description: name,
                id: `${id}/insights/${name}/lifetime`,
              })),
            });
          },
        };
      }
      if (edge === cfg.repliesEdge) {
        return {
          route: `GET /:id/${edge}`,
          check: () =>
            extraQuery(['fields', 'reverse', 'limit', 'after', 'before']) ??
            fields(cfg.replyFields) ??
            authed(cfg.repliesScope),
          effect: () => {
            const p = posts.get(id);
            if (!p) return notFound(id);
            const asked = (query.get('fields') ?? 'id,text').split(',');
            const data = p.replies.map((r) =>
              Object.fromEntries(Object.entries(r).filter(([k]) => asked.includes(k))),
            );
            return ok({ data, paging: { cursors: { before: 'b', after: 'a' } } });
          },
        };
      }
    }

    return violate(`${method} ${path} is no ${cfg.name} Graph call this fake knows (${GRAPH_ERRORS})`, 400);
  };

  const core = await startFake({ error, route }, (r, a) => {
    if (a.status >= 300) return null;
    if (r === 'GET /access_token' || r === 'GET /refresh_access_token')
      return problemOf(Answers.token, a.body, r);
    if (r.startsWith('POST /:user/')) return problemOf(Answers.id, a.body, r);
    if (r === 'GET /:id/insights') return problemOf(Answers.insights, a.body, r);
    if (r === `GET /:user/${cfg.limitEdge}`) return problemOf(Answers.limit, a.body, r);
    return null;
  });
  return {
    ...core,
    authUrl: `${core.url}/oauth/authorize`,
    clientId,
    clientSecret,
    user: cfg.user,
    containers,
    posts,
    nextContainerStates: (s) => {
      nextStates = s;
    },
    setQuotaUsage: (n) => {
      quotaUsage = n;
    },
    expire: (t) => {
      const g = tokens.get(t);
      if (g) g.expired = true;
    },
  };
}

/** An absolute http(s) URL, as Meta's cURL needs. */
export const isFetchable = (u: unknown) => typeof u === 'string' && /^https?:\/\/[^/\s]+\/\S*$/.test(u);

export { formOf, jsonOf };
