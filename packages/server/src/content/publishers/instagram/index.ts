import { trimTrailingSlashes } from '../../../platform/trim-end.js';
import { PLATFORM_LIMITS } from '../../domain.js';
import type { Counts } from '../../services/metrics.js';
import { characters } from '../http.js';
import {
  insights,
  type MetaClientOptions,
  mediaStatus,
  metaClient,
  permalinkOr,
  readReplies,
  waitForContainer,
} from '../meta/graph.js';
import { gifRefused, type PlatformProvider, ProviderError, type ProviderPublishInput } from '../provider.js';

/**
 * Instagram API with Instagram Login (professional accounts, no Facebook Page needed).
 * - Business Login: https://www.instagram.com/oauth/authorize, the code exchanged at
 *   https://api.instagram.com/oauth/access_token, then GET graph.instagram.com/access_token
 *   (`ig_exchange_token`) for a 60-day token, renewed with GET /refresh_access_token (`ig_refresh_token`):
 *   https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 * - Publishing: POST /<IG_ID>/media (image_url, caption; carousel items with is_carousel_item, then a
 *   CAROUSEL container with `children`), GET /<container>?fields=status_code until FINISHED, then
 *   POST /<IG_ID>/media_publish (creation_id); GET /<IG_ID>/content_publishing_limit for the quota:
 *   https://developers.facebook.com/docs/instagram-platform/content-publishing
 * - Limits: JPEG only, 2,200 characters, 30 hashtags, up to 10 carousel items, and 100 API-published
 *   posts per moving 24 hours (a carousel counts as one). Meta cURLs the image from its URL, so the
 *   URL must be public: same page.
 * - Metrics: GET /<media>/insights: https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights
 * - Comments: GET /<media>/comments: https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/comments
 */

export interface InstagramClientOptions extends MetaClientOptions {
  /** Where the code is exchanged: api.instagram.com's for the real API, else `<apiUrl>/oauth/access_token`. */
  tokenUrl?: string;
  /** The Graph API version in every path; v23.0 by default. */
  graphVersion?: string;
}

export const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
] as const;
/**
 * "JPEG is the only image format supported" (Content Publishing,
 * https://developers.facebook.com/docs/instagram-platform/content-publishing): an animated GIF
 * would not post as one, so it is refused before any call (gifRefused).
 */
export const INSTAGRAM_IMAGE_TYPES = ['image/jpeg'] as const;
export const INSTAGRAM_MAX_IMAGES = 10;
export const INSTAGRAM_MAX_HASHTAGS = 30;
const LABEL = 'Instagram';

function checkLimits(input: ProviderPublishInput) {
  const invalid = (m: string) => new ProviderError('instagram', 'invalid', m);
  if (input.parts.length !== 1)
    throw invalid(`An Instagram post is one caption; this one has ${input.parts.length} parts.`);
  const caption = input.parts[0] as string;
  const length = characters(caption);
  if (length > PLATFORM_LIMITS.instagram) {
    throw invalid(`The caption has ${length} characters; Instagram takes ${PLATFORM_LIMITS.instagram}.`);
  }
  const hashtags = caption.match(/(^|\s)#[\p{L}\p{N}_]+/gu)?.length ?? 0;
  if (hashtags > INSTAGRAM_MAX_HASHTAGS) {
    throw invalid(`The caption has ${hashtags} hashtags; Instagram takes ${INSTAGRAM_MAX_HASHTAGS}.`);
  }
  const media = input.media ?? [];
  if (media.length === 0)
    throw invalid('An Instagram post needs an image; Instagram has no text-only posts.');
  if (media.length > INSTAGRAM_MAX_IMAGES)
    throw invalid(`An Instagram carousel takes at most ${INSTAGRAM_MAX_IMAGES} images.`);
  for (const m of media) {
    if (m.mimeType === 'image/gif') throw invalid(gifRefused(LABEL, 'JPEG images only'));
    if (!(INSTAGRAM_IMAGE_TYPES as readonly string[]).includes(m.mimeType)) {
      throw invalid(`Instagram publishes JPEG images only, not ${m.mimeType}.`);
    }
  }
}

const GRAPH = 'https://graph.instagram.com';

/**
 * Instagram exchanges the code on another host (api.instagram.com) than its API. Pointed at
 * anything else (a fake, a proxy), the exchange goes to `<apiUrl>/oauth/access_token`. The
 * registry always passes an apiUrl (the real one by default), so the real host is recognised by name.
 */
const codeUrlFor = (apiUrl: string) =>
  new URL(apiUrl).origin === GRAPH
    ? 'https://api.instagram.com/oauth/access_token'
    : `${apiUrl}/oauth/access_token`;

export function createInstagramProvider(opts: InstagramClientOptions): PlatformProvider {
  const apiUrl = trimTrailingSlashes(opts.apiUrl ?? GRAPH);
  const { call, oauth, media, prepare, account } = metaClient(
    {
      platform: 'instagram',
      label: LABEL,
      apiUrl,
      version: opts.graphVersion ?? 'v23.0',
      oauth: {
        authUrl: opts.authUrl ?? 'https://www.instagram.com/oauth/authorize',
        codeUrl: opts.tokenUrl ?? codeUrlFor(apiUrl),
        scopes: INSTAGRAM_SCOPES,
        exchange: { path: '/access_token', grantType: 'ig_exchange_token' },
        renew: { path: '/refresh_access_token', grantType: 'ig_refresh_token' },
      },
      statusField: 'status_code',
      limitEdge: 'content_publishing_limit',
    },
    opts,
  );

  return {
    platform: 'instagram',
    defaultScopes: INSTAGRAM_SCOPES,
    ...oauth,
    account,

    async publish(input) {
      checkLimits(input);
      const token = input.accessToken;
      const { urls, user, username, wait: w } = await prepare(token, input.media);

      const create = async (body: Record<string, unknown>) => {
        const res = await call<{ id?: string }>({ method: 'POST', path: `${user}/media`, token, json: body });
        if (!res.body?.id)
          throw new ProviderError('instagram', 'rejected', 'Instagram created no media container.');
        return res.body.id;
      };
      const caption = input.parts[0] as string;
      let container: string;
      if (urls.length === 1) container = await create({ image_url: urls[0], caption });
      else {
        const children: string[] = [];
        for (const url of urls) children.push(await create({ image_url: url, is_carousel_item: true }));
        container = await create({ media_type: 'CAROUSEL', children: children.join(','), caption });
      }
      await waitForContainer(w, container);

      const published = await call<{ id?: string }>({
        method: 'POST',
        path: `${user}/media_publish`,
        token,
        json: { creation_id: container },
        publishes: true,
      });
      const id = published.body?.id;
      if (!id)
        throw new ProviderError(
          'instagram',
          'outcome_unknown',
          'Instagram accepted the post but returned no media id.',
        );
      // The post is live: a failed permalink read must not turn it into a failure.
      const fallback = `https://www.instagram.com/${encodeURIComponent(username || (input.username ?? ''))}`;
      const permalink = await permalinkOr(call, token, media(id), fallback);
      return { externalId: id, externalIds: [id], permalink };
    },

    status: async ({ accessToken, externalId }) =>
      mediaStatus(call, accessToken, media(externalId), 'caption', externalId),

    async metrics({ accessToken, externalId }): Promise<Counts> {
      const m = await insights(call, accessToken, `${media(externalId)}/insights`, [
        'views',
        'likes',
        'comments',
        'shares',
      ]);
      return {
        impressions: m.views ?? 0,
        likes: m.likes ?? 0,
        comments: m.comments ?? 0,
        shares: m.shares ?? 0,
        clicks: 0,
      };
    },

    replies: async ({ accessToken, externalId }) =>
      readReplies(call, accessToken, `${media(externalId)}/comments`, 'text'),
  };
}
