import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import {
  Deleted,
  Id,
  IdParams,
  Platform,
  PostStatus,
  pageOf,
  pageQuery,
  ReplyTheme,
} from '../schemas/common.js';
import {
  ConfirmPostBody,
  CreatePostBody,
  Outcome,
  PatchPostBody,
  Post,
  PostDetail,
  Reply,
} from '../schemas/posts.js';
import {
  confirmPost,
  createPost,
  deletePost,
  getPost,
  listPosts,
  listReplies,
  publishNow,
  resolveOutcomes,
  resolvePost,
  updatePost,
} from '../services/posts.js';
import { callerOf, listBody, NOT_FOUND } from './helpers.js';

const tags = ['Posts'];

const POSTS = '/v1/posts';
const POST = '/v1/posts/:id';

export function postRoutes(ctx: ContentContext) {
  // Listing and reading posts never read the time: these routes are declared `readsTime: false`,
  // so the per-request sandbox clock read (a round trip on PostgreSQL, on the hottest reads) is
  // skipped, and their handlers get a clock that throws if read, so this cannot go stale unnoticed.
  const withoutClock: ContentContext = {
    ...ctx,
    clock: ctx.clock.unsynced('Listing and reading posts skip the sandbox clock read.'),
  };
  return [
    defineRoute({
      method: 'get',
      path: POSTS,
      auth: 'person',
      operationId: 'listPosts',
      description:
        "Posts newest first with their latest metrics and their verdict against the brand's median, filterable by brand, status, channel and platform.",
      summary: 'Posts, newest first, with latest metrics and the verdict against the brand median.',
      tags,
      query: z.strictObject({
        brand_id: Id.optional(),
        status: PostStatus.optional(),
        channel_id: Id.optional(),
        platform: Platform.optional(),
        ...pageQuery,
      }),
      response: pageOf('posts', Post),
      readsTime: false,
      handler: async ({ query }) => listBody('posts', await listPosts(withoutClock, query, query)),
    }),
    defineRoute({
      method: 'post',
      path: POSTS,
      auth: 'person',
      operationId: 'createPost',
      description:
        'Publishes a post now or schedules it (`scheduled_for`), from a draft or from text on a channel. This is a person-only action: API keys and agents can only propose. In sandbox mode publishing is simulated and the post gets a sandbox permalink.',
      summary:
        'Publish now, or schedule with scheduled_for. From a draft, or with text on a channel. Sandbox publishing is simulated and gets a sandbox permalink; live mode without a publisher fails with 501.',
      tags,
      status: 201,
      body: CreatePostBody,
      response: Post,
      errors: {
        ...NOT_FOUND,
        409: 'NO_CHANNEL, CHANNEL_DISCONNECTED, SLOT_TAKEN, DRAFT_LOCKED, ALREADY_PROPOSED',
        422: 'SLOT_IN_PAST, TOO_LONG, TOO_MANY_PARTS',
        501: "OAUTH_NOT_CONFIGURED (live mode: the platform's app is not configured)",
      },
      handler: ({ body, auth }) => createPost(ctx, body, callerOf(auth)),
    }),
    defineRoute({
      method: 'get',
      path: POST,
      auth: 'person',
      operationId: 'getPost',
      description:
        "One post with its latest metrics, its outcome (verdict against the brand's median), its growth curve (metrics snapshots) and the brand's baseline curve to compare with.",
      summary: 'One post with its outcome (verdict), growth curve (snapshots) and the brand baseline curve.',
      tags,
      params: IdParams,
      response: PostDetail,
      errors: NOT_FOUND,
      readsTime: false,
      handler: ({ params }) => getPost(withoutClock, params.id),
    }),
    defineRoute({
      method: 'patch',
      path: POST,
      auth: 'person',
      operationId: 'updatePost',
      description:
        'Changes the text or the time of a post that is still scheduled. Published posts cannot be changed here.',
      summary: 'Change the text or the time of a scheduled post.',
      tags,
      params: IdParams,
      body: PatchPostBody,
      response: Post,
      errors: {
        ...NOT_FOUND,
        409: 'POST_NOT_EDITABLE, POST_PARTLY_PUBLISHED, SLOT_TAKEN',
        422: 'SLOT_IN_PAST, TOO_LONG',
      },
      handler: ({ params, body }) => updatePost(ctx, params.id, body),
    }),
    defineRoute({
      method: 'delete',
      path: POST,
      auth: 'person',
      operationId: 'deletePost',
      description: 'Deletes a scheduled or failed post. A published post cannot be deleted here (409).',
      summary: 'Delete a scheduled or failed post (published posts cannot be deleted here).',
      tags,
      params: IdParams,
      response: Deleted,
      errors: { ...NOT_FOUND, 409: 'POST_ALREADY_PUBLISHED, POST_PUBLISHING' },
      handler: async ({ params }) => {
        await deletePost(ctx, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/posts/:id/confirm',
      auth: 'person',
      operationId: 'confirmPost',
      summary: 'Say whether an unconfirmed post is on the platform: published, or back in the schedule.',
      description:
        'An `unconfirmed` post was sent but the platform gave no answer (a timeout, or the server stopped mid-call), so it may be live; the service never sends it again on its own. Look at the account, then confirm: `published: true` makes it published (give `external_id` so its metrics are read; the platform is asked whether it has that post), `published: false` puts it back in the schedule and it goes out at once.',
      tags,
      params: IdParams,
      body: ConfirmPostBody,
      response: Post,
      errors: {
        ...NOT_FOUND,
        409: 'POST_NOT_UNCONFIRMED, PLATFORM_POST_NOT_FOUND',
        422: 'INVALID_CONFIRMATION',
        503: 'PLATFORM_UNAVAILABLE (the platform could not be asked about external_id; nothing changed)',
      },
      handler: ({ params, body }) => confirmPost(ctx, params.id, body),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/posts/:id/publish',
      auth: 'person',
      operationId: 'publishPostNow',
      summary: 'Publish a scheduled post now instead of at its time.',
      description:
        'A scheduled post goes out now: its time becomes now and it is published at once, claimed as every publishing pass claims it, so it never goes out twice. The answer is the post as it is afterwards: `published`, or `scheduled` with a `notice` when the platform asked to try again later, or `failed` with its `failure`. Any other status answers 409 POST_NOT_SCHEDULED.',
      tags,
      params: IdParams,
      response: Post,
      errors: { ...NOT_FOUND, 409: 'POST_NOT_SCHEDULED' },
      handler: ({ params }) => publishNow(ctx, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/posts/:id/resolve',
      auth: 'person',
      operationId: 'resolvePost',
      summary: 'Settle the post’s outcome now: its verdict becomes final and post.metrics_settled fires.',
      description:
        'Settles the outcome now instead of waiting for the metrics to settle: a sandbox post first gets a final snapshot at the whole hour it has reached, then takes no more; its verdict becomes final and `post.metrics_settled` fires (automations may run). Before the first snapshot there is nothing to settle (409 NOTHING_TO_SETTLE). Resolving a settled post returns its outcome unchanged.',
      tags,
      params: IdParams,
      response: Outcome,
      errors: {
        ...NOT_FOUND,
        409: 'The post is not published (POST_NOT_PUBLISHED), or has no metrics yet (NOTHING_TO_SETTLE).',
      },
      handler: ({ params }) => resolvePost(ctx, params.id),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/posts/:id/replies',
      auth: 'person',
      operationId: 'listReplies',
      description:
        'Replies to the post, newest first, each with the theme it belongs to (question, objection, praise or request).',
      summary: 'Replies to a post, newest first, each with its theme.',
      tags,
      params: IdParams,
      query: z.strictObject({ theme: ReplyTheme.optional(), ...pageQuery }),
      response: pageOf('replies', Reply),
      errors: NOT_FOUND,
      handler: async ({ params, query }) =>
        listBody('replies', await listReplies(ctx, params.id, query, query)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/brands/:id/outcomes',
      auth: 'person',
      operationId: 'resolveOutcomes',
      description:
        "One page of the brand's published posts, newest first (the order of GET /v1/posts): settles each post on the page that is older than 72 hours, then returns the outcome (verdict, metrics) of each. Paged with `limit` and `after` like the other lists; follow `next_after` to settle and read them all.",
      summary: "Settle the page's published posts past 72 h and return their outcomes, newest first (paged).",
      tags: ['Insights'],
      params: IdParams,
      query: z.strictObject(pageQuery),
      response: pageOf('outcomes', Outcome),
      errors: NOT_FOUND,
      handler: async ({ params, query }) =>
        listBody('outcomes', await resolveOutcomes(ctx, params.id, query)),
    }),
  ];
}
