import { trimTrailingSlashes } from '../../../platform/trim-end.js';
import { PLATFORM_LIMITS } from '../../domain.js';
import type { Counts } from '../../services/metrics.js';
import {
  type ClientOptions,
  characters,
  count,
  expiresAt,
  firstMessage,
  grantRefused,
  type ProviderHttp,
  providerHttp,
  withQuery,
} from '../http.js';
import {
  type PlatformProvider,
  ProviderError,
  type ProviderMedia,
  type ProviderPublishInput,
  type TokenSet,
} from '../provider.js';
import { fromLittleText, toLittleText } from './little-text.js';

export { escapeLittle, fromLittleText, toLittleText } from './little-text.js';

/**
 * LinkedIn: Sign In with LinkedIn (OpenID Connect) and Share on LinkedIn, for a member's own posts.
 * - OAuth 2.0 3-legged flow (authorization code; the client secret is sent in the token request body):
 *   https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow
 * - The member id for the author URN from /v2/userinfo (`sub`):
 *   https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2
 * - POST /rest/posts, the new post's URN in the `x-restli-id` header; every /rest call carries
 *   `LinkedIn-Version: YYYYMM` and `X-Restli-Protocol-Version: 2.0.0`:
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 * - Images: POST /rest/images?action=initializeUpload, then PUT the bytes to the upload URL:
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api
 * - Metrics: memberCreatorPostAnalytics (scope r_member_postAnalytics), one query type per call:
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/members/post-statistics
 * - Refresh tokens only for apps LinkedIn approved for them (programmatic refresh tokens):
 *   https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens
 *   Other apps get a 60-day access token and no refresh token: the person reconnects when it ends.
 */

export interface LinkedInClientOptions extends ClientOptions {
  /** The `LinkedIn-Version` (YYYYMM) every /rest call names. LinkedIn keeps a version about a year. */
  linkedInVersion?: string;
}

/** A version the docs list as live (li-lms-2026-03); configurable because versions are retired yearly. */
export const LINKEDIN_VERSION = '202603';
export const LINKEDIN_SCOPES = ['openid', 'profile', 'w_member_social'] as const;
/** JPG, PNG and GIF (Images API); a post takes one image, or 2 to 20 as a multi-image post. */
export const LINKEDIN_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'] as const;
export const LINKEDIN_MAX_IMAGES = 20;
const METRICS = ['IMPRESSION', 'REACTION', 'COMMENT', 'RESHARE'] as const;
const POST_URN = /^urn:li:(share|ugcPost):[0-9]{1,20}$/;

interface TokenResponse {
  access_token?: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

/** LinkedIn's error body is `{status, message, serviceErrorCode, code}`; OAuth's is `{error, error_description}`. */
function describe(body: unknown): string | undefined {
  const b = (body ?? {}) as Record<string, unknown>;
  return firstMessage(b.message, b.error_description, b.error);
}

const invalid = (m: string) => new ProviderError('linkedin', 'invalid', m);

function checkLimits(input: ProviderPublishInput) {
  if (input.parts.length !== 1) {
    throw invalid(
      `A LinkedIn post is one part; this one has ${input.parts.length}. LinkedIn has no threads.`,
    );
  }
  const text = input.parts[0] as string;
  const media = input.media ?? [];
  if (!text.trim() && media.length === 0) throw invalid('Nothing to publish: the post has no text.');
  const length = characters(text);
  if (length > PLATFORM_LIMITS.linkedin) {
    throw invalid(`The post has ${length} characters; LinkedIn takes ${PLATFORM_LIMITS.linkedin}.`);
  }
  if (media.length > LINKEDIN_MAX_IMAGES) {
    throw invalid(`A LinkedIn post takes at most ${LINKEDIN_MAX_IMAGES} images.`);
  }
  for (const m of media) {
    if (!(LINKEDIN_IMAGE_TYPES as readonly string[]).includes(m.mimeType)) {
      throw invalid(`LinkedIn does not take ${m.mimeType} images (only ${LINKEDIN_IMAGE_TYPES.join(', ')}).`);
    }
  }
}

function postUrn(externalId: string): string {
  if (!POST_URN.test(externalId)) throw invalid(`${externalId} is no LinkedIn post URN.`);
  return externalId;
}

export function createLinkedInProvider(opts: LinkedInClientOptions): PlatformProvider {
  const apiUrl = trimTrailingSlashes(opts.apiUrl ?? 'https://api.linkedin.com');
  const authUrl = opts.authUrl ?? 'https://www.linkedin.com/oauth/v2/authorization';
  // The token endpoint sits beside the authorise page (www.linkedin.com/oauth/v2/accessToken).
  const tokenUrl = new URL('accessToken', authUrl).toString();
  const version = opts.linkedInVersion ?? LINKEDIN_VERSION;
  const now = opts.now ?? (() => new Date());
  const call: ProviderHttp = providerHttp({
    platform: 'linkedin',
    label: 'LinkedIn',
    apiUrl,
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    now: opts.now,
    describe,
  });
  const rest = { 'LinkedIn-Version': version, 'X-Restli-Protocol-Version': '2.0.0' };

  const token = async (form: Record<string, string>): Promise<TokenSet> => {
    let body: TokenResponse;
    try {
      const res = await call<TokenResponse>({
        method: 'POST',
        path: tokenUrl,
        tokenEndpoint: true,
        form: { ...form, client_id: opts.clientId, client_secret: opts.clientSecret ?? '' },
      });
      body = res.body;
    } catch (err) {
      throw grantRefused(err);
    }
    if (!body?.access_token) {
      throw new ProviderError(
        'linkedin',
        'rejected',
        'LinkedIn’s token endpoint answered without an access token.',
      );
    }
    return {
      accessToken: body.access_token,
      refreshToken: body.refresh_token ?? null,
      expiresAt: expiresAt(now(), body.expires_in),
      scopes: (body.scope ?? '').split(/[\s,]+/).filter(Boolean),
    };
  };

  /** The member the token is for, from OpenID userinfo (`sub` is the id in `urn:li:person:<id>`). */
  const member = async (accessToken: string) => {
    const me = await call<{ sub?: string; name?: string }>({
      method: 'GET',
      path: '/v2/userinfo',
      token: accessToken,
    });
    const sub = me.body?.sub;
    if (!sub)
      throw new ProviderError('linkedin', 'rejected', 'LinkedIn did not say which member the token is for.');
    return { sub, name: me.body?.name ?? '' };
  };
  const author = async (accessToken: string) => `urn:li:person:${(await member(accessToken)).sub}`;

  const uploadImage = async (accessToken: string, owner: string, m: ProviderMedia) => {
    const init = await call<{ value?: { uploadUrl?: string; image?: string } }>({
      method: 'POST',
      path: '/rest/images?action=initializeUpload',
      token: accessToken,
      headers: rest,
      json: { initializeUploadRequest: { owner } },
    });
    const { uploadUrl, image } = init.body?.value ?? {};
    if (!uploadUrl || !image?.startsWith('urn:li:image:')) {
      throw new ProviderError(
        'linkedin',
        'rejected',
        'LinkedIn’s image upload answered without an upload URL.',
      );
    }
    // The token goes with the bytes: only to LinkedIn's own https hosts (or the configured API, for tests).
    const target = new URL(uploadUrl);
    const ours = target.origin === new URL(apiUrl).origin;
    if (!ours && !(target.protocol === 'https:' && /(^|\.)linkedin\.com$/.test(target.hostname))) {
      throw new ProviderError(
        'linkedin',
        'rejected',
        `LinkedIn handed out an upload URL on ${target.host}; refused.`,
      );
    }
    await call({
      method: 'PUT',
      path: uploadUrl,
      token: accessToken,
      raw: { contentType: m.mimeType, data: m.data },
    });
    return image;
  };

  return {
    platform: 'linkedin',
    defaultScopes: LINKEDIN_SCOPES,

    authorizeUrl(input) {
      // A confidential web client: the secret protects the exchange, LinkedIn's web flow takes no PKCE.
      return withQuery(authUrl, {
        response_type: 'code',
        client_id: opts.clientId,
        redirect_uri: input.redirectUri,
        state: input.state,
        scope: (input.scopes ?? LINKEDIN_SCOPES).join(' '),
      });
    },
    exchangeCode: (input) =>
      token({ grant_type: 'authorization_code', code: input.code, redirect_uri: input.redirectUri }),
    refresh: (refreshToken) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }),

    /**
     * OpenID userinfo gives the member's id and name but no public handle (the vanity name needs a
     * closed permission), so the handle is the member id and the name is what people read.
     */
    async account(accessToken) {
      const { sub, name } = await member(accessToken);
      return { id: sub, handle: sub, displayName: name || sub };
    },

    async publish(input) {
      checkLimits(input);
      const accessToken = input.accessToken;
      // The author and the images first: nothing is public until the one POST /rest/posts.
      const owner = await author(accessToken);
      const images: string[] = [];
      for (const m of input.media ?? []) images.push(await uploadImage(accessToken, owner, m));
      const body: Record<string, unknown> = {
        author: owner,
        commentary: toLittleText(input.parts[0] as string),
        visibility: 'PUBLIC',
        distribution: {
          feedDistribution: 'MAIN_FEED',
          targetEntities: [],
          thirdPartyDistributionChannels: [],
        },
        lifecycleState: 'PUBLISHED',
        isReshareDisabledByAuthor: false,
      };
      if (images.length === 1) body.content = { media: { id: images[0] } };
      if (images.length > 1) body.content = { multiImage: { images: images.map((id) => ({ id })) } };
      const created = await call({
        method: 'POST',
        path: '/rest/posts',
        token: accessToken,
        headers: rest,
        json: body,
        publishes: true,
      });
      const urn = created.headers.get('x-restli-id');
      if (!urn || !POST_URN.test(urn)) {
        // Accepted, but without the id we cannot know which post is ours.
        throw new ProviderError(
          'linkedin',
          'outcome_unknown',
          'LinkedIn accepted the post but returned no post id.',
        );
      }
      return {
        externalId: urn,
        externalIds: [urn],
        permalink: `https://www.linkedin.com/feed/update/${urn}/`,
      };
    },

    async status({ accessToken, externalId }) {
      const urn = postUrn(externalId);
      try {
        const res = await call<{ commentary?: string }>({
          method: 'GET',
          path: `/rest/posts/${encodeURIComponent(urn)}`,
          token: accessToken,
          headers: rest,
        });
        return {
          externalId,
          exists: true,
          text: typeof res.body?.commentary === 'string' ? fromLittleText(res.body.commentary) : null,
        };
      } catch (err) {
        if (err instanceof ProviderError && err.status === 404)
          return { externalId, exists: false, text: null };
        throw err;
      }
    },

    async metrics({ accessToken, externalId }): Promise<Counts> {
      const urn = postUrn(externalId);
      const kind = urn.split(':')[2] as string;
      const totals: Record<string, number> = {};
      for (const queryType of METRICS) {
        // Rest.li 2.0 query syntax: the entity is a union keyed by its type, its URN percent-encoded.
        const query = `q=entity&entity=(${kind}:${encodeURIComponent(urn)})&queryType=${queryType}&aggregation=TOTAL`;
        const res = await call<{ elements?: { count?: number }[] }>({
          method: 'GET',
          path: `/rest/memberCreatorPostAnalytics?${query}`,
          token: accessToken,
          headers: rest,
        });
        totals[queryType] = (res.body?.elements ?? []).reduce((n, e) => n + count(e.count), 0);
      }
      return {
        impressions: totals.IMPRESSION ?? 0,
        likes: totals.REACTION ?? 0,
        comments: totals.COMMENT ?? 0,
        shares: totals.RESHARE ?? 0,
        // Member post analytics report no clicks.
        clicks: 0,
      };
    },
  };
}
