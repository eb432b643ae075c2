import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/brands', 'get'>;
export type BrandListParams = QueryOf<'/v1/brands', 'get'>;
export type BrandCreateParams = JsonBody<'/v1/brands', 'post'>;
export type BrandUpdateParams = JsonBody<'/v1/brands/{id}', 'patch'>;
export type BestTimesParams = QueryOf<'/v1/brands/{id}/best-times', 'get'>;
export type KnowledgeAddParams = JsonBody<'/v1/brands/{id}/memory/knowledge', 'post'>;
export type MemorySaveParams = JsonBody<'/v1/brands/{id}/memory/save', 'post'>;
export type MemoryPreviewParams = JsonBody<'/v1/brands/{id}/memory/preview', 'post'>;

/** Brand Memory: voice, audiences, products, knowledge, style rules and example posts. */
export class BrandMemoryResource extends APIResource {
  /** The brand's whole Brand Memory. */
  retrieve(
    brandId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/memory', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/brands/${brandId}/memory`, ...options });
  }

  /** Adds a knowledge note (`title`, `body`); returns the note and the updated memory. */
  addKnowledge(
    brandId: string,
    body: KnowledgeAddParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/memory/knowledge', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/brands/${brandId}/memory/knowledge`,
      body,
      ...options,
    });
  }

  /** Removes one entry (note, rule, example, ...) by its `mem_` id; returns the updated memory. */
  deleteItem(
    brandId: string,
    itemId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/memory/items/{itemId}', 'delete'>> {
    return this._core.request({
      method: 'DELETE',
      path: encodePath`/brands/${brandId}/memory/items/${itemId}`,
      ...options,
    });
  }

  /**
   * Saves a post, reply, reply theme, signal or draft to Brand Memory as a knowledge note,
   * an excerpt, an example post, or a do / avoid rule (rules keep the source as evidence).
   */
  save(
    brandId: string,
    body: MemorySaveParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/memory/save', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/brands/${brandId}/memory/save`,
      body,
      ...options,
    });
  }

  /** What `save` would change, without saving. */
  preview(
    brandId: string,
    body: MemoryPreviewParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/memory/preview', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/brands/${brandId}/memory/preview`,
      body,
      ...options,
    });
  }
}

export class Brands extends APIResource {
  readonly memory = new BrandMemoryResource(this._core);

  /** Every brand, with its connected channels. */
  list(
    params: BrandListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'brands'>, PageOf<ListBody, 'brands'>> {
    return pagedList<ListBody, 'brands'>(this._core, '/brands', 'brands', params, options);
  }

  /** Creates a brand; `memory` may seed its Brand Memory. */
  create(body: BrandCreateParams, options?: RequestOptions): APIPromise<JsonResponse<'/v1/brands', 'post'>> {
    return this._core.request({ method: 'POST', path: '/brands', body, ...options });
  }

  retrieve(brandId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/brands/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/brands/${brandId}`, ...options });
  }

  update(
    brandId: string,
    body: BrandUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}', 'patch'>> {
    return this._core.request({ method: 'PATCH', path: encodePath`/brands/${brandId}`, body, ...options });
  }

  delete(brandId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/brands/{id}', 'delete'>> {
    return this._core.request({ method: 'DELETE', path: encodePath`/brands/${brandId}`, ...options });
  }

  /**
   * Best slots per platform (weekday 0 = Sunday, hour 0-23 in the server's time zone, score
   * 0..1), from the brand's own history, with platform defaults when history is thin.
   */
  bestTimes(
    brandId: string,
    params: BestTimesParams = {},
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/best-times', 'get'>> {
    return this._core.request({
      method: 'GET',
      path: encodePath`/brands/${brandId}/best-times`,
      query: params,
      ...options,
    });
  }
}
