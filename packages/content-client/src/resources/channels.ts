import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/channels', 'get'>;
export type ChannelListParams = QueryOf<'/v1/channels', 'get'>;
export type ChannelConnectParams = JsonBody<'/v1/brands/{id}/channels/connect', 'post'>;

/** A brand's accounts on each platform. */
export class Channels extends APIResource {
  list(
    params: ChannelListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'channels'>, PageOf<ListBody, 'channels'>> {
    return pagedList<ListBody, 'channels'>(this._core, '/channels', 'channels', params, options);
  }

  retrieve(
    channelId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/channels/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/channels/${channelId}`, ...options });
  }

  /**
   * Starts the connect flow. In sandbox the channel connects at once; in live mode the result's
   * `authorize_url` is where the person signs in to the platform.
   */
  connect(
    brandId: string,
    body: ChannelConnectParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/channels/connect', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/brands/${brandId}/channels/connect`,
      body,
      ...options,
    });
  }

  disconnect(
    channelId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/channels/{id}', 'delete'>> {
    return this._core.request({ method: 'DELETE', path: encodePath`/channels/${channelId}`, ...options });
  }
}
