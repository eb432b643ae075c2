import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/posts', 'get'>;
type RepliesBody = JsonResponse<'/v1/posts/{id}/replies', 'get'>;
type CreateResponse = JsonResponse<'/v1/posts', 'post'>;
export type PostListParams = QueryOf<'/v1/posts', 'get'>;
export type PostCreateParams = JsonBody<'/v1/posts', 'post'>;
export type PostUpdateParams = JsonBody<'/v1/posts/{id}', 'patch'>;
export type ReplyListParams = QueryOf<'/v1/posts/{id}/replies', 'get'>;
export type PostConfirmParams = JsonBody<'/v1/posts/{id}/confirm', 'post'>;
/** `posts.schedule` is `posts.create` with `scheduled_for` required. */
export type PostScheduleParams = PostCreateParams & { scheduled_for: string };

/**
 * Posts on a connected channel. `create` publishes now, or schedules when `scheduled_for` is
 * given. In sandbox mode publishing is simulated: nothing leaves the machine.
 */
export class Posts extends APIResource {
  /** Newest first, each with its latest metrics and verdict against the brand's median. */
  list(
    params: PostListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'posts'>, PageOf<ListBody, 'posts'>> {
    return pagedList<ListBody, 'posts'>(this._core, '/posts', 'posts', params, options);
  }

  /** Publishes now, or schedules when `scheduled_for` is set. From a `draft_id`, or `channel_id` + text. */
  create(body: PostCreateParams, options?: RequestOptions): APIPromise<CreateResponse> {
    return this._core.request({ method: 'POST', path: '/posts', body, ...options });
  }

  /** Publishes now (`create` without `scheduled_for`). */
  publish(
    body: Omit<PostCreateParams, 'scheduled_for'>,
    options?: RequestOptions,
  ): APIPromise<CreateResponse> {
    return this.create(body, options);
  }

  /** Schedules for `scheduled_for` (`create` with it required). */
  schedule(body: PostScheduleParams, options?: RequestOptions): APIPromise<CreateResponse> {
    return this.create(body, options);
  }

  /** One post with its outcome (verdict), growth curve (snapshots) and baseline curve. */
  retrieve(postId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/posts/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/posts/${postId}`, ...options });
  }

  /** Edits a scheduled post's text or slot. */
  update(
    postId: string,
    body: PostUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/posts/{id}', 'patch'>> {
    return this._core.request({ method: 'PATCH', path: encodePath`/posts/${postId}`, body, ...options });
  }

  delete(postId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/posts/{id}', 'delete'>> {
    return this._core.request({ method: 'DELETE', path: encodePath`/posts/${postId}`, ...options });
  }

  /**
   * Settles an `unconfirmed` post (live: the platform never answered, so it may be live):
   * `published: true` (with its `external_id`) after finding it on the account, or
   * `published: false` to put it back in the schedule.
   */
  confirm(
    postId: string,
    body: PostConfirmParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/posts/{id}/confirm', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/posts/${postId}/confirm`,
      body,
      ...options,
    });
  }

  /**
   * Publishes a scheduled post now instead of at its time; returns the post afterwards
   * (`published`, or still `scheduled` with a notice, or `failed`).
   */
  publishNow(
    postId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/posts/{id}/publish', 'post'>> {
    return this._core.request({ method: 'POST', path: encodePath`/posts/${postId}/publish`, ...options });
  }

  /** Computes the post's verdict against the brand's median now. */
  resolve(
    postId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/posts/{id}/resolve', 'post'>> {
    return this._core.request({ method: 'POST', path: encodePath`/posts/${postId}/resolve`, ...options });
  }

  /** Replies to the post, filterable by `theme`. */
  replies(
    postId: string,
    params: ReplyListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<RepliesBody, 'replies'>, PageOf<RepliesBody, 'replies'>> {
    return pagedList<RepliesBody, 'replies'>(
      this._core,
      encodePath`/posts/${postId}/replies`,
      'replies',
      params,
      options,
    );
  }
}
