import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_PARTS, PLATFORM_LIMITS } from '../../domain.js';
import type { Counts } from '../../services/metrics.js';
import { type PlatformProvider, ProviderError, type ProviderPublishInput } from '../provider.js';
import { type XClientOptions, xHttp } from './http.js';
import { type ProcessingWait, uploadImage, X_GIF_MAX_BYTES, X_IMAGE_TYPES, X_MAX_IMAGES } from './media.js';
import { X_SCOPES, xOAuth } from './oauth.js';

export type { XClientOptions } from './http.js';
export { X_SCOPES } from './oauth.js';

/**
 * The X API v2 document (../shared/platform-specs/x-api-v2, version 2.167) names the fields
 * parameter of GET /2/tweets/{id} `post.fields`; it is the contract this provider follows.
 */
const FIELDS_PARAM = 'post.fields';

interface Post {
  id?: string;
  text?: string;
  public_metrics?: {
    impression_count?: number;
    like_count?: number;
    reply_count?: number;
    repost_count?: number;
    quote_count?: number;
  };
  non_public_metrics?: { url_link_clicks?: number; user_profile_clicks?: number };
}

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0);

/** Refused before any call, so nothing half-published: X counts 280 characters per post, 4 images. */
function checkLimits(input: ProviderPublishInput) {
  const invalid = (m: string) => new ProviderError('x', 'invalid', m);
  if (input.parts.length === 0) throw invalid('Nothing to publish: the post has no text.');
  if (input.parts.length > MAX_PARTS.x) throw invalid(`A thread on X has at most ${MAX_PARTS.x} posts.`);
  input.parts.forEach((p, i) => {
    const length = [...p].length;
    if (length > PLATFORM_LIMITS.x) {
      throw invalid(`Part ${i + 1} has ${length} characters; X takes ${PLATFORM_LIMITS.x}.`);
    }
    if (!p.trim() && !(i === 0 && input.media?.length)) throw invalid(`Part ${i + 1} is empty.`);
  });
  const media = input.media ?? [];
  if (media.length > X_MAX_IMAGES) throw invalid(`A post on X takes at most ${X_MAX_IMAGES} images.`);
  for (const m of media) {
    if (!(X_IMAGE_TYPES as readonly string[]).includes(m.mimeType)) {
      throw invalid(`X does not take ${m.mimeType} images (only ${X_IMAGE_TYPES.join(', ')}).`);
    }
    if (m.mimeType === 'image/gif' && m.data.byteLength > X_GIF_MAX_BYTES) {
      throw invalid(`The GIF has ${m.data.byteLength} bytes; X takes GIFs up to 15 MB.`);
    }
  }
}

export function createXProvider(opts: XClientOptions): PlatformProvider {
  const call = xHttp(opts);
  const oauth = xOAuth(opts, call);
  // Without the service clock's wait (a provider built alone), a real timer.
  const processing: ProcessingWait = {
    wait: opts.wait ?? ((ms) => sleep(ms)),
    ...(opts.processingWaitMs !== undefined ? { maxMs: opts.processingWaitMs } : {}),
    signal: opts.stopSignal,
  };

  const getPost = async (token: string, id: string, fields?: string) => {
    if (!/^[0-9]{1,19}$/.test(id)) throw new ProviderError('x', 'invalid', `${id} is no X post id.`);
    const query = fields ? `?${FIELDS_PARAM}=${encodeURIComponent(fields)}` : '';
    return call<{ data?: Post }>({ method: 'GET', path: `/2/tweets/${id}${query}`, token });
  };

  return {
    platform: 'x',
    defaultScopes: X_SCOPES,
    ...oauth,

    async account(accessToken) {
      const me = await call<{ data?: { id?: string; name?: string; username?: string } }>({
        method: 'GET',
        path: '/2/users/me',
        token: accessToken,
      });
      const { id, name, username } = me?.data ?? {};
      if (!id || !username)
        throw new ProviderError('x', 'rejected', 'X did not say which account the token is for.');
      return { id, handle: username, displayName: name || username };
    },

    async publish(input) {
      checkLimits(input);
      const token = input.accessToken;
      const ids: string[] = [...(input.alreadyPublished ?? [])];
      // Everything that can fail safely (media, the handle) happens before the first post goes out.
      const mediaIds: string[] = [];
      // One bound on X's processing for the whole post, however many GIFs it has.
      const thisPost: ProcessingWait = { ...processing, waited: { ms: 0 } };
      if (ids.length === 0)
        for (const m of input.media ?? []) mediaIds.push(await uploadImage(call, token, m, thisPost));
      let username = input.username;
      if (!username) {
        const me = await call<{ data?: { username?: string } }>({
          method: 'GET',
          path: '/2/users/me',
          token,
        });
        username = me?.data?.username;
        if (!username)
          throw new ProviderError('x', 'rejected', 'X did not say which account the token is for.');
      }

      for (const [i, text] of input.parts.entries()) {
        if (i < (input.alreadyPublished?.length ?? 0)) continue;
        const body: Record<string, unknown> = { text };
        if (i === 0 && mediaIds.length) body.media = { media_ids: mediaIds };
        const previous = ids.at(-1);
        if (previous) body.reply = { in_reply_to_tweet_id: previous };
        let created: { data?: { id?: string } };
        try {
          created = await call({ method: 'POST', path: '/2/tweets', token, json: body, publishes: true });
        } catch (err) {
          throw err instanceof ProviderError ? err.withPublished(ids) : err;
        }
        const id = created?.data?.id;
        if (!id) {
          // Accepted, but without an id we cannot know which post is ours.
          throw new ProviderError('x', 'outcome_unknown', 'X accepted the post but returned no id.', {
            publishedIds: ids,
          });
        }
        ids.push(id);
      }
      const first = ids[0] as string;
      return {
        externalId: first,
        externalIds: ids,
        permalink: `https://x.com/${encodeURIComponent(username)}/status/${first}`,
      };
    },

    async status({ accessToken, externalId }) {
      const res = await getPost(accessToken, externalId);
      // A missing post is a 200 with `errors` (resource-not-found) and no `data`.
      return { externalId, exists: Boolean(res?.data?.id), text: res?.data?.text ?? null };
    },

    /**
     * Replies by other accounts in the post's conversation, from recent search (X keeps the last
     * 7 days there): `conversation_id:<id>`, with the author expanded for the handle.
     */
    async replies({ accessToken, externalId, accountId }) {
      if (!/^[0-9]{1,19}$/.test(externalId))
        throw new ProviderError('x', 'invalid', `${externalId} is no X post id.`);
      // The channel knows its own account id; asking X costs a call per post per snapshot.
      const ownId =
        accountId ??
        (await call<{ data?: { id?: string } }>({ method: 'GET', path: '/2/users/me', token: accessToken }))
          ?.data?.id;
      const q = new URLSearchParams({
        query: `conversation_id:${externalId}`,
        max_results: '100',
        [FIELDS_PARAM]: 'created_at,conversation_id',
        expansions: 'author_id',
      });
      const res = await call<{
        data?: { id?: string; text?: string; author_id?: string; created_at?: string }[];
        includes?: { users?: { id?: string; username?: string }[] };
      }>({ method: 'GET', path: `/2/tweets/search/recent?${q}`, token: accessToken });
      const users = new Map((res?.includes?.users ?? []).map((u) => [u.id, u.username]));
      return (res?.data ?? [])
        .filter((t) => t.id && t.author_id !== ownId)
        .map((t) => ({
          externalId: t.id as string,
          author: users.get(t.author_id) ? `@${users.get(t.author_id)}` : '',
          text: t.text ?? '',
          createdAt: t.created_at ? new Date(t.created_at) : null,
        }));
    },

    async metrics({ accessToken, externalId }): Promise<Counts> {
      const res = await getPost(accessToken, externalId, 'public_metrics,non_public_metrics');
      if (!res?.data?.id) {
        throw new ProviderError('x', 'rejected', `X has no post ${externalId} (deleted?).`, { status: 404 });
      }
      const pub = res.data.public_metrics ?? {};
      const priv = res.data.non_public_metrics ?? {};
      return {
        impressions: count(pub.impression_count),
        likes: count(pub.like_count),
        comments: count(pub.reply_count),
        shares: count(pub.repost_count) + count(pub.quote_count),
        clicks: count(priv.url_link_clicks) + count(priv.user_profile_clicks),
      };
    },
  };
}
