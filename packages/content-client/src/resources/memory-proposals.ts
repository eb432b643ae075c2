import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/memory-proposals', 'get'>;
export type MemoryProposalListParams = QueryOf<'/v1/memory-proposals', 'get'>;

/** Brand Memory changes proposed by the `voice_refresh` agent, with why, lift and evidence. */
export class MemoryProposals extends APIResource {
  /** Pending first; every page carries `counts`. */
  list(
    params: MemoryProposalListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'memory_proposals'>, PageOf<ListBody, 'memory_proposals'>> {
    return pagedList<ListBody, 'memory_proposals'>(
      this._core,
      '/memory-proposals',
      'memory_proposals',
      params,
      options,
    );
  }

  retrieve(
    proposalId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/memory-proposals/{id}', 'get'>> {
    return this._core.request({
      method: 'GET',
      path: encodePath`/memory-proposals/${proposalId}`,
      ...options,
    });
  }

  /** Applies the change to Brand Memory. */
  apply(
    proposalId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/memory-proposals/{id}/apply', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/memory-proposals/${proposalId}/apply`,
      ...options,
    });
  }

  dismiss(
    proposalId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/memory-proposals/{id}/dismiss', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/memory-proposals/${proposalId}/dismiss`,
      ...options,
    });
  }
}
