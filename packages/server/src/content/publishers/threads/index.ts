import { trimTrailingSlashes } from '../../../platform/trim-end.js';
import { MAX_PARTS, PLATFORM_LIMITS } from '../../domain.js';
import type { Counts } from '../../services/metrics.js';
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
 * Threads API.
 * - Login: https://threads.net/oauth/authorize, the code exchanged at POST graph.threads.net/oauth/access_token,
 *   then GET /access_token (`th_exchange_token`) for a 60-day token, renewed with GET /refresh_access_token
 *   (`th_refresh_token`): https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
 *   and https://developers.facebook.com/docs/threads/get-started/long-lived-tokens
 * - Publishing: POST /<user>/threads (media_type TEXT, IMAGE or CAROUSEL, text, image_url, reply_to_id),
 *   GET /<container>?fields=status until FINISHED, then POST /<user>/threads_publish (creation_id);
 *   500 characters, emojis counted as their UTF-8 bytes; carousels of 2 to 20 items:
 *   https://developers.facebook.com/docs/threads/reference/publishing
 * - 250 published posts per moving 24 hours, read at GET /<user>/threads_publishing_limit:
 *   https://developers.facebook.com/docs/threads/troubleshooting#rate-limiting
 * - Insights and replies: https://developers.facebook.com/docs/threads/insights ,
 *   https://developers.facebook.com/docs/threads/retrieve-and-manage-replies
 */

export interface ThreadsClientOptions extends MetaClientOptions {
  /** The API version in every path; v1.0 by default. */
  graphVersion?: string;
}

export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_insights',
  'threads_read_replies',
] as const;
/**
 * Image specifications: "Format: JPEG and PNG" (https://developers.facebook.com/docs/threads/overview#image-specifications);
 * no GIF, so an animated one is refused before any call (gifRefused).
 */
export const THREADS_IMAGE_TYPES = ['image/jpeg', 'image/png'] as const;
export const THREADS_MAX_IMAGES = 20;
const LABEL = 'Threads';

/** Threads counts characters, except that an emoji counts as its UTF-8 bytes (publishing reference). */
export function threadsLength(text: string): number {
  let n = 0;
  for (const c of text) n += /\p{Extended_Pictographic}/u.test(c) ? Buffer.byteLength(c, 'utf8') : 1;
  return n;
}

function checkLimits(input: ProviderPublishInput) {
  const invalid = (m: string) => new ProviderError('threads', 'invalid', m);
  const media = input.media ?? [];
  if (input.parts.length === 0) throw invalid('Nothing to publish: the post has no text.');
  if (input.parts.length > MAX_PARTS.threads)
    throw invalid(`A thread on Threads has at most ${MAX_PARTS.threads} posts.`);
  input.parts.forEach((p, i) => {
    const length = threadsLength(p);
    if (length > PLATFORM_LIMITS.threads) {
      throw invalid(
        `Part ${i + 1} counts ${length} characters (emojis count as their bytes); Threads takes ${PLATFORM_LIMITS.threads}.`,
      );
    }
    if (!p.trim() && !(i === 0 && media.length)) throw invalid(`Part ${i + 1} is empty.`);
  });
  if (media.length > THREADS_MAX_IMAGES)
    throw invalid(`A Threads post takes at most ${THREADS_MAX_IMAGES} images.`);
  for (const m of media) {
    if (m.mimeType === 'image/gif') throw invalid(gifRefused(LABEL, 'JPEG and PNG images'));
    if (!(THREADS_IMAGE_TYPES as readonly string[]).includes(m.mimeType)) {
      throw invalid(`Threads does not take ${m.mimeType} images (only ${THREADS_IMAGE_TYPES.join(', ')}).`);
    }
  }
}

export function createThreadsProvider(opts: ThreadsClientOptions): PlatformProvider {
  const apiUrl = trimTrailingSlashes(opts.apiUrl ?? 'https://graph.threads.net');
  const { call, oauth, media, prepare, account } = metaClient(
    {
      platform: 'threads',
      label: LABEL,
      apiUrl,
      version: opts.graphVersion ?? 'v1.0',
      oauth: {
        authUrl: opts.authUrl ?? 'https://threads.net/oauth/authorize',
        codeUrl: `${apiUrl}/oauth/access_token`,
        scopes: THREADS_SCOPES,
        exchange: { path: '/access_token', grantType: 'th_exchange_token' },
        renew: { path: '/refresh_access_token', grantType: 'th_refresh_token' },
      },
      statusField: 'status',
      limitEdge: 'threads_publishing_limit',
    },
    opts,
  );

  return {
    platform: 'threads',
    defaultScopes: THREADS_SCOPES,
    ...oauth,
    account,

    async publish(input) {
      checkLimits(input);
      const token = input.accessToken;
      // A thread cut short earlier continues after the parts already out, without its images.
      const earlier = input.alreadyPublished ?? [];
      const { urls, user, username, wait: w } = await prepare(token, earlier.length ? [] : input.media);

      const create = async (form: Record<string, string>) => {
        const res = await call<{ id?: string }>({ method: 'POST', path: `${user}/threads`, token, form });
        if (!res.body?.id)
          throw new ProviderError('threads', 'rejected', 'Threads created no media container.');
        return res.body.id;
      };
      /** The first part carries the images; each later part replies to the part before. */
      const container = async (text: string, i: number, replyTo: string | undefined) => {
        const reply: Record<string, string> = replyTo ? { reply_to_id: replyTo } : {};
        if (i > 0 || urls.length === 0) return create({ media_type: 'TEXT', text, ...reply });
        if (urls.length === 1) return create({ media_type: 'IMAGE', image_url: urls[0] as string, text });
        const children: string[] = [];
        for (const url of urls)
          children.push(await create({ media_type: 'IMAGE', image_url: url, is_carousel_item: 'true' }));
        return create({ media_type: 'CAROUSEL', children: children.join(','), text });
      };

      const ids: string[] = [...earlier];
      for (const [i, text] of input.parts.entries()) {
        if (i < earlier.length) continue;
        try {
          const c = await container(text, i, ids.at(-1));
          await waitForContainer(w, c);
          const published = await call<{ id?: string }>({
            method: 'POST',
            path: `${user}/threads_publish`,
            token,
            form: { creation_id: c },
            publishes: true,
          });
          const id = published.body?.id;
          if (!id)
            throw new ProviderError(
              'threads',
              'outcome_unknown',
              'Threads accepted the post but returned no id.',
            );
          ids.push(id);
        } catch (err) {
          throw err instanceof ProviderError ? err.withPublished(ids) : err;
        }
      }
      const first = ids[0] as string;
      const fallback = `https://www.threads.net/@${encodeURIComponent(username || (input.username ?? ''))}`;
      const permalink = await permalinkOr(call, token, media(first), fallback);
      return { externalId: first, externalIds: ids, permalink };
    },

    status: async ({ accessToken, externalId }) =>
      mediaStatus(call, accessToken, media(externalId), 'text', externalId),

    async metrics({ accessToken, externalId }): Promise<Counts> {
      const m = await insights(call, accessToken, `${media(externalId)}/insights`, [
        'views',
        'likes',
        'replies',
        'reposts',
        'quotes',
        'shares',
      ]);
      return {
        impressions: m.views ?? 0,
        likes: m.likes ?? 0,
        comments: m.replies ?? 0,
        shares: (m.reposts ?? 0) + (m.quotes ?? 0) + (m.shares ?? 0),
        clicks: 0,
      };
    },

    replies: async ({ accessToken, externalId }) =>
      readReplies(call, accessToken, `${media(externalId)}/replies`, 'text'),
  };
}
