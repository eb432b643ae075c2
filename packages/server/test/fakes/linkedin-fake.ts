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
 * A local, stateful LinkedIn (OAuth 2.0 3-legged flow, OpenID userinfo, Posts, Images and member post
 * analytics). LinkedIn publishes no OpenAPI document; each rule below names the reference page it
 * comes from. A request outside those rules is answered with LinkedIn's error body
 * (`{status, serviceErrorCode, code, message}`, https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling)
 * AND recorded in `violations`, so a test fails on it.
 */

const AUTH_DOC = 'https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow';
const POSTS_DOC =
  'https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api';
const IMAGES_DOC =
  'https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api';
const STATS_DOC =
  'https://learn.microsoft.com/en-us/linkedin/marketing/community-management/members/post-statistics';
const LITTLE_DOC =
  'https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format';

/** Scopes of Sign In with LinkedIn (OpenID), Share on LinkedIn, and member post analytics. */
const KNOWN_SCOPES = ['openid', 'profile', 'email', 'w_member_social', 'r_member_postAnalytics'];
const RESERVED = '|{}@[]()<>#\\*_~';

// POSTS_DOC, "Post Schema": the fields a text or image post is created with.
const PostBody = z.strictObject({
  author: z.string().regex(/^urn:li:(person|organization):[A-Za-z0-9_-]+$/),
  commentary: z.string(),
  visibility: z.enum(['PUBLIC', 'CONNECTIONS', 'LOGGED_IN', 'CONTAINER']),
  distribution: z.strictObject({
    feedDistribution: z.enum(['MAIN_FEED', 'NONE']),
    targetEntities: z.array(z.unknown()).optional(),
    thirdPartyDistributionChannels: z.array(z.unknown()).optional(),
  }),
  lifecycleState: z.enum(['PUBLISHED', 'DRAFT']),
  isReshareDisabledByAuthor: z.boolean().optional(),
  content: z
    .union([
      z.strictObject({
        media: z.strictObject({
          id: z.string(),
          altText: z.string().optional(),
          title: z.string().optional(),
        }),
      }),
      // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/multiimage-post-api : 2 to 20 images.
      z.strictObject({
        multiImage: z.strictObject({
          images: z
            .array(z.strictObject({ id: z.string(), altText: z.string().optional() }))
            .min(2)
            .max(20),
        }),
      }),
    ])
    .optional(),
});
// IMAGES_DOC, "Initialize Image Upload".
const InitializeUpload = z.strictObject({ initializeUploadRequest: z.strictObject({ owner: z.string() }) });

// The answers the fake gives, held to the same pages.
const ANSWERS: Record<string, z.ZodType> = {
  'POST /oauth/v2/accessToken': z.object({
    access_token: z.string(),
    expires_in: z.number().int(),
    scope: z.string(),
    refresh_token: z.string().optional(),
    refresh_token_expires_in: z.number().int().optional(),
  }),
  'GET /v2/userinfo': z.object({
    sub: z.string(),
    name: z.string(),
    given_name: z.string(),
    family_name: z.string(),
  }),
  'POST /rest/images': z.object({
    value: z.object({
      uploadUrl: z.string().url(),
      uploadUrlExpiresAt: z.number(),
      image: z.string().startsWith('urn:li:image:'),
    }),
  }),
  'GET /rest/posts/:id': z.object({
    id: z.string(),
    author: z.string(),
    commentary: z.string(),
    lifecycleState: z.string(),
  }),
  'GET /rest/memberCreatorPostAnalytics': z.object({
    elements: z.array(z.object({ count: z.number().int().nonnegative() })),
    paging: z.object({ start: z.number(), count: z.number() }),
  }),
};

export interface LinkedInFakePost {
  urn: string;
  author: string;
  /** The commentary as sent (little text). */
  commentary: string;
  /** What a member reads: the little text rendered. */
  text: string;
  images: string[];
  metrics: { impressions: number; reactions: number; comments: number; reshares: number };
}

export interface LinkedInFake extends FakeCore {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  member: { sub: string; name: string };
  posts: Map<string, LinkedInFakePost>;
  /** Images whose bytes arrived, by URN. */
  images: Map<string, { owner: string; bytes: number; type: string }>;
  expire(accessToken: string): void;
}

/**
 * Renders little text as a member would read it, or says which reserved character is unescaped.
 * LITTLE_DOC: "All reserved characters need to be escaped with a backslash, even if those characters
 * are not used in one of the supported elements"; elements are mentions `@[name](urn)` and the
 * hashtag template `{hashtag|\#|tag}`.
 */
export function renderLittle(little: string): { text: string } | { problem: string } {
  let out = '';
  for (let i = 0; i < little.length; ) {
    const rest = little.slice(i);
    const c = little[i] as string;
    const tag = /^\{hashtag\|\\?[#＃]\|([\p{L}\p{N}_]+)\}/u.exec(rest);
    const mention = /^@\[([^\]]*)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/.exec(rest);
    if (c === '\\') {
      const next = little[i + 1];
      if (next === undefined || !RESERVED.includes(next)) return { problem: `a lone backslash at ${i}` };
      out += next;
      i += 2;
    } else if (tag) {
      out += `#${tag[1]}`;
      i += tag[0].length;
    } else if (mention) {
      out += mention[1];
      i += mention[0].length;
    } else if (RESERVED.includes(c)) {
      return { problem: `the reserved character '${c}' at ${i} is not escaped (${LITTLE_DOC})` };
    } else {
      out += c;
      i += c.length;
    }
  }
  return { text: out };
}

export async function startLinkedInFake(
  opts: { clientSecret?: string; refreshTokens?: boolean } = {},
): Promise<LinkedInFake> {
  const clientId = 'fake-linkedin-client';
  const clientSecret = opts.clientSecret ?? 'linkedin-secret';
  const member = { sub: 'yR4m7xQ2', name: 'Fieldnote Studio' };
  const owner = `urn:li:person:${member.sub}`;
  const opaque = opaqueIds();
  const codes = new Map<string, { redirectUri: string; scopes: string[] }>();
  const access = new Map<string, { scopes: string[]; expired: boolean }>();
  const refresh = new Map<string, string[]>();
  const posts = new Map<string, LinkedInFakePost>();
  const images = new Map<string, { owner: string; bytes: number; type: string }>();
  const uploads = new Map<string, string>();
  let seq = 7_200_000_000_000_000_000n;
  let base = '';

  const error = (status: number, message: string) => ({
    status,
    serviceErrorCode: status === 401 ? 65601 : 100,
    code: status === 401 ? 'REVOKED_ACCESS_TOKEN' : 'ERROR',
    message,
  });
  const oauthError = (status: number, err: string, description: string): Answer => ({
    status,
    body: { error: err, error_description: description },
  });

  const tokenAnswer = (scopes: string[], refreshToken?: string): Answer => {
    const accessToken = opaque('li-at');
    access.set(accessToken, { scopes, expired: false });
    // AUTH_DOC, step 3: a 60-day token; the scope string is comma-separated.
    const body: Record<string, unknown> = {
      access_token: accessToken,
      expires_in: 5_184_000,
      scope: scopes.join(','),
    };
    // https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens :
    // only approved apps get one, it lasts a year, and refreshing returns the same refresh token.
    if (opts.refreshTokens) {
      const rt = refreshToken ?? opaque('li-rt');
      refresh.set(rt, scopes);
      body.refresh_token = rt;
      body.refresh_token_expires_in = 31_536_000;
    }
    return { status: 200, body };
  };

  const route = (
    req: FakeRequest,
    core: { violate: (d: string, s?: number) => Answer },
  ): Matched | Answer => {
    const { violate } = core;
    const { method, path, query } = req;

    // AUTH_DOC, step 2: response_type=code, client_id, redirect_uri, state, space-delimited scope.
    if (method === 'GET' && path === '/oauth/v2/authorization') {
      const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
      const redirectUri = query.get('redirect_uri') ?? '';
      const problem =
        query.get('response_type') !== 'code'
          ? 'response_type must be code'
          : query.get('client_id') !== clientId
            ? 'unknown client_id'
            : !/^https?:\/\//.test(redirectUri)
              ? 'redirect_uri must be an absolute URL'
              : !query.get('state')
                ? 'state is required (CSRF)'
                : scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.includes(s))
                  ? `scope must list known scopes, space-delimited: ${query.get('scope')}`
                  : null;
      if (problem) return violate(`authorization: ${problem} (${AUTH_DOC})`);
      const code = opaque('li-code');
      codes.set(code, { redirectUri, scopes });
      return consent(redirectUri, query.get('state') as string, code);
    }

    // AUTH_DOC, step 3: a form POST with grant_type, code, redirect_uri, client_id and client_secret.
    if (method === 'POST' && path === '/oauth/v2/accessToken') {
      return {
        route: 'POST /oauth/v2/accessToken',
        check: () => {
          const form = formOf(req);
          if (!form)
            return violate(`accessToken: the body must be application/x-www-form-urlencoded (${AUTH_DOC})`);
          if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
            return oauthError(401, 'invalid_client', 'Client authentication failed');
          }
          const grant = form.get('grant_type');
          if (grant !== 'authorization_code' && grant !== 'refresh_token') {
            return violate(`accessToken: unsupported grant_type ${grant}`);
          }
          if (grant === 'authorization_code' && (!form.get('code') || !form.get('redirect_uri'))) {
            return violate('accessToken: authorization_code needs code and redirect_uri');
          }
          return null;
        },
        effect: () => {
          const form = formOf(req) as URLSearchParams;
          if (form.get('grant_type') === 'refresh_token') {
            const rt = form.get('refresh_token') ?? '';
            const scopes = refresh.get(rt);
            if (!scopes)
              return oauthError(400, 'invalid_request', 'The provided refresh token is invalid or expired');
            return tokenAnswer(scopes, rt);
          }
          const issued = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          if (!issued)
            return oauthError(
              400,
              'invalid_request',
              'Unable to retrieve access token: authorization code not found',
            );
          if (issued.redirectUri !== form.get('redirect_uri')) {
            return oauthError(
              400,
              'invalid_request',
              'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code',
            );
          }
          return tokenAnswer(issued.scopes);
        },
      };
    }

    const grant = req.bearer ? access.get(req.bearer) : undefined;
    const authed = (needs: string[]): Answer | null => {
      if (!grant || grant.expired) return { status: 401, body: error(401, 'Invalid access token') };
      const lacking = needs.filter((s) => !grant.scopes.includes(s));
      return lacking.length
        ? { status: 403, body: error(403, `Not enough permissions to access: ${lacking.join(', ')}`) }
        : null;
    };
    // POSTS_DOC, IMAGES_DOC, STATS_DOC: "All APIs require the request headers LinkedIn-Version:
    // {Version in YYYYMM format} and X-Restli-Protocol-Version: 2.0.0".
    const restHeaders = (): Answer | null => {
      if (!/^[0-9]{6}$/.test(String(req.headers['linkedin-version'] ?? ''))) {
        return violate(
          `${method} ${path}: LinkedIn-Version must be YYYYMM, got ${req.headers['linkedin-version']}`,
        );
      }
      if (req.headers['x-restli-protocol-version'] !== '2.0.0') {
        return violate(`${method} ${path}: X-Restli-Protocol-Version must be 2.0.0`);
      }
      return null;
    };
    const noQuery = (allowed: string[]) => {
      const extra = [...query.keys()].filter((k) => !allowed.includes(k));
      return extra.length ? violate(`${method} ${path}: undocumented query ${extra.join(', ')}`) : null;
    };

    // https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2 : scope openid.
    if (method === 'GET' && path === '/v2/userinfo') {
      return {
        route: 'GET /v2/userinfo',
        check: () => noQuery([]) ?? authed(['openid', 'profile']),
        effect: () => ({
          status: 200,
          body: {
            sub: member.sub,
            name: member.name,
            given_name: 'Fieldnote',
            family_name: 'Studio',
            locale: { country: 'US', language: 'en' },
          },
        }),
      };
    }

    if (method === 'POST' && path === '/rest/images') {
      return {
        route: 'POST /rest/images',
        check: () => {
          if (query.get('action') !== 'initializeUpload' || [...query.keys()].length !== 1) {
            return violate(`POST /rest/images takes ?action=initializeUpload only (${IMAGES_DOC})`);
          }
          const problem = restHeaders() ?? authed(['w_member_social']);
          if (problem) return problem;
          const body = jsonOf(req);
          const bad = problemOf(InitializeUpload, body, `initializeUpload body (${IMAGES_DOC})`);
          if (bad) return violate(bad);
          const o = (body as z.infer<typeof InitializeUpload>).initializeUploadRequest.owner;
          return o === owner ? null : { status: 403, body: error(403, `The token may not upload as ${o}`) };
        },
        effect: () => {
          const image = `urn:li:image:D4E${opaque('img').replace(/[^A-Za-z0-9]/g, '')}`;
          const slot = opaque('up');
          uploads.set(slot, image);
          return {
            status: 200,
            body: {
              value: {
                uploadUrlExpiresAt: Date.now() + 3_600_000,
                uploadUrl: `${base}/dms-uploads/${slot}`,
                image,
              },
            },
          };
        },
      };
    }

    // IMAGES_DOC, "Upload the Image": PUT the bytes to uploadUrl with the same bearer token.
    const upload = /^\/dms-uploads\/([^/]+)$/.exec(path);
    if (method === 'PUT' && upload) {
      return {
        route: 'PUT /dms-uploads/:id',
        check: () => {
          const image = uploads.get(upload[1] as string);
          if (!image) return violate(`PUT to an upload URL that was never handed out`);
          if (req.bytes.length === 0) return violate('PUT of an empty image');
          return authed([]);
        },
        effect: () => {
          const image = uploads.get(upload[1] as string) as string;
          uploads.delete(upload[1] as string);
          images.set(image, { owner, bytes: req.bytes.length, type: String(req.headers['content-type']) });
          return { status: 201 };
        },
      };
    }

    if (method === 'POST' && path === '/rest/posts') {
      return {
        route: 'POST /rest/posts',
        check: () => {
          const problem = noQuery([]) ?? restHeaders() ?? authed(['w_member_social']);
          if (problem) return problem;
          const body = jsonOf(req);
          const bad = problemOf(PostBody, body, `POST /rest/posts body (${POSTS_DOC})`);
          if (bad) return violate(bad);
          const post = body as z.infer<typeof PostBody>;
          if (post.author !== owner)
            return { status: 403, body: error(403, `The token may not post as ${post.author}`) };
          const rendered = renderLittle(post.commentary);
          if ('problem' in rendered) return violate(`commentary: ${rendered.problem}`, 422);
          if ([...rendered.text].length > 3000)
            return violate('commentary is longer than 3,000 characters', 422);
          const ids = post.content
            ? 'media' in post.content
              ? [post.content.media.id]
              : post.content.multiImage.images.map((i) => i.id)
            : [];
          const missing = ids.filter((id) => !images.has(id));
          if (missing.length)
            return violate(`content refers to images never uploaded: ${missing.join(', ')}`, 422);
          if (!rendered.text.trim() && ids.length === 0)
            return violate('a post needs commentary or content', 422);
          return null;
        },
        effect: () => {
          const post = jsonOf(req) as z.infer<typeof PostBody>;
          const urn = `urn:li:share:${++seq}`;
          const ids = post.content
            ? 'media' in post.content
              ? [post.content.media.id]
              : post.content.multiImage.images.map((i) => i.id)
            : [];
          const rendered = renderLittle(post.commentary) as { text: string };
          posts.set(urn, {
            urn,
            author: post.author,
            commentary: post.commentary,
            text: rendered.text,
            images: ids,
            metrics: { impressions: 0, reactions: 0, comments: 0, reshares: 0 },
          });
          // POSTS_DOC, "Create a Post": 201 Created, the new post's URN in the x-restli-id header.
          return { status: 201, headers: { 'x-restli-id': urn } };
        },
      };
    }

    const one = /^\/rest\/posts\/([^/]+)$/.exec(path);
    if (method === 'GET' && one) {
      return {
        route: 'GET /rest/posts/:id',
        check: () => {
          const urn = decodeURIComponent(one[1] as string);
          if (!/^urn:li:(share|ugcPost):[0-9]+$/.test(urn))
            return violate(`GET /rest/posts/{urn}: ${urn} is no post URN`);
          return noQuery(['viewContext']) ?? restHeaders() ?? authed([]);
        },
        effect: () => {
          const p = posts.get(decodeURIComponent(one[1] as string));
          if (!p) return { status: 404, body: error(404, 'Post not found') };
          return {
            status: 200,
            body: {
              id: p.urn,
              author: p.author,
              commentary: p.commentary,
              lifecycleState: 'PUBLISHED',
              visibility: 'PUBLIC',
            },
          };
        },
      };
    }

    // STATS_DOC, "Retrieve Single Post Statistics": q=entity, entity=(share:<urn>) or (ugcPost:<urn>),
    // queryType one of the five metrics, aggregation DAILY or TOTAL; scope r_member_postAnalytics.
    if (method === 'GET' && path === '/rest/memberCreatorPostAnalytics') {
      return {
        route: 'GET /rest/memberCreatorPostAnalytics',
        check: () => {
          const problem = noQuery(['q', 'entity', 'queryType', 'aggregation', 'dateRange']) ?? restHeaders();
          if (problem) return problem;
          const entity = /^\((share|ugcPost):(urn:li:(share|ugcPost):[0-9]+)\)$/.exec(
            query.get('entity') ?? '',
          );
          if (query.get('q') !== 'entity' || !entity || entity[1] !== entity[3]) {
            return violate(
              `memberCreatorPostAnalytics: q=entity and entity=(share:urn:li:share:…) required, got ${query.get('entity')} (${STATS_DOC})`,
            );
          }
          if (
            !['IMPRESSION', 'MEMBERS_REACHED', 'RESHARE', 'REACTION', 'COMMENT'].includes(
              query.get('queryType') ?? '',
            )
          ) {
            return violate(`memberCreatorPostAnalytics: unknown queryType ${query.get('queryType')}`);
          }
          if (query.has('aggregation') && !['DAILY', 'TOTAL'].includes(query.get('aggregation') ?? '')) {
            return violate(`memberCreatorPostAnalytics: unknown aggregation ${query.get('aggregation')}`);
          }
          return authed(['r_member_postAnalytics']);
        },
        effect: () => {
          const urn = /\((?:share|ugcPost):(.+)\)/.exec(query.get('entity') ?? '')?.[1] ?? '';
          const p = posts.get(urn);
          if (!p) return { status: 404, body: error(404, 'Post not found') };
          const m = p.metrics;
          const count = {
            IMPRESSION: m.impressions,
            MEMBERS_REACHED: m.impressions,
            RESHARE: m.reshares,
            REACTION: m.reactions,
            COMMENT: m.comments,
          }[query.get('queryType') as 'IMPRESSION'];
          return {
            status: 200,
            body: {
              elements: [
                {
                  count,
                  metricType: {
                    'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1':
                      query.get('queryType'),
                  },
                },
              ],
              paging: { start: 0, count: 10, links: [] },
            },
          };
        },
      };
    }

    return violate(`${method} ${path} is no LinkedIn API this fake knows`, 404);
  };

  const core = await startFake({ error, route }, (r, a) => {
    const schema = ANSWERS[r];
    return schema && a.status < 300 ? problemOf(schema, a.body, r) : null;
  });
  base = core.url;
  return {
    ...core,
    authUrl: `${core.url}/oauth/v2/authorization`,
    clientId,
    clientSecret,
    member,
    posts,
    images,
    expire: (t) => {
      const g = access.get(t);
      if (g) g.expired = true;
    },
  };
}
