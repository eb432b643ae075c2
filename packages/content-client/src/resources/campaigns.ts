import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/campaigns', 'get'>;
export type CampaignListParams = QueryOf<'/v1/campaigns', 'get'>;
export type CampaignCreateParams = JsonBody<'/v1/campaigns', 'post'>;
export type CampaignUpdateParams = JsonBody<'/v1/campaigns/{id}', 'patch'>;
export type CanvasNoteParams = JsonBody<'/v1/campaigns/{id}/canvas/notes', 'post'>;
export type CanvasItemUpdateParams = JsonBody<'/v1/campaigns/{id}/canvas/items/{itemId}', 'patch'>;

/** A campaign's canvas: sticky notes and linked items, each with a position and size. */
export class Canvas extends APIResource {
  retrieve(
    campaignId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns/{id}/canvas', 'get'>> {
    return this._core.request({
      method: 'GET',
      path: encodePath`/campaigns/${campaignId}/canvas`,
      ...options,
    });
  }

  /** Adds a sticky note to the right of everything already on the canvas. */
  addNote(
    campaignId: string,
    body: CanvasNoteParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns/{id}/canvas/notes', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/campaigns/${campaignId}/canvas/notes`,
      body,
      ...options,
    });
  }

  /** Moves, resizes or edits an item. */
  updateItem(
    campaignId: string,
    itemId: string,
    body: CanvasItemUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns/{id}/canvas/items/{itemId}', 'patch'>> {
    return this._core.request({
      method: 'PATCH',
      path: encodePath`/campaigns/${campaignId}/canvas/items/${itemId}`,
      body,
      ...options,
    });
  }

  deleteItem(
    campaignId: string,
    itemId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns/{id}/canvas/items/{itemId}', 'delete'>> {
    return this._core.request({
      method: 'DELETE',
      path: encodePath`/campaigns/${campaignId}/canvas/items/${itemId}`,
      ...options,
    });
  }
}

export class Campaigns extends APIResource {
  readonly canvas = new Canvas(this._core);

  /** Newest first; filter by `brand_id`. */
  list(
    params: CampaignListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'campaigns'>, PageOf<ListBody, 'campaigns'>> {
    return pagedList<ListBody, 'campaigns'>(this._core, '/campaigns', 'campaigns', params, options);
  }

  create(
    body: CampaignCreateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns', 'post'>> {
    return this._core.request({ method: 'POST', path: '/campaigns', body, ...options });
  }

  retrieve(
    campaignId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/campaigns/${campaignId}`, ...options });
  }

  update(
    campaignId: string,
    body: CampaignUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns/{id}', 'patch'>> {
    return this._core.request({
      method: 'PATCH',
      path: encodePath`/campaigns/${campaignId}`,
      body,
      ...options,
    });
  }

  delete(
    campaignId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/campaigns/{id}', 'delete'>> {
    return this._core.request({ method: 'DELETE', path: encodePath`/campaigns/${campaignId}`, ...options });
  }
}
