import { ContentApiError, ContentClient } from '@svc/content-client';

/**
 * The app's only way to the server: the public REST API through the typed client, on the
 * same origin as the page. Anything the app does, an API user can do too.
 */
export const client = new ContentClient({ baseUrl: location.origin });

export type Approval = Awaited<ReturnType<typeof client.approvals.retrieve>>;
export type ApprovalPage = Awaited<ReturnType<typeof client.approvals.list>>;
export type Mode = Awaited<ReturnType<typeof client.mode.retrieve>>;
export type Brand = Awaited<ReturnType<typeof client.brands.list>>['brands'][number];
export type Platform = Approval['draft']['platform'];

/** A failure in words a person can act on, with the request id to quote when asking for help. */
export interface Problem {
  message: string;
  requestId: string | null;
}

export function problemOf(err: unknown): Problem {
  if (err instanceof ContentApiError) {
    if (err.status === undefined) {
      return {
        message:
          'The server could not be reached. Check that `svc-server start` is still running, then try again.',
        requestId: null,
      };
    }
    return { message: err.message, requestId: err.requestId };
  }
  return { message: err instanceof Error ? err.message : String(err), requestId: null };
}

// Agents, automations and settings (app-ops).
export type Agent = Awaited<ReturnType<typeof client.agents.retrieve>>;
export type AgentId = Agent['id'];
export type AgentRun = Awaited<ReturnType<typeof client.agentRuns.retrieve>>;
export type AgentRunSummary = Awaited<ReturnType<typeof client.agentRuns.list>>['agent_runs'][number];
export type Automation = Awaited<ReturnType<typeof client.automations.retrieve>>;
export type ApiKey = Awaited<ReturnType<typeof client.apiKeys.list>>['api_keys'][number];
export type NewApiKey = Awaited<ReturnType<typeof client.apiKeys.create>>;
export type Channel = Awaited<ReturnType<typeof client.channels.retrieve>>;
export type SandboxClock = Awaited<ReturnType<typeof client.sandboxClock.retrieve>>;
export type SandboxAdvance = Awaited<ReturnType<typeof client.sandboxClock.advance>>;
