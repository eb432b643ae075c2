import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { openApiValidator, PLATFORM_SPECS } from './spec-validator.js';

/**
 * A local, stateful X API v2 that follows the published document
 * (../shared/platform-specs/x-api-v2/openapi.json). Every JSON request body is validated against
 * the operation's request schema, every query parameter against the operation's declared
 * parameters, every token's scopes against the operation's `security`, and every JSON answer
 * against its response schema (or `Error` / `Problem`). A request the contract does not allow is
 * answered with X's error shape AND recorded in `violations`, so a test fails on it even when the
 * adapter would swallow the error. Expected runtime failures (an expired token, a wrong PKCE
 * verifier, a scripted 429) are answered but are not violations.
 *
 * The OAuth endpoints are not in the document; they follow RFC 6749 (§4.1 authorization code,
 * §5.2 error answers, §6 refresh), RFC 7636 §4.6 (S256 check) and X's guide
 * https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/user-access-token
 * (form-encoded POST /2/oauth2/token; Basic auth for confidential clients; 2-hour access tokens;
 * refresh tokens rotate with `offline.access`).
 */

export type XBehaviour =
  | {
      kind: 'status';
      /** 403 is how X refuses a post it will not take (a duplicate, a suspended account). */
      status: 403 | 429 | 500 | 503;
      headers?: Record<string, string>;
      message?: string;
    }
  /** No answer. With `afterAccept`, the request takes effect first (the post IS stored). */
  | { kind: 'hang'; afterAccept?: boolean }
  /** Answered normally, but only once `until` settles (a slow platform the test lets go). */
  | { kind: 'hold'; until: Promise<void> };

export interface XFakeTweet {
  id: string;
  text: string;
  authorId: string;
  replyTo: string | null;
  mediaIds: string[];
  createdAt: string;
  metrics: {
    impressions: number;
    likes: number;
    replies: number;
    reposts: number;
    quotes: number;
    linkClicks: number;
  };
}

export interface XFakeMedia {
  mediaType: string;
  bytes: number;
  category: string;
  state: 'pending' | 'in_progress' | 'succeeded' | 'failed';
}

/** Bytes that make a GIF's processing fail, as X fails a file it cannot convert. */
export const FAIL_PROCESSING_MARK = 'x-fake:fail-processing';
/** `check_after_secs` the fake answers after finalize, and after each status check. */
export const CHECK_AFTER_SECS = { pending: 1, in_progress: 2 } as const;

export interface XFake {
  url: string;
  /** Where the provider's authUrl points: answers with a redirect carrying code and state (the person said yes). */
  authUrl: string;
  clientId: string;
  user: { id: string; name: string; username: string };
  /** Every request, in order: `METHOD /path` (query left out). */
  requests: string[];
  /** Every access token the token endpoint gave, in order, with the grant it was given for. */
  issued: { grant: 'authorization_code' | 'refresh_token'; accessToken: string }[];
  violations: string[];
  tweets: Map<string, XFakeTweet>;
  /**
   * Media whose upload finished (the one request, or finalize), with the bytes received, its
   * category and where X's processing is (`succeeded` at once for images; a `tweet_gif` starts
   * `pending` and moves on with each status check).
   */
  media: Map<string, XFakeMedia>;
  /**
   * The next request to `route` (e.g. `POST /2/tweets`, `GET /2/tweets/:id`, or
   * `POST /2/oauth2/token`, which takes only `hold`) behaves like this;
   * with `after`, that many matching requests are answered normally first.
   */
  failNext(route: string, b: XBehaviour, opts?: { after?: number }): void;
  /** Another account replies to `postId` (found by recent search in its conversation). */
  reply(postId: string, from: { username: string; text: string }): XFakeTweet;
  /** The access token stops working, as after its two hours. */
  expire(accessToken: string): void;
  /**
   * The person removes the app in X's settings (connected apps): every token X gave the app for
   * the signed-in account so far stops working, refresh tokens too. A later authorisation gives
   * new ones.
   */
  revokeApp(): void;
  /**
   * The person signs in to X as `account` on the authorise page: the connects that follow give
   * tokens for it (`user` until then). Each token acts as its account: what it posts and uploads
   * is that account's, and it may not post or check another account's media, which X refuses.
   */
  signInAs(account: { id: string; name: string; username: string }): void;
  close(): Promise<void>;
}

const DOC_PATH = join(PLATFORM_SPECS, 'x-api-v2/openapi.json');
interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: { type?: string; items?: { enum?: string[] }; uniqueItems?: boolean };
}
interface Operation {
  parameters?: (Param | { $ref: string })[];
  security?: Record<string, string[]>[];
}
const doc = JSON.parse(readFileSync(DOC_PATH, 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Param>; securitySchemes: Record<string, unknown> };
};
const spec = openApiValidator('x-api-v2/openapi.json');
const SCOPES = Object.keys(
  (doc.components.securitySchemes.OAuth2UserToken as { flows: { authorizationCode: { scopes: object } } })
    .flows.authorizationCode.scopes,
).concat('offline.access', 'media.write');

function operation(path: string, method: string): Operation {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`x-api-v2 has no ${method} ${path}`);
  return op;
}

/** X's limit for an image (https://docs.x.com/x-api/media, "Media types & size restrictions"). */
const SIMPLE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/** The image type from the file's own signature; GIF is not one the simple upload takes. */
function imageType(b: Buffer): string | null {
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

const json = (status: number, body: unknown, schema: string, headers: Record<string, string> = {}) => ({
  status,
  body,
  schema,
  headers,
});
type Answer = ReturnType<typeof json> | { status: 302; location: string };

export async function startXFake(
  opts: {
    clientId?: string;
    clientSecret?: string;
    accessTokenSeconds?: number;
    /**
     * The service's clock (ms). With it, a status check sooner than the `check_after_secs` the
     * fake last answered is a violation: X asks clients to wait that long.
     */
    now?: () => number;
    /** What `check_after_secs` says in each state (CHECK_AFTER_SECS by default): a slow X. */
    checkAfterSecs?: { pending: number; in_progress: number };
  } = {},
): Promise<XFake> {
  const clientId = opts.clientId ?? 'fake-client-id';
  const user = { id: '2244994945', name: 'Fieldnote', username: 'fieldnote' };
  type Account = typeof user;
  const accounts = new Map<string, Account>([[user.id, user]]);
  let signedIn = user;
  const requests: string[] = [];
  const issuedTokens: XFake['issued'] = [];
  const violations: string[] = [];
  const tweets = new Map<string, XFakeTweet>();
  const media = new Map<string, XFakeMedia>();
  const uploads = new Map<
    string,
    { mediaType: string; category: string; total: number; segments: Buffer[]; owner: string }
  >();
  /** The account that uploaded each medium: only its tokens may post it or check on it. */
  const mediaOwner = new Map<string, string>();
  /** Per processing upload: whether its bytes carry the failure mark, and when it may be checked. */
  const processing = new Map<string, { fails: boolean; checkAt: number }>();
  const checkAfterSecs = opts.checkAfterSecs ?? CHECK_AFTER_SECS;
  const codes = new Map<
    string,
    { challenge: string; redirectUri: string; scopes: string[]; userId: string }
  >();
  const access = new Map<string, { scopes: string[]; expired: boolean; userId: string }>();
  const refresh = new Map<string, { scopes: string[]; userId: string }>();
  const pending: { route: string; b: XBehaviour; after: number }[] = [];
  const hanging = new Set<ServerResponse>();
  let seq = 1_860_000_000_000_000_000n;
  const nextId = () => String(++seq);
  let secret = 0;
  const opaque = (prefix: string) =>
    `${prefix}-${++secret}-${createHash('sha256').update(`${prefix}${secret}`).digest('hex').slice(0, 16)}`;

  /** A breach of the contract: recorded, and answered the way X answers a bad request. */
  const invalid = (detail: string, status = 400): Answer => {
    violations.push(detail);
    return json(
      status,
      { title: 'Invalid Request', detail, type: 'https://api.x.com/2/problems/invalid-request' },
      'Problem',
    );
  };
  const error = (status: number, message: string, headers: Record<string, string> = {}) =>
    json(status, { code: status, message }, 'Error', headers);
  const oauthError = (status: number, err: string, description: string): Answer =>
    json(status, { error: err, error_description: description }, '');

  /** Query parameters must be declared for the operation; form-style arrays take listed values only. */
  const checkQuery = (op: Operation, query: URLSearchParams): string | null => {
    const params = (op.parameters ?? []).map((p) =>
      '$ref' in p ? (doc.components.parameters[p.$ref.split('/').pop() as string] as Param) : p,
    );
    for (const [name, value] of query) {
      const p = params.find((x) => x.in === 'query' && x.name === name);
      if (!p) return `query parameter ${name} is not declared for this operation`;
      if (p.schema?.type === 'array') {
        const items = value.split(',');
        const allowed = p.schema.items?.enum;
        const bad = allowed ? items.filter((i) => !allowed.includes(i)) : [];
        if (bad.length) return `${name} has values the document does not list: ${bad.join(', ')}`;
        if (p.schema.uniqueItems && new Set(items).size !== items.length) return `${name} repeats a value`;
      }
    }
    const missing = params.find((p) => p.in === 'query' && p.required && !query.has(p.name));
    return missing ? `required query parameter ${missing.name} is missing` : null;
  };

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  const authorize = (q: URLSearchParams): Answer => {
    const redirectUri = q.get('redirect_uri') ?? '';
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    const problem =
      q.get('response_type') !== 'code'
        ? 'response_type must be code'
        : q.get('client_id') !== clientId
          ? 'unknown client_id'
          : !/^https?:\/\//.test(redirectUri)
            ? 'redirect_uri must be an absolute URL'
            : !q.get('state')
              ? 'state is required'
              : q.get('code_challenge_method') !== 'S256' ||
                  !/^[A-Za-z0-9_-]{43}$/.test(q.get('code_challenge') ?? '')
                ? 'an S256 code_challenge is required'
                : scopes.length === 0 || scopes.some((s) => !SCOPES.includes(s))
                  ? `scope must list known scopes: ${q.get('scope')}`
                  : null;
    if (problem) return invalid(`authorize: ${problem}`);
    const code = opaque('code');
    codes.set(code, {
      challenge: q.get('code_challenge') as string,
      redirectUri,
      scopes,
      userId: signedIn.id,
    });
    const to = new URL(redirectUri);
    to.searchParams.set('state', q.get('state') as string);
    to.searchParams.set('code', code);
    return { status: 302, location: to.toString() };
  };

  const issue = (scopes: string[], userId: string, grant: XFake['issued'][number]['grant']): Answer => {
    const accessToken = opaque('at');
    issuedTokens.push({ grant, accessToken });
    access.set(accessToken, { scopes, expired: false, userId });
    const body: Record<string, unknown> = {
      token_type: 'bearer',
      expires_in: opts.accessTokenSeconds ?? 7200,
      access_token: accessToken,
      scope: scopes.join(' '),
    };
    if (scopes.includes('offline.access')) {
      body.refresh_token = opaque('rt');
      refresh.set(body.refresh_token as string, { scopes, userId });
    }
    return json(200, body, '');
  };

  const token = async (req: IncomingMessage): Promise<Answer> => {
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return invalid(
        `token: content-type must be application/x-www-form-urlencoded, not ${req.headers['content-type']}`,
      );
    }
    const form = new URLSearchParams(await readBody(req));
    // RFC 6749 §2.3.1: a confidential client authenticates with Basic; a public one names itself.
    if (opts.clientSecret) {
      const expected = `Basic ${Buffer.from(`${clientId}:${opts.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected)
        return oauthError(401, 'invalid_client', 'Client authentication failed.');
    } else if (form.get('client_id') !== clientId) {
      return invalid('token: a public client sends its client_id');
    }
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const code = form.get('code') ?? '';
      const issued = codes.get(code);
      if (!form.get('code_verifier') || !form.get('redirect_uri')) {
        return invalid('token: authorization_code needs code_verifier and redirect_uri');
      }
      codes.delete(code); // one use only, even when the rest is wrong (RFC 6749 §4.1.2)
      if (!issued)
        return oauthError(400, 'invalid_grant', 'Value passed for the authorization code was invalid.');
      if (issued.redirectUri !== form.get('redirect_uri')) {
        return oauthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request.');
      }
      const challenge = createHash('sha256')
        .update(form.get('code_verifier') as string, 'ascii')
        .digest('base64url');
      if (challenge !== issued.challenge)
        return oauthError(400, 'invalid_grant', 'code_verifier does not match.');
      return issue(issued.scopes, issued.userId, 'authorization_code');
    }
    if (grant === 'refresh_token') {
      const old = form.get('refresh_token') ?? '';
      const grant = refresh.get(old);
      if (!grant) return oauthError(400, 'invalid_grant', 'Value passed for the token was invalid.');
      refresh.delete(old); // rotation: a refresh token works once
      return issue(grant.scopes, grant.userId, 'refresh_token');
    }
    return invalid(`token: unsupported grant_type ${grant}`);
  };

  /** Bearer token, its scopes against the operation's `security`, the JSON body against `schema`. */
  const guard = async (
    req: IncomingMessage,
    op: Operation,
    schema: string | null,
  ): Promise<{ answer: Answer } | { body: Record<string, unknown>; who: Account }> => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = bearer ? access.get(bearer) : undefined;
    if (!grant || grant.expired) return { answer: error(401, 'Unauthorized') };
    const needed = op.security?.find((s) => s.OAuth2UserToken)?.OAuth2UserToken ?? [];
    const lacking = needed.filter((s) => !grant.scopes.includes(s));
    if (lacking.length) return { answer: error(403, `The token lacks the scopes ${lacking.join(', ')}.`) };
    const who = accounts.get(grant.userId) as Account;
    const text = await readBody(req);
    if (!schema) {
      if (text) return { answer: invalid(`${req.method} ${req.url} takes no body`) };
      return { body: {}, who };
    }
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      return { answer: invalid(`content-type must be application/json, not ${req.headers['content-type']}`) };
    }
    try {
      const body = JSON.parse(text) as Record<string, unknown>;
      spec.check(schema, body, `the request to ${req.method} ${req.url}`);
      return { body, who };
    } catch (err) {
      return { answer: invalid((err as Error).message) };
    }
  };

  const createPost = (body: Record<string, unknown>, who: Account): Answer => {
    const text = String(body.text ?? '');
    const replyTo =
      (body.reply as { in_reply_to_tweet_id?: string } | undefined)?.in_reply_to_tweet_id ?? null;
    const mediaIds = (body.media as { media_ids?: string[] } | undefined)?.media_ids ?? [];
    if ([...text].length > 280) return invalid(`text has ${[...text].length} characters; X takes 280`);
    if (!text && !mediaIds.length) return invalid('a post needs text or media');
    if (replyTo && !tweets.has(replyTo))
      return invalid(`in_reply_to_tweet_id ${replyTo} is no existing post`);
    const unknown = mediaIds.filter((m) => !media.has(m));
    if (unknown.length) return invalid(`media_ids ${unknown.join(', ')} were never uploaded`);
    const foreign = mediaIds.filter((m) => mediaOwner.get(m) !== who.id);
    if (foreign.length) return invalid(`media_ids ${foreign.join(', ')} were uploaded by another account`);
    // X: "You can not use the media_id to create Tweet ... before the state field is set to succeeded".
    const unready = mediaIds.filter((m) => media.get(m)?.state !== 'succeeded');
    if (unready.length) {
      const states = unready.map((m) => `${m} is ${media.get(m)?.state}`).join(', ');
      return invalid(`media_ids not processed yet (${states}): poll STATUS until succeeded`);
    }
    const id = nextId();
    tweets.set(id, {
      id,
      text,
      authorId: who.id,
      replyTo,
      mediaIds,
      createdAt: new Date().toISOString(),
      metrics: { impressions: 0, likes: 0, replies: 0, reposts: 0, quotes: 0, linkClicks: 0 },
    });
    return json(201, { data: { id, text, edit_history_post_ids: [id] } }, 'CreatePostsResponse');
  };

  const getPost = (id: string, query: URLSearchParams): Answer => {
    const t = tweets.get(id);
    if (!t) {
      const detail = `Could not find post with id: [${id}].`;
      const problem = {
        title: 'Not Found Error',
        detail,
        type: 'https://api.x.com/2/problems/resource-not-found',
        resource_type: 'tweet',
        resource_id: id,
        parameter: 'id',
        value: id,
      };
      return json(200, { errors: [problem] }, 'GetPostsByIdResponse');
    }
    const fields = (query.get('post.fields') ?? '').split(',');
    const data: Record<string, unknown> = { id: t.id, text: t.text, edit_history_post_ids: [t.id] };
    const m = t.metrics;
    if (fields.includes('public_metrics')) {
      data.public_metrics = {
        impression_count: m.impressions,
        like_count: m.likes,
        reply_count: m.replies,
        repost_count: m.reposts,
        quote_count: m.quotes,
        bookmark_count: 0,
      };
    }
    if (fields.includes('non_public_metrics')) {
      data.non_public_metrics = {
        impression_count: m.impressions,
        url_link_clicks: m.linkClicks,
        user_profile_clicks: 0,
      };
    }
    return json(200, { data }, 'GetPostsByIdResponse');
  };

  const others = new Map<string, { id: string; name: string; username: string }>();
  const rootOf = (t: XFakeTweet): string => {
    const parent = t.replyTo ? tweets.get(t.replyTo) : undefined;
    return parent ? rootOf(parent) : t.id;
  };
  /** Recent search, only the `conversation_id:<id>` query svc sends (X's search query syntax). */
  const search = (query: URLSearchParams): Answer => {
    const conversation = /^conversation_id:([0-9]{1,19})$/.exec(query.get('query') ?? '')?.[1];
    if (!conversation)
      return invalid(`search: this fake answers conversation_id:<id> only, not ${query.get('query')}`);
    const expand = (query.get('expansions') ?? '').split(',').includes('author_id');
    const fields = (query.get('post.fields') ?? '').split(',');
    const found = [...tweets.values()].filter((t) => t.id !== conversation && rootOf(t) === conversation);
    const data = found.map((t) => ({
      id: t.id,
      text: t.text,
      edit_history_post_ids: [t.id],
      ...(expand ? { author_id: t.authorId } : {}),
      ...(fields.includes('conversation_id') ? { conversation_id: conversation } : {}),
      ...(fields.includes('created_at') ? { created_at: t.createdAt } : {}),
    }));
    const authors = [...new Set(found.map((t) => t.authorId))].map(
      (id) => accounts.get(id) ?? (others.get(id) as Account),
    );
    const body: Record<string, unknown> = { meta: { result_count: data.length } };
    if (data.length) body.data = data;
    if (expand && authors.length) body.includes = { users: authors };
    return json(200, body, 'SearchPostsRecentResponse');
  };

  const initialize = (body: Record<string, unknown>, who: Account): Answer => {
    if (typeof body.media_type !== 'string' || typeof body.total_bytes !== 'number') {
      return invalid('initialize needs media_type and total_bytes');
    }
    const id = nextId();
    uploads.set(id, {
      mediaType: body.media_type,
      category: String(body.media_category ?? 'tweet_image'),
      total: body.total_bytes,
      segments: [],
      owner: who.id,
    });
    return json(
      200,
      { data: { id, media_key: `3_${id}`, expires_after_secs: 86_400 } },
      'InitializeMediaUploadResponse',
    );
  };

  const append = (id: string, body: Record<string, unknown>): Answer => {
    const up = uploads.get(id);
    if (!up) return invalid(`append to unknown upload ${id}`);
    if (body.segment_index !== up.segments.length) {
      return invalid(`segment_index ${body.segment_index} out of order (expected ${up.segments.length})`);
    }
    up.segments.push(Buffer.from(String(body.media), 'base64'));
    return json(
      200,
      { data: { expires_at: Math.floor(Date.now() / 1000) + 86_400 } },
      'AppendMediaUploadResponse',
    );
  };

  const finalize = (id: string): Answer => {
    const up = uploads.get(id);
    if (!up) return invalid(`finalize of unknown upload ${id}`);
    const bytes = up.segments.reduce((n, s) => n + s.length, 0);
    if (bytes !== up.total) return invalid(`finalize after ${bytes} of ${up.total} bytes`);
    uploads.delete(id);
    mediaOwner.set(id, up.owner);
    // X processes GIFs and video after finalize; a still image is ready at once.
    const processes = up.category === 'tweet_gif' || up.category === 'tweet_video';
    media.set(id, {
      mediaType: up.mediaType,
      bytes,
      category: up.category,
      state: processes ? 'pending' : 'succeeded',
    });
    const data: Record<string, unknown> = {
      id,
      media_key: `3_${id}`,
      size: bytes,
      expires_after_secs: 86_400,
    };
    if (processes) {
      const fails = Buffer.concat(up.segments).includes(FAIL_PROCESSING_MARK);
      processing.set(id, { fails, checkAt: checkAfter(checkAfterSecs.pending) });
      data.processing_info = {
        state: 'pending',
        check_after_secs: checkAfterSecs.pending,
        progress_percent: 0,
      };
    }
    return json(200, { data }, 'FinalizeMediaUploadResponse');
  };

  const checkAfter = (secs: number) => (opts.now ? opts.now() + secs * 1000 : 0);

  /**
   * GET /2/media/upload?command=STATUS&media_id=<id>. Each check moves a processing upload on:
   * pending, in_progress, then succeeded (or failed for a file carrying FAIL_PROCESSING_MARK).
   */
  const status = (query: URLSearchParams, who: Account): Answer => {
    const id = query.get('media_id') ?? '';
    try {
      spec.check('MediaId', id, 'media_id');
    } catch (err) {
      return invalid((err as Error).message);
    }
    if (query.get('command') !== 'STATUS') return invalid('command=STATUS is the status check');
    const m = media.get(id);
    if (!m) return invalid(`status of media ${id}, which was never finalized`);
    if (mediaOwner.get(id) !== who.id) return invalid(`status of media ${id}, another account's upload`);
    const p = processing.get(id);
    if (p && opts.now && opts.now() < p.checkAt) {
      return invalid(`status of media ${id} checked ${p.checkAt - opts.now()} ms before check_after_secs`);
    }
    if (m.state === 'pending') m.state = 'in_progress';
    else if (m.state === 'in_progress') m.state = p?.fails ? 'failed' : 'succeeded';
    const info: Record<string, unknown> = {
      state: m.state,
      progress_percent: { pending: 0, in_progress: 50, succeeded: 100, failed: 50 }[m.state],
    };
    if (m.state === 'in_progress') {
      info.check_after_secs = checkAfterSecs.in_progress;
      if (p) p.checkAt = checkAfter(checkAfterSecs.in_progress);
    }
    return json(
      200,
      { data: { id, media_key: `3_${id}`, size: m.bytes, processing_info: info } },
      'GetMediaUploadStatusResponse',
    );
  };

  /**
   * The one-request upload. The schema has checked the shape (no `media_type`: X reads the type
   * from the bytes); what it cannot check is checked here, as X would: `media` is base64 of an
   * image it knows, within the 5 MB an image may be (https://docs.x.com/x-api/media). A larger
   * image or a GIF belongs to the chunked flow, so the adapter sending one here is a violation.
   */
  const uploadWhole = (body: Record<string, unknown>, who: Account): Answer => {
    const text = String(body.media);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
      return invalid('media must be the file base64-encoded in a JSON body');
    }
    const bytes = Buffer.from(text, 'base64');
    const mediaType = imageType(bytes);
    if (body.media_category !== 'tweet_image' || !mediaType) {
      return invalid(
        `media_category ${String(body.media_category)} with bytes of ${mediaType ?? 'no image type'}`,
      );
    }
    if (bytes.length > SIMPLE_IMAGE_MAX_BYTES) {
      return invalid(`an image of ${bytes.length} bytes is over the 5 MB the simple upload takes`);
    }
    const id = nextId();
    media.set(id, { mediaType, bytes: bytes.length, category: 'tweet_image', state: 'succeeded' });
    mediaOwner.set(id, who.id);
    return json(
      200,
      { data: { id, media_key: `3_${id}`, size: bytes.length, image: { image_type: mediaType } } },
      'MediaUploadResponse',
    );
  };

  /** Routes: [method, pattern, document path, request schema, handler]. */
  type Handler = (body: Record<string, unknown>, id: string, query: URLSearchParams, who: Account) => Answer;
  const routes: [string, RegExp, string, string | null, Handler][] = [
    ['POST', /^\/2\/tweets$/, '/2/tweets', 'CreatePostsRequest', (b, _id, _q, who) => createPost(b, who)],
    ['GET', /^\/2\/tweets\/([^/]+)$/, '/2/tweets/{id}', null, (_b, id, q) => getPost(id, q)],
    ['GET', /^\/2\/tweets\/search\/recent$/, '/2/tweets/search/recent', null, (_b, _id, q) => search(q)],
    [
      'GET',
      /^\/2\/users\/me$/,
      '/2/users/me',
      null,
      (_b, _id, _q, who) => json(200, { data: who }, 'GetUsersMeResponse'),
    ],
    [
      'POST',
      /^\/2\/media\/upload$/,
      '/2/media/upload',
      'MediaUploadRequest',
      (b, _id, _q, who) => uploadWhole(b, who),
    ],
    ['GET', /^\/2\/media\/upload$/, '/2/media/upload', null, (_b, _id, q, who) => status(q, who)],
    [
      'POST',
      /^\/2\/media\/upload\/initialize$/,
      '/2/media/upload/initialize',
      'InitializeMediaUploadRequest',
      (b, _id, _q, who) => initialize(b, who),
    ],
    [
      'POST',
      /^\/2\/media\/upload\/([^/]+)\/append$/,
      '/2/media/upload/{id}/append',
      'AppendMediaUploadRequest',
      (b, id) => append(id, b),
    ],
    [
      'POST',
      /^\/2\/media\/upload\/([^/]+)\/finalize$/,
      '/2/media/upload/{id}/finalize',
      null,
      (_b, id) => finalize(id),
    ],
  ];

  /** The behaviour set with failNext for this request to `route`, if its turn has come. */
  const take = (route: string): XBehaviour | undefined => {
    const entry = pending.find((p) => p.route === route);
    if (entry && entry.after > 0) entry.after--;
    else if (entry) {
      pending.splice(pending.indexOf(entry), 1);
      return entry.b;
    }
    return undefined;
  };

  const dispatch = async (req: IncomingMessage, res: ServerResponse): Promise<Answer | null> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push(`${req.method} ${url.pathname}`);
    if (req.method === 'GET' && url.pathname === '/i/oauth2/authorize') return authorize(url.searchParams);
    if (req.method === 'POST' && url.pathname === '/2/oauth2/token') {
      const held = take('POST /2/oauth2/token');
      if (held?.kind === 'hold') await held.until;
      return token(req);
    }
    for (const [method, pattern, docPath, schema, handler] of routes) {
      const match = pattern.exec(url.pathname);
      if (!match || req.method !== method) continue;
      const id = match[1] ?? '';
      if (id) {
        try {
          spec.check('PostId', id, `the id in ${url.pathname}`); // PostId and media ids share ^[0-9]{1,19}$
        } catch (err) {
          return invalid((err as Error).message);
        }
      }
      const op = operation(docPath, method);
      const queryProblem = checkQuery(op, url.searchParams);
      if (queryProblem) return invalid(`${method} ${url.pathname}: ${queryProblem}`);
      const guarded = await guard(req, op, schema);
      if ('answer' in guarded) return guarded.answer;
      const b = take(`${method} ${docPath.replace('{id}', ':id')}`);
      if (b?.kind === 'hold') await b.until;
      if (b?.kind === 'status') {
        const message =
          b.message ??
          { 403: 'Forbidden', 429: 'Too Many Requests', 500: 'Internal Error', 503: 'Service Unavailable' }[
            b.status
          ];
        return error(b.status, message, b.headers);
      }
      const answer =
        b?.kind === 'hang' && !b.afterAccept
          ? null
          : handler(guarded.body, id, url.searchParams, guarded.who);
      if (b?.kind === 'hang') {
        hanging.add(res);
        return null;
      }
      return answer;
    }
    return invalid(`${req.method} ${url.pathname} is no operation of the X API v2 document`, 404);
  };

  const server: Server = createServer((req, res) => {
    dispatch(req, res)
      .then((answer) => {
        if (!answer) return;
        if ('location' in answer) {
          res.writeHead(302, { location: answer.location }).end();
          return;
        }
        if (answer.schema)
          spec.check(answer.schema, answer.body, `the fake’s answer to ${req.method} ${req.url}`);
        const problem = answer.schema === 'Problem';
        res
          .writeHead(answer.status, {
            'content-type': problem ? 'application/problem+json' : 'application/json',
            ...answer.headers,
          })
          .end(JSON.stringify(answer.body));
      })
      .catch((err: unknown) => {
        violations.push(`fake failed: ${(err as Error).message}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    authUrl: `${url}/i/oauth2/authorize`,
    clientId,
    user,
    requests,
    issued: issuedTokens,
    violations,
    tweets,
    media,
    failNext: (route, b, o) => pending.push({ route, b, after: o?.after ?? 0 }),
    reply: (postId, from) => {
      const id = nextId();
      const authorId = String(3_000_000 + others.size);
      others.set(authorId, { id: authorId, name: from.username, username: from.username });
      const t: XFakeTweet = {
        id,
        text: from.text,
        authorId,
        replyTo: postId,
        mediaIds: [],
        createdAt: new Date().toISOString(),
        metrics: { impressions: 0, likes: 0, replies: 0, reposts: 0, quotes: 0, linkClicks: 0 },
      };
      tweets.set(id, t);
      const parent = tweets.get(postId);
      if (parent) parent.metrics.replies++;
      return t;
    },
    signInAs: (account) => {
      accounts.set(account.id, account);
      signedIn = account;
    },
    expire: (t) => {
      const grant = access.get(t);
      if (grant) grant.expired = true;
    },
    revokeApp: () => {
      for (const tokens of [access, refresh])
        for (const [t, grant] of tokens) if (grant.userId === signedIn.id) tokens.delete(t);
    },
    close: () =>
      new Promise((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
