import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/automations', 'get'>;
export type AutomationListParams = QueryOf<'/v1/automations', 'get'>;
export type AutomationCreateParams = JsonBody<'/v1/automations', 'post'>;
export type AutomationUpdateParams = JsonBody<'/v1/automations/{id}', 'patch'>;

/**
 * An automation runs an agent on a schedule or after a post event (`post.published`,
 * `post.metrics_settled`), within a daily cap per automation and per workspace.
 */
export class Automations extends APIResource {
  list(
    params: AutomationListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'automations'>, PageOf<ListBody, 'automations'>> {
    return pagedList<ListBody, 'automations'>(this._core, '/automations', 'automations', params, options);
  }

  create(
    body: AutomationCreateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/automations', 'post'>> {
    return this._core.request({ method: 'POST', path: '/automations', body, ...options });
  }

  retrieve(
    automationId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/automations/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/automations/${automationId}`, ...options });
  }

  update(
    automationId: string,
    body: AutomationUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/automations/{id}', 'patch'>> {
    return this._core.request({
      method: 'PATCH',
      path: encodePath`/automations/${automationId}`,
      body,
      ...options,
    });
  }

  delete(
    automationId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/automations/{id}', 'delete'>> {
    return this._core.request({
      method: 'DELETE',
      path: encodePath`/automations/${automationId}`,
      ...options,
    });
  }

  /** Runs it now (counts against the daily cap: 429 when the cap is reached). */
  run(
    automationId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/automations/{id}/run', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/automations/${automationId}/run`,
      ...options,
    });
  }
}
