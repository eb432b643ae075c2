import type { Config } from '../config.js';
import { type OpenApiInfo, serviceServer } from '../platform/http/index.js';
import { VERSION } from '../version.js';
import { contentRegistry } from './schemas.js';

/** Where the document says the API lives: the public URL when set, else the default local address. */
/** The tag groups of the content REST API, in the order a reader meets them. */
const TAGS = [
  {
    name: 'Brands',
    description:
      'Brands and their Brand Memory: voice, audiences, products, knowledge, rules and example posts.',
  },
  {
    name: 'Ideas',
    description:
      'The idea pipeline (idea → drafting → approved → scheduled → live), and suggestions from signals.',
  },
  {
    name: 'Drafts',
    description: 'Per-platform drafts. Every change makes a new version; media attaches to the first part.',
  },
  {
    name: 'Approvals',
    description: 'The approval queue. Agents and API keys propose; only a person approves or rejects.',
  },
  {
    name: 'Posts',
    description: 'Published and scheduled posts with their metrics snapshots, verdict and replies.',
  },
  { name: 'Insights', description: 'Overview, weekly digests, outcomes, signals and reply themes.' },
  {
    name: 'Media',
    description:
      'The media library: uploads, imports from a URL, alt text, tags, focal point and per-platform crops.',
  },
  {
    name: 'Agents',
    description: 'The built-in agents and their recorded runs (inputs, steps, child runs, queued approvals).',
  },
  {
    name: 'Automations',
    description: 'Run an agent on a schedule or after a post event, within a daily cap.',
  },
  { name: 'Campaigns', description: 'Campaigns and their canvas of sticky notes.' },
  { name: 'Channels', description: 'Connected social accounts per brand, and the connect flow.' },
  {
    name: 'Memory proposals',
    description:
      'Brand Memory changes proposed by the voice refresh agent, applied or dismissed by a person.',
  },
  { name: 'API keys', description: 'Keys for the MCP server, with scopes, and the log of MCP calls.' },
  {
    name: 'Mode',
    description: 'Whether the service runs in sandbox or live mode, with a simulated or a real model.',
  },
  {
    name: 'Sandbox',
    description: 'The sandbox clock: read it and move it forward to publish due posts and grow metrics.',
  },
  { name: 'Health', description: 'Liveness, reachable without the local-only gate.' },
];

export function contentOpenApiInfo(config: Config): OpenApiInfo {
  return {
    title: 'svc content-planning REST API',
    version: VERSION,
    description:
      'The REST API the web app uses; it acts as the signed-in person and can publish. It answers only requests made on the machine it runs on unless SERVICE_PUBLIC_API=all, and refuses cross-site browser requests. Agents use the MCP server at /mcp instead (see docs/content/mcp.md).',
    servers: [
      serviceServer({
        publicUrl: config.content.publicUrl,
        port: config.content.port,
        defaultPort: 3000,
        publicUrlSetting: 'CONTENT_PUBLIC_URL',
      }),
    ],
    tags: TAGS,
    registry: contentRegistry,
    securitySchemes: {},
    security: {},
    // The person routes sit behind the local-only gate and the cross-site request guard.
    serviceErrors: (route): Record<number, string> =>
      route.auth === 'person'
        ? {
            403: "LOCAL_ONLY (the request did not start on this machine), HOST_NOT_ALLOWED (with SERVICE_PUBLIC_API=all, a Host other than CONTENT_PUBLIC_URL's or localhost) or CROSS_ORIGIN_REQUEST (a browser page on another origin sent it).",
          }
        : {},
  };
}
