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
// Posts and results, Insights, Brand Memory and Campaigns (pages/results/).
export type Post = Awaited<ReturnType<typeof client.posts.list>>['posts'][number];
export type PostDetail = Awaited<ReturnType<typeof client.posts.retrieve>>;
export type Reply = Awaited<ReturnType<typeof client.posts.replies>>['replies'][number];
export type Verdict = Post['verdict'];
export type Digest = Awaited<ReturnType<typeof client.insights.digest.retrieve>>;
export type Overview = Awaited<ReturnType<typeof client.insights.overview>>;
export type Conversation = Awaited<ReturnType<typeof client.insights.conversation>>;
export type BrandMemory = Awaited<ReturnType<typeof client.brands.memory.retrieve>>;
export type MemoryEvidence = BrandMemory['voice']['do'][number]['evidence'][number];
export type MemoryProposal = Awaited<ReturnType<typeof client.memoryProposals.retrieve>>;
export type Campaign = Awaited<ReturnType<typeof client.campaigns.retrieve>>;
export type CanvasItem = Awaited<ReturnType<typeof client.campaigns.canvas.retrieve>>['items'][number];
