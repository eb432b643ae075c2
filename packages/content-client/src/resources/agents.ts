import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
  wholeList,
} from '@svc/client-core';
import type { AgentId } from '../models.js';
import type { ItemOf, JsonBody, JsonResponse, PageOf, QueryOf } from '../types.js';

type AgentsBody = JsonResponse<'/v1/agents', 'get'>;
type RunsBody = JsonResponse<'/v1/agent-runs', 'get'>;
export type AgentRunParams = JsonBody<'/v1/agents/{id}/runs', 'post'>;
export type AgentRunListParams = QueryOf<'/v1/agent-runs', 'get'>;

/** The five built-in agents. Agents never publish: posts they want out become pending approvals. */
export class Agents extends APIResource {
  /** Every built-in agent with what it does, its inputs and its steps (one page). */
  list(options?: RequestOptions): PagePromise<ItemOf<AgentsBody, 'agents'>, PageOf<AgentsBody, 'agents'>> {
    return wholeList<AgentsBody, 'agents'>(this._core, '/agents', 'agents', options);
  }

  retrieve(agentId: AgentId, options?: RequestOptions): APIPromise<JsonResponse<'/v1/agents/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/agents/${agentId}`, ...options });
  }

  /**
   * Runs an agent and waits for it to finish; returns the recorded run (inputs, steps, child
   * runs, queued approvals). `client.agents.run('weekly_plan', { inputs: { brandId } })`.
   */
  run(
    agentId: AgentId,
    body: AgentRunParams = {},
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/agents/{id}/runs', 'post'>> {
    return this._core.request({
      method: 'POST',
      path: encodePath`/agents/${agentId}/runs`,
      body,
      ...options,
    });
  }
}

/** Recorded agent runs, from the app, MCP and automations. */
export class AgentRuns extends APIResource {
  /** Newest first; filter by `agent_id`, `brand_id`. */
  list(
    params: AgentRunListParams = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<RunsBody, 'agent_runs'>, PageOf<RunsBody, 'agent_runs'>> {
    return pagedList<RunsBody, 'agent_runs'>(this._core, '/agent-runs', 'agent_runs', params, options);
  }

  /** One run with its inputs, steps (with timings), child runs and queued approvals. */
  retrieve(runId: string, options?: RequestOptions): APIPromise<JsonResponse<'/v1/agent-runs/{id}', 'get'>> {
    return this._core.request({ method: 'GET', path: encodePath`/agent-runs/${runId}`, ...options });
  }
}
