import { ClientCore, type ClientOptions } from '@svc/client-core';
import { AgentRuns, Agents } from './resources/agents.js';
import { ApiKeys, McpCalls } from './resources/api-keys.js';
import { Approvals } from './resources/approvals.js';
import { Automations } from './resources/automations.js';
import { Brands } from './resources/brands.js';
import { Campaigns } from './resources/campaigns.js';
import { Channels } from './resources/channels.js';
import { Drafts } from './resources/drafts.js';
import { Ideas } from './resources/ideas.js';
import { Insights } from './resources/insights.js';
import { McpRelayResource } from './resources/mcp-relay.js';
import { Media } from './resources/media.js';
import { MemoryProposals } from './resources/memory-proposals.js';
import { ModeResource } from './resources/mode.js';
import { Posts } from './resources/posts.js';
import { SandboxClockResource } from './resources/sandbox-clock.js';
import { VERSION } from './version.js';

/**
 * The family's options (see @svc/commerce-client), minus `userToken`: the content API has no
 * user-scoped calls, because a local REST request already acts as the person.
 */
export interface ContentClientOptions extends Omit<ClientOptions, 'userToken'> {
  /**
   * The service root, e.g. `http://localhost:3000` (the server's default port is
   * `CONTENT_PORT`, 3000): the spec's `base_url`, the same one MCP clients get with `/mcp`
   * added. With or without the `/v1` suffix and a trailing slash: all reach the REST API.
   */
  baseUrl: string;
  /**
   * Sent as `Authorization: Bearer <apiKey>`. The content REST API itself takes no key (local
   * requests act as the person; API keys are for `/mcp`); set this, or `defaultHeaders`, when
   * your own authenticating proxy sits in front of a server run with `SERVICE_PUBLIC_API=all`.
   */
  apiKey?: string | undefined;
}

/**
 * Typed client for the content-planning REST API.
 *
 * ```ts
 * const client = new ContentClient({ baseUrl: 'http://localhost:3000' });
 * const brand = await client.brands.create({ name: 'Fieldnote' });
 * for await (const idea of client.ideas.list({ brand_id: brand.id })) console.log(idea.title);
 * ```
 */
export class ContentClient {
  readonly #core: ClientCore;

  readonly brands: Brands;
  readonly ideas: Ideas;
  readonly drafts: Drafts;
  readonly posts: Posts;
  readonly approvals: Approvals;
  readonly agents: Agents;
  readonly agentRuns: AgentRuns;
  readonly automations: Automations;
  readonly insights: Insights;
  readonly media: Media;
  readonly apiKeys: ApiKeys;
  readonly mcpCalls: McpCalls;
  readonly mode: ModeResource;
  /** The stdio command for the svc-mcp relay built in the server's checkout, if any. */
  readonly mcpRelay: McpRelayResource;
  readonly channels: Channels;
  readonly campaigns: Campaigns;
  readonly memoryProposals: MemoryProposals;
  readonly sandboxClock: SandboxClockResource;

  constructor(options: ContentClientOptions | ClientCore) {
    if (options instanceof ClientCore) {
      this.#core = options;
    } else {
      this.#core = new ClientCore({ ...options, serviceClient: `@svc/content-client/${VERSION}` });
    }
    const core = this.#core;
    this.brands = new Brands(core);
    this.ideas = new Ideas(core);
    this.drafts = new Drafts(core);
    this.posts = new Posts(core);
    this.approvals = new Approvals(core);
    this.agents = new Agents(core);
    this.agentRuns = new AgentRuns(core);
    this.automations = new Automations(core);
    this.insights = new Insights(core);
    this.media = new Media(core);
    this.apiKeys = new ApiKeys(core);
    this.mcpCalls = new McpCalls(core);
    this.mode = new ModeResource(core);
    this.mcpRelay = new McpRelayResource(core);
    this.channels = new Channels(core);
    this.campaigns = new Campaigns(core);
    this.memoryProposals = new MemoryProposals(core);
    this.sandboxClock = new SandboxClockResource(core);
  }

  /** A copy with some options changed, e.g. `client.withOptions({ timeoutMs: 120_000 })`. */
  withOptions(patch: Partial<ContentClientOptions>): ContentClient {
    return new ContentClient(this.#core.withOptions(patch));
  }
}
