import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type SignalsBody = JsonResponse<'/v1/brands/{id}/signals', 'get'>;
type OutcomesBody = JsonResponse<'/v1/brands/{id}/outcomes', 'post'>;
export type OverviewParams = QueryOf<'/v1/insights/overview', 'get'>;
export type DigestGenerateParams = JsonBody<'/v1/brands/{id}/digest', 'post'>;
export type ConversationParams = QueryOf<'/v1/brands/{id}/conversation', 'get'>;
export type OutcomesParams = QueryOf<'/v1/brands/{id}/outcomes', 'post'>;
export type SignalListParams = QueryOf<'/v1/brands/{id}/signals', 'get'>;
export type SignalCreateParams = JsonBody<'/v1/brands/{id}/signals', 'post'>;

/** Weekly digests: headline, stats, wins, misses, patterns, recommendations (each citing sources). */
export class Digests extends APIResource {
  /** The brand's latest digest (404 when none has been made yet). */
  retrieve(
    brandId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/digest', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/brands/${brandId}/digest`, ...options });
  }

  /** Makes a new digest over the last `days` (default 7); it becomes the latest. */
  generate(
    brandId: string,
    body: DigestGenerateParams = {},
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/digest', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/brands/${brandId}/digest`,
      body,
      ...options,
    });
  }
}

/** Signals (trends, questions, competitors, mentions, news) that ideas are suggested from. */
export class Signals extends APIResource {
  list(
    brandId: string,
    params: SignalListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<SignalsBody, 'signals'>, PageOf<SignalsBody, 'signals'>> {
    return pagedList<SignalsBody, 'signals'>(
      this._core,
      encodePath`/brands/${brandId}/signals`,
      'signals',
      params,
      options,
    );
  }

  create(
    brandId: string,
    body: SignalCreateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/signals', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/brands/${brandId}/signals`,
      body,
      ...options,
    });
  }
}

export class Insights extends APIResource {
  readonly digest = new Digests(this._core);
  readonly signals = new Signals(this._core);

  /** Totals, change vs the period before, per platform, verdict counts and the top post. */
  overview(
    params: OverviewParams = {},
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/insights/overview', 'get'>> {
    return this._core.request({ method: 'GET', path: '/insights/overview', query: params, ...options });
  }

  /**
   * The brand's published posts, newest first, each with its verdict against the brand's median;
   * each past 72 h is settled as its page is read. Paged like every list (`limit`, default 20, at
   * most 100; `after`): `for await` gives every outcome, fetching page after page; `await` gives
   * the first page (`{ outcomes, items, has_more, next_after }`); `.pages()` gives each page.
   * Lazy: nothing is sent (and nothing settled) until it is awaited or iterated. Each page is a
   * POST; an `idempotencyKey` in `options` is the first page's.
   */
  outcomes(
    brandId: string,
    params: OutcomesParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<OutcomesBody, 'outcomes'>, PageOf<OutcomesBody, 'outcomes'>> {
    return pagedList<OutcomesBody, 'outcomes'>(
      this._core,
      encodePath`/brands/${brandId}/outcomes`,
      'outcomes',
      params,
      { ...options, method: 'POST' },
    );
  }

  /** Reply themes (questions, objections, praise, requests), largest first. */
  conversation(
    brandId: string,
    params: ConversationParams = {},
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/brands/{id}/conversation', 'get'>> {
    return this._core.request({
      method: 'GET',
      path: encodePath`/brands/${brandId}/conversation`,
      query: params,
      ...options,
    });
  }
}
