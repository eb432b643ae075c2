import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
  wholeList,
} from '@svc/client-core';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type KeysBody = JsonResponse<'/v1/api-keys', 'get'>;
type CallsBody = JsonResponse<'/v1/mcp-calls', 'get'>;
export type ApiKeyCreateParams = JsonBody<'/v1/api-keys', 'post'>;
export type McpCallListParams = QueryOf<'/v1/mcp-calls', 'get'>;

/**
 * API keys for the MCP server (`Authorization: Bearer svc_...` on `/mcp`). Keys can read and
 * propose; they can never publish, schedule, approve, delete or connect accounts.
 */
export class ApiKeys extends APIResource {
  /** Every key with its name, scopes, display prefix and last-used time (one page). */
  list(options?: RequestOptions): PagePromise<ItemOf<KeysBody, 'api_keys'>, PageOf<KeysBody, 'api_keys'>> {
    return wholeList<KeysBody, 'api_keys'>(this._core, '/api-keys', 'api_keys', options);
  }

  /** Creates a key. The full `key` is in this response only: store it now. */
  create(
    body: ApiKeyCreateParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/api-keys', 'post'>> {
    return this._core.request({ method: 'POST', path: '/api-keys', body, ...options });
  }

  /** Revokes a key; the very next MCP request with it is refused. */
  revoke(keyId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/api-keys/{id}', 'delete'>> {
    return this._core.request({ method: 'DELETE', path: encodePath`/api-keys/${keyId}`, ...options });
  }
}

/** The log of every MCP tool call: key, tool, arguments (secrets redacted) and outcome. */
export class McpCalls extends APIResource {
  list(
    params: McpCallListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<CallsBody, 'mcp_calls'>, PageOf<CallsBody, 'mcp_calls'>> {
    return pagedList<CallsBody, 'mcp_calls'>(this._core, '/mcp-calls', 'mcp_calls', params, options);
  }
}
