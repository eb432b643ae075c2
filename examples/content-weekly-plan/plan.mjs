#!/usr/bin/env node
// A week of content, planned through @svc/content-client alone, against a running content
// service in sandbox mode:
//
//   SERVICE_API_URL=http://localhost:3000 node plan.mjs
//
// It creates its own brand, so it is safe to run against the demo workspace. It does move the
// service's sandbox clock forward about four days (that is how you see a post go live and
// collect metrics without waiting); the clock offset persists in the data directory.
import { ContentApiError, ContentClient } from '@svc/content-client';
import { makePng } from './png.mjs';

const HOUR = 3_600_000;
const serviceUrl = (process.env.SERVICE_API_URL ?? 'http://localhost:3000').replace(/\/+$/, '');

// The REST API needs no credentials from this machine: a local request acts as the person.
// (Behind your own auth proxy with SERVICE_PUBLIC_API=all, pass `defaultHeaders` here.)
const client = new ContentClient({ baseUrl: serviceUrl, timeoutMs: 120_000 });

const line = (text = '') => process.stdout.write(`${text}\n`);
const step = (n, text) => line(`${String(n).padStart(2)}. ${text}`);

async function main() {
  // Nothing in this script should ever reach a real platform: stop unless in sandbox mode.
  const mode = await client.mode.retrieve();
  if (mode.mode !== 'sandbox') {
    throw new Error(`The service is in ${mode.mode} mode; this example only runs in sandbox mode.`);
  }
  line(`Planning a week on ${serviceUrl} ${mode.label}`);
  line();

  // 1. A brand, with a voice the model writes in and words it must never use.
  const brand = await client.brands.create({
    name: 'Fieldnote (weekly plan example)',
    memory: {
      voice: {
        summary: 'Plain, practical, a little dry. Show, do not tell.',
        do: ['Lead with a concrete example', 'Ask one real question'],
        avoid: ['Hype', 'Exclamation marks'],
        banned_words: ['synergy', 'game-changer'],
      },
      audiences: [{ name: 'Team leads', description: 'Run small remote teams across time zones' }],
      products: [{ name: 'Fieldnote', description: 'Shared notes that replace status meetings' }],
    },
  });
  // In sandbox, channels connect at once; in live mode this would return an authorize_url.
  const { channel: x } = await client.channels.connect(brand.id, { platform: 'x' });
  const { channel: linkedin } = await client.channels.connect(brand.id, { platform: 'linkedin' });
  step(1, `Brand "${brand.name}" (${brand.id}) with ${x?.handle} on X and ${linkedin?.handle} on LinkedIn`);

  // 2. Knowledge the model can draw on.
  const { note } = await client.brands.memory.addKnowledge(brand.id, {
    title: 'Why async standups',
    body: 'Teams across four time zones lose an hour a day to status meetings; written check-ins take five minutes.',
  });
  step(2, `Knowledge note "${note.title}" added to Brand Memory`);

  // 3. Ideas come from signals (trends, questions, mentions...); each idea cites its signal.
  await client.insights.signals.create(brand.id, {
    kind: 'trend',
    title: 'Async standups are trending',
    summary: 'Team leads are talking about dropping the daily meeting.',
    strength: 0.8,
  });
  const { ideas } = await client.ideas.generate({ brand_id: brand.id, count: 2 });
  const idea = ideas[0];
  step(3, `${ideas.length} idea(s) suggested; using "${idea.title}" (from signal "${idea.signal?.title}")`);

  // 4. One draft per platform, each within its platform's limit.
  const { drafts } = await client.drafts.generate({ idea_id: idea.id, platforms: ['x', 'linkedin'] });
  for (const d of drafts) {
    step(4, `${d.platform} draft v${d.version}: ${d.parts.length} part(s), fits ${d.limit} chars: ${d.fits}`);
  }
  const xDraft = drafts.find((d) => d.platform === 'x');

  // 5. Every change saves a new version; the earlier ones stay readable.
  const rewritten = await client.drafts.rewrite(xDraft.id, {
    instruction: 'Shorter, and open with a question',
  });
  step(5, `Rewrote the X draft: v${xDraft.version} -> v${rewritten.version}`);
  line(`      "${rewritten.parts[0]?.text}"`);

  // 6. Upload an image (a Buffer here; a File, Blob or a path work too) and attach it. The
  //    server makes per-platform crops; the draft gets the platform's preferred one.
  const asset = await client.media.upload(brand.id, makePng(1200, 800), {
    alt: 'A calm blue gradient',
    tags: ['weekly-plan'],
    filename: 'cover.png',
  });
  const withImage = await client.drafts.attachMedia(xDraft.id, { asset_id: asset.id });
  const attached = withImage.parts[0]?.media[0];
  step(
    6,
    `Uploaded ${asset.width}x${asset.height} image ${asset.id}; attached the "${attached?.variant}" crop (v${withImage.version})`,
  );

  // Publish the X draft and two quick posts now, so the brand has a history: a verdict
  // compares a post with the median of at least three others on the same platform.
  await client.posts.publish({ draft_id: xDraft.id });
  for (const text of [
    'What does your team do instead of a standup?',
    'Three written check-ins beat one meeting.',
  ]) {
    await client.posts.publish({ channel_id: x.id, text });
  }

  // 7. The weekly_plan agent: reads last week, finds open best-time slots, suggests ideas from
  //    new signals, drafts them, voice-checks each draft and queues approvals. It never publishes.
  await client.insights.signals.create(brand.id, {
    kind: 'question',
    title: 'How do you keep written updates short?',
    strength: 0.9,
  });
  const run = await client.agents.run('weekly_plan', { inputs: { brandId: brand.id, platforms: ['x'] } });
  step(7, `weekly_plan ${run.status}: ${run.steps.map((s) => s.name).join(' -> ')}`);
  for (const s of run.steps) line(`      ${s.name}: ${s.detail} (${s.duration_ms} ms)`);

  // The queue lists pending approvals first, with counts.
  const queue = await client.approvals.list({ brand_id: brand.id, status: 'pending' });
  line(`      ${queue.counts.pending} approval(s) pending for a person`);

  // 8. Approving is a person's action: the REST API may take it because it acts as the person
  //    (an MCP key never can). The post is scheduled into the approval's slot.
  const pending = queue.approvals[0];
  if (!pending) throw new Error('weekly_plan queued no approval');
  const approved = await client.approvals.approve(pending.id);
  const voice = approved.voice_check?.passed ? 'passed' : 'has findings';
  step(8, `Approved ${approved.id} (voice check ${voice}); scheduled for ${approved.slot}`);

  // 9. Advance the sandbox clock past the slot and the 72 h after it, when metrics settle.
  const until = new Date(new Date(approved.slot).getTime() + 73 * HOUR).toISOString();
  const advanced = await client.sandboxClock.advance({ to: until });
  step(
    9,
    `Sandbox clock -> ${advanced.now}: ${advanced.published.length} published, ${advanced.snapshots} metric snapshots`,
  );

  // 10. The post is live, with metrics, a growth curve and a verdict against the brand's median.
  const post = await client.posts.retrieve(approved.post_id);
  const m = post.metrics;
  step(10, `Post ${post.id} is ${post.status} at ${post.permalink}`);
  line(`      ${m?.impressions} impressions, ${m?.engagements} engagements, ${post.growth.length} snapshots`);
  line(
    `      verdict: ${post.outcome.verdict} (x${post.outcome.ratio?.toFixed(2)} the median of ${post.outcome.compared_with} posts)`,
  );
  line();
  line(`Done: brand ${brand.id}, post ${post.id}, verdict ${post.outcome.verdict}.`);
}

main().catch((error) => {
  if (error instanceof ContentApiError && error.status === undefined) {
    process.stderr.write(`Cannot reach the content service at ${serviceUrl}: is it running (npm start)?\n`);
  } else if (error instanceof ContentApiError) {
    process.stderr.write(`The service refused a step: ${error.message} (request ${error.requestId})\n`);
  } else {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
