#!/usr/bin/env node
// What an AI agent sees of the content service: the official MCP SDK client, over Streamable
// HTTP, with a read + write API key. It lists the tools, suggests ideas, drafts one and proposes
// it, and then shows that the post waits for a person: no key can approve, publish or schedule.
//
//   SERVICE_API_URL=http://localhost:3000 node agent.mjs
//
// SERVICE_API_KEY: a key with the read and write scopes. Without one, the script creates one
// through the REST API (which answers this machine as the person) and prints its prefix.
// SERVICE_BRAND_ID: the brand to plan for; defaults to the first brand (the demo brand).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ContentClient } from '@svc/content-client';

const serviceUrl = (process.env.SERVICE_API_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
const line = (text = '') => process.stdout.write(`${text}\n`);

/** A key from the environment, or a new read + write key made with `POST /v1/api-keys`. */
async function apiKey() {
  if (process.env.SERVICE_API_KEY) return process.env.SERVICE_API_KEY;
  const rest = new ContentClient({ baseUrl: serviceUrl });
  const created = await rest.apiKeys.create({ name: 'mcp-agent example', scopes: ['read', 'write'] });
  line(`Created API key ${created.prefix}... (read, write); the full key is shown only once.`);
  return created.key;
}

/**
 * Calls a tool and returns its structured result. A tool error (bad arguments, an unknown id,
 * a missing scope) comes back as `isError` with a message meant for the model: surface it.
 */
async function call(mcp, name, args) {
  const result = await mcp.callTool({ name, arguments: args });
  const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return { data: result.structuredContent ?? {}, text };
}

async function main() {
  const key = await apiKey();
  const mcp = new Client({ name: 'svc-mcp-agent-example', version: '0.0.0' });
  // Stateless Streamable HTTP: every request carries the bearer key; there is no session.
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${serviceUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );

  try {
    // 1. The tools: 14 read, 9 write. None approves, publishes, schedules or deletes.
    const { tools } = await mcp.listTools();
    const reads = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    const writes = tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name);
    line(`${tools.length} tools`);
    line(`  read:  ${reads.join(', ')}`);
    line(`  write: ${writes.join(', ')}`);

    // 2. Which brand. Every result states the mode, e.g. "(sandbox · simulated)", so an agent
    //    knows when nothing is real.
    const brands = await call(mcp, 'list_brands', {});
    const brand = process.env.SERVICE_BRAND_ID
      ? { id: process.env.SERVICE_BRAND_ID }
      : brands.data.brands?.[0];
    if (!brand) throw new Error('No brand yet: create one, or start the service with the demo seed.');
    const label = brands.text.match(/\((sandbox|live) · (simulated|real)\)/)?.[0] ?? '';
    line(`Brand ${brand.name ?? brand.id} ${label}`);

    // 3. Ideas from the brand's signals; each cites the signal it came from.
    const suggested = await call(mcp, 'suggest_ideas', { brandId: brand.id, count: 2 });
    const ideas = suggested.data.ideas ?? [];
    for (const idea of ideas)
      line(`  idea ${idea.id}: ${idea.title} (signal: ${idea.signal?.title ?? 'none'})`);
    const idea = ideas[0];
    if (!idea) throw new Error('suggest_ideas returned no idea');

    // 4. Draft it for LinkedIn: a new draft version.
    const drafted = await call(mcp, 'draft_idea', { ideaId: idea.id, platforms: ['linkedin'] });
    const draft = drafted.data.drafts?.[0];
    if (!draft) throw new Error('draft_idea returned no draft');
    line(`Drafted ${draft.id} for ${draft.platform} (v${draft.version}):`);
    line(`  "${draft.parts?.[0]?.text?.split('\n')[0]}"`);

    // 5. Propose it. Without `proposedFor` the service takes the next free best-time slot on the
    //    channel. Nothing is published or scheduled: a pending approval is created.
    const proposed = await call(mcp, 'propose_post', {
      draftId: draft.id,
      reason: 'Answers the question our audience asked most this week.',
    });
    const approval = proposed.data.approval ?? proposed.data;
    line(`Proposed: approval ${approval.id} for ${approval.slot}, status ${approval.status}`);

    // 6. The queue, pending first. The approval waits for a person, in the app or through the
    //    REST API (client.approvals.approve), which acts as the person. A key cannot approve.
    const queue = await call(mcp, 'list_approvals', { status: 'pending', brandId: brand.id });
    const waiting = (queue.data.approvals ?? []).find((a) => a.id === approval.id);
    line(`Pending approvals: ${queue.data.counts?.pending ?? '?'}; ours is ${waiting?.status ?? 'missing'}.`);
    const personOnly = tools.filter((t) => /approve|publish|schedule|delete/.test(t.name));
    line(
      personOnly.length === 0
        ? 'It waits for a person: no tool can approve, publish, schedule or delete.'
        : `Unexpected person-only tools: ${personOnly.map((t) => t.name).join(', ')}`,
    );
  } finally {
    await mcp.close();
  }
}

main().catch((error) => {
  const cause =
    error?.cause?.code === 'ECONNREFUSED' || /fetch failed|ECONNREFUSED/.test(String(error?.message));
  process.stderr.write(
    cause
      ? `Cannot reach ${serviceUrl}: the content service must be running (npm start).\n`
      : `${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
