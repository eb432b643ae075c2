import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type ListBody = JsonResponse<'/v1/approvals', 'get'>;
export type ApprovalListParams = QueryOf<'/v1/approvals', 'get'>;
export type ApprovalProposeParams = JsonBody<'/v1/approvals', 'post'>;
export type ApprovalUpdateParams = JsonBody<'/v1/approvals/{id}', 'patch'>;
export type ApprovalApproveParams = JsonBody<'/v1/approvals/{id}/approve', 'post'>;
export type ApprovalRejectParams = JsonBody<'/v1/approvals/{id}/reject', 'post'>;
export type ApprovalBulkParams = JsonBody<'/v1/approvals/bulk', 'post'>;
/** One entry of `bulk`: `{ action: 'approve' | 'edit' | 'reject', id, ... }`. */
export type ApprovalBulkAction = ApprovalBulkParams['actions'][number];

/**
 * The approval queue: proposals (from agents, MCP keys or people) that a person approves,
 * edits or rejects. Approving schedules the post into its slot; these are person-only actions,
 * which the REST API may take because it acts as the person.
 */
export class Approvals extends APIResource {
  /** Pending first. Every page also carries `counts` of pending, approved and rejected. */
  list(
    params: ApprovalListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<ListBody, 'approvals'>, PageOf<ListBody, 'approvals'>> {
    return pagedList<ListBody, 'approvals'>(this._core, '/approvals', 'approvals', params, options);
  }

  /** Proposes a draft for a slot (the next free best-time slot when `proposed_for` is left out). */
  propose(
    body: ApprovalProposeParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/approvals', 'post'>> {
    return this._core.request({ method: 'POST', path: '/approvals', body, ...options });
  }

  retrieve(
    approvalId: string,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/approvals/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/approvals/${approvalId}`, ...options });
  }

  /** Edits the text or slot of a pending approval. */
  update(
    approvalId: string,
    body: ApprovalUpdateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/approvals/{id}', 'patch'>> {
    return this._core.request({
      method: 'PATCH',
      path: encodePath`/approvals/${approvalId}`,
      body,
      ...options,
    });
  }

  /** Approves and schedules the post into its slot (or `slot`, when given). */
  approve(
    approvalId: string,
    body: ApprovalApproveParams = {},
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/approvals/{id}/approve', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/approvals/${approvalId}/approve`,
      body,
      ...options,
    });
  }

  /** Rejects with a `reason`, which is recorded. */
  reject(
    approvalId: string,
    body: ApprovalRejectParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/approvals/{id}/reject', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/approvals/${approvalId}/reject`,
      body,
      ...options,
    });
  }

  /** Approves, edits and rejects many at once; returns them with the new counts. */
  bulk(
    body: ApprovalBulkParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/approvals/bulk', 'post'>> {
    return this._core.request({ method: 'POST', path: '/approvals/bulk', body, ...options });
  }
}
