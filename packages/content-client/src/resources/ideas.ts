import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/ideas', 'get'>;
export type IdeaListParams = QueryOf<'/v1/ideas', 'get'>;
export type IdeaCreateParams = JsonBody<'/v1/ideas', 'post'>;
export type IdeaUpdateParams = JsonBody<'/v1/ideas/{id}', 'patch'>;
export type IdeaGenerateParams = JsonBody<'/v1/ideas/generate', 'post'>;
/**
 * What `ideas.generate` answers: the server's own response schema, regenerated from its OpenAPI
 * document, never restated here. It carries what the MCP `suggest_ideas` tool reports too, so
 * when the server reports a shortfall (fewer ideas than `count`), it shows up here unchanged.
 */
export type IdeaGenerateResponse = JsonResponse<'/v1/ideas/generate', 'post'>;

/** Ideas move `idea` → `drafting` → `approved` → `scheduled` → `live`; a forbidden move is a 409. */
export class Ideas extends APIResource {
  /** Most recently updated first. Filter by `brand_id`, `status`, `campaign_id`. */
  list(
    params: IdeaListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'ideas'>, PageOf<ListBody, 'ideas'>> {
    return pagedList<ListBody, 'ideas'>(this._core, '/ideas', 'ideas', params, options);
  }

  /** Adds an idea in the Idea column. */
  create(body: IdeaCreateParams, options?: RequestOptions): APIPromise<JsonResponse<'/v1/ideas', 'post'>> {
    return this._core.request({ method: 'POST', path: '/ideas', body, ...options });
  }

  /**
   * Suggests up to `count` ideas from the brand's signals; each idea cites the signal it came
   * from. Read the whole response, not only `ideas`: it is the server's schema as it is.
   */
  generate(body: IdeaGenerateParams, options?: RequestOptions): APIPromise<IdeaGenerateResponse> {
    return this._core.request({ method: 'POST', path: '/ideas/generate', body, ...options });
  }

  retrieve(ideaId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/ideas/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/ideas/${ideaId}`, ...options });
  }

  /** Edits fields or moves the idea to another status. */
  update(
    ideaId: string,
    body: IdeaUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/ideas/{id}', 'patch'>> {
    return this._core.request({ method: 'PATCH', path: encodePath`/ideas/${ideaId}`, body, ...options });
  }

  delete(ideaId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/ideas/{id}', 'delete'>> {
    return this._core.request({ method: 'DELETE', path: encodePath`/ideas/${ideaId}`, ...options });
  }
}
