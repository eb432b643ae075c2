import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/drafts', 'get'>;
export type DraftListParams = QueryOf<'/v1/drafts', 'get'>;
export type DraftCreateParams = JsonBody<'/v1/drafts', 'post'>;
export type DraftUpdateParams = JsonBody<'/v1/drafts/{id}', 'patch'>;
export type DraftGenerateParams = JsonBody<'/v1/drafts/generate', 'post'>;
export type DraftRewriteParams = JsonBody<'/v1/drafts/{id}/rewrite', 'post'>;
export type DraftAttachMediaParams = JsonBody<'/v1/drafts/{id}/media', 'post'>;

/**
 * One draft per platform. Every change (generate, rewrite, edit, attach media) saves a new
 * version; earlier versions stay readable with `retrieveVersion`.
 */
export class Drafts extends APIResource {
  list(
    params: DraftListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'drafts'>, PageOf<ListBody, 'drafts'>> {
    return pagedList<ListBody, 'drafts'>(this._core, '/drafts', 'drafts', params, options);
  }

  /** A hand-written draft for one platform (`text`, or `parts` for a thread). */
  create(body: DraftCreateParams, options?: RequestOptions): APIPromise<JsonResponse<'/v1/drafts', 'post'>> {
    return this._core.request({ method: 'POST', path: '/drafts', body, ...options });
  }

  /** Writes drafts of an idea for one or more platforms, in the brand's voice and within limits. */
  generate(
    body: DraftGenerateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/drafts/generate', 'post'>> {
    return this._core.request({ method: 'POST', path: '/drafts/generate', body, ...options });
  }

  /** The draft with its version history. */
  retrieve(draftId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/drafts/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/drafts/${draftId}`, ...options });
  }

  /** Edits the text; saves a new version. */
  update(
    draftId: string,
    body: DraftUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/drafts/{id}', 'patch'>> {
    return this._core.request({ method: 'PATCH', path: encodePath`/drafts/${draftId}`, body, ...options });
  }

  /** Rewrites the draft following `instruction`; saves a new version. */
  rewrite(
    draftId: string,
    body: DraftRewriteParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/drafts/{id}/rewrite', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/drafts/${draftId}/rewrite`,
      body,
      ...options,
    });
  }

  /** Attaches a media asset to the first part (the platform's preferred crop by default); new version. */
  attachMedia(
    draftId: string,
    body: DraftAttachMediaParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/drafts/{id}/media', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/drafts/${draftId}/media`,
      body,
      ...options,
    });
  }

  /** One earlier (or the current) version, by number. */
  retrieveVersion(
    draftId: string,
    version: number,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/drafts/{id}/versions/{version}', 'get'>> {
    return this._core.request({
      method: 'GET',
      path: encodePath`/drafts/${draftId}/versions/${version}`,
      ...options,
    });
  }
}
