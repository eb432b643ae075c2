import type { APIPromise, RequestOptions } from '@svc/client-core';
import { APIResource } from '@svc/client-core';
import type { JsonResponse } from '../types.js';

export class McpRelayResource extends APIResource {
  /**
   * The stdio command for the `svc-mcp` relay built in the server's checkout (absolute paths),
   * or `relay: null`. Pass it to `mcpConfig({ stdioCommand })` for a stdio entry that works
   * before the package is published.
   */
  retrieve(options?: RequestOptions): APIPromise<JsonResponse<'/v1/mcp-relay', 'get'>> {
    return this._core.request({ method: 'GET', path: '/mcp-relay', ...options });
  }
}
