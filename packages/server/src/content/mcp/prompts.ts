import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { inTheApp } from '../app-pages.js';
import { PLATFORMS } from '../domain.js';
import { RpcError } from './jsonrpc.js';

/**
 * Prompts: the work an agent does most, as slash commands a client can offer. Each is a short
 * brief that names the tools to use, in order, and ends with the same rule: propose, never
 * publish. Nothing here reads data, so `prompts/get` costs nothing and needs no scope; the tools
 * it names check their own scopes when the agent calls them.
 */
interface PromptSpec {
  name: string;
  title: string;
  description: string;
  arguments: { name: CompletableArgument; description: string; required: boolean }[];
  /** The tools the brief expects the agent to call, named in the brief and in its description. */
  tools: string[];
  brief(args: Record<string, string>): string;
}

/** Every argument a prompt takes is one that `completion/complete` can fill. */
export type CompletableArgument = 'brandId' | 'ideaId' | 'draftId' | 'assetId' | 'agentId' | 'platform';

const NEVER_PUBLISH = `Do not publish, schedule or approve anything: no tool can, and propose_post only puts a draft in the approval queue, where a person decides in ${inTheApp('approvals')}. Finish by listing what you proposed (approval ids) and why.`;

const onPlatform = (args: Record<string, string>) => (args.platform ? ` for ${args.platform}` : '');

const brand = {
  name: 'brandId',
  description: 'The brand, "brd_…" from list_brands.',
  required: true,
} as const;
const platform = {
  name: 'platform',
  description: 'Only this platform: x, linkedin, instagram or threads.',
  required: false,
} as const;

export const PROMPTS: PromptSpec[] = [
  {
    name: 'plan_week',
    title: 'Plan the week for a brand',
    description: 'Plan next week’s posts for a brand and propose them for approval.',
    arguments: [brand, platform],
    tools: ['get_brand_memory', 'get_digest', 'best_times', 'list_ideas', 'run_agent', 'propose_post'],
    brief: (a) =>
      [
        `Plan next week's posts${onPlatform(a)} for brand ${a.brandId}.`,
        `1. Read the brand's voice with get_brand_memory and what worked lately with get_digest.`,
        '2. Find the best slots with best_times and the ideas already in the pipeline with list_ideas.',
        `3. Run the weekly_plan agent with run_agent { "agentId": "weekly_plan", "inputs": { "brandId": "${a.brandId}"${a.platform ? `, "platforms": ["${a.platform}"]` : ''} } }; it drafts, checks the voice and queues approvals for the free slots.`,
        '4. Where a slot is still empty, draft an idea from list_ideas and put it forward with propose_post, giving the reason.',
        NEVER_PUBLISH,
      ].join('\n'),
  },
  {
    name: 'repurpose_winner',
    title: 'Repurpose a winning post',
    description: 'Find a brand’s best recent post and turn it into drafts for its other platforms.',
    arguments: [brand, platform],
    tools: ['get_digest', 'list_posts', 'get_post', 'run_agent', 'get_agent_run', 'propose_post'],
    brief: (a) =>
      [
        `Repurpose a winning post of brand ${a.brandId}${a.platform ? ` into a ${a.platform} draft` : ' for its other platforms'}.`,
        '1. Find the winner with get_digest, or list_posts and get_post: a published post marked outperforming.',
        `2. Run run_agent { "agentId": "repurpose_winner", "inputs": { "postId": "<the winner>"${a.platform ? `, "platforms": ["${a.platform}"]` : ''} } } and read the outcome with get_agent_run (each draft gets a voice check).`,
        '3. Put forward the drafts that passed the voice check with propose_post, giving the reason.',
        NEVER_PUBLISH,
      ].join('\n'),
  },
  {
    name: 'draft_from_signal',
    title: 'Draft from a signal',
    description:
      'Turn a signal (a trend, a question, a mention) into an idea and a draft ready for approval.',
    arguments: [
      brand,
      {
        name: 'ideaId',
        description: 'An idea that already cites a signal, "idea_…" from list_ideas.',
        required: false,
      },
      platform,
    ],
    tools: ['get_brand_memory', 'suggest_ideas', 'list_ideas', 'draft_idea', 'propose_post'],
    brief: (a) =>
      [
        a.ideaId
          ? `Draft idea ${a.ideaId} of brand ${a.brandId}${onPlatform(a)}; it cites the signal it came from.`
          : `Draft a post${onPlatform(a)} for brand ${a.brandId} from one of its signals.`,
        '1. Read the voice with get_brand_memory.',
        a.ideaId
          ? '2. Check the idea and its signal with list_ideas; if it no longer fits, ask suggest_ideas for another.'
          : '2. Ask suggest_ideas for ideas from the brand’s signals (each names the signal it cites) and pick the strongest.',
        `3. Write it with draft_idea${a.platform ? ` for ${a.platform}` : ''}; keep the signal's facts, in the brand's voice.`,
        '4. Put the draft forward with propose_post, citing the signal in the reason.',
        NEVER_PUBLISH,
      ].join('\n'),
  },
  {
    name: 'finish_draft',
    title: 'Finish a draft',
    description: 'Add an image from the media library to a draft, check its voice and propose it.',
    arguments: [
      {
        name: 'draftId',
        description: 'The draft, "drf_…" from draft_idea or list_approvals.',
        required: true,
      },
      { name: 'assetId', description: 'The image or video, "med_…" from list_media.', required: false },
    ],
    tools: ['list_media', 'attach_media', 'run_agent', 'propose_post'],
    brief: (a) =>
      [
        `Finish draft ${a.draftId}.`,
        a.assetId
          ? `1. Check ${a.assetId} fits with list_media (alt text, tags) and attach it with attach_media.`
          : '1. Pick a fitting image with list_media (read its alt text and tags) and attach it with attach_media.',
        `2. Check it with run_agent { "agentId": "voice_check", "inputs": { "draftId": "${a.draftId}" } } and fix what it flags by drafting again.`,
        '3. Put it forward with propose_post, giving the reason.',
        NEVER_PUBLISH,
      ].join('\n'),
  },
  {
    name: 'run_agent_for_brand',
    title: 'Run a built-in agent',
    description: 'Run one of the built-in agents for a brand and report what it did.',
    arguments: [{ name: 'agentId', description: 'The agent, from list_agents.', required: true }, brand],
    tools: ['list_agents', 'run_agent', 'get_agent_run', 'list_approvals'],
    brief: (a) =>
      [
        `Run the ${a.agentId} agent for brand ${a.brandId}.`,
        '1. Read its inputs with list_agents and fill the ones it requires.',
        '2. Start it with run_agent, then read each step, child run and queued approval with get_agent_run.',
        '3. Report what it proposed (list_approvals shows the queue) and anything that failed.',
        NEVER_PUBLISH,
      ].join('\n'),
  },
];

const byName = new Map(PROMPTS.map((p) => [p.name, p]));

export const findPrompt = (name: string) => byName.get(name);

/** `prompts/list`: fixed, so built once. */
export const promptsListResult: { prompts: Prompt[] } = {
  prompts: PROMPTS.map((p) => ({
    name: p.name,
    title: p.title,
    description: `${p.description} Uses ${p.tools.join(', ')}. Never publishes.`,
    arguments: p.arguments,
  })),
};

export class PromptError extends Error {
  readonly code = RpcError.InvalidParams;
}

/** Argument values are ids or a platform name: short, one line. */
const MAX_ARGUMENT = 100;

/** `prompts/get`: the brief with the arguments filled in, as one user message. */
export function getPrompt(name: unknown, rawArgs: unknown): GetPromptResult {
  if (typeof name !== 'string') throw new PromptError('prompts/get needs params.name.');
  const prompt = byName.get(name);
  if (!prompt)
    throw new PromptError(
      `Unknown prompt '${name.slice(0, 60)}'. This server has ${PROMPTS.length} prompts; prompts/list names them.`,
    );
  if (rawArgs !== undefined && (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)))
    throw new PromptError('params.arguments must be an object of strings.');
  const given = (rawArgs ?? {}) as Record<string, unknown>;
  const known = new Set(prompt.arguments.map((a) => a.name as string));
  const unknown = Object.keys(given).filter((k) => !known.has(k));
  if (unknown.length)
    throw new PromptError(
      `Unknown argument${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `'${k.slice(0, 60)}'`).join(', ')} for prompt ${name}; it takes ${[...known].join(', ')}.`,
    );
  const args: Record<string, string> = {};
  for (const spec of prompt.arguments) {
    const value = given[spec.name];
    if (value === undefined || value === '') {
      if (spec.required)
        throw new PromptError(`Prompt ${name} needs the argument '${spec.name}': ${spec.description}`);
      continue;
    }
    // Values are spliced into the brief (some inside JSON the agent copies), so only id characters.
    if (spec.name === 'platform' && !(PLATFORMS as readonly unknown[]).includes(value))
      throw new PromptError(`'platform' must be one of ${PLATFORMS.join(', ')}.`);
    if (typeof value !== 'string' || value.length > MAX_ARGUMENT || !/^[A-Za-z0-9_.-]+$/.test(value))
      throw new PromptError(
        `'${spec.name}' must be an id as the tools return it (letters, digits, '_', '.', '-'; at most ${MAX_ARGUMENT}).`,
      );
    args[spec.name] = value;
  }
  return {
    description: prompt.description,
    messages: [{ role: 'user', content: { type: 'text', text: prompt.brief(args) } }],
  };
}
