// The whole live flow on this machine: the content service in live mode with the real-model
// adapter, connected through OAuth to X, LinkedIn, Instagram and Threads, publishing at the
// approved slots and reading metrics and replies back. The platforms and the model are the local
// fakes from packages/server/test/fakes, which this script starts on loopback. Each fake checks
// every request against the platform's published contract (../shared/platform-specs), so this
// runs inside the svc repository checkout:
//
//   pnpm --filter @svc/example-live-local start
//
// Everything the app does goes through @svc/content-client, as a real app would. Only two things
// are the example's own: it starts the fakes, and it moves the server's clock (a ManualClock) to
// the slots instead of waiting for them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentApiError, ContentClient } from '@svc/content-client';
import {
  createContentApp,
  createLogger,
  listen,
  loadConfig,
  ManualClock,
  randomIds,
  silentLogger,
} from '@svc/server';
import { startInstagramFake } from '../../packages/server/test/fakes/instagram-fake.ts';
import { startLinkedInFake } from '../../packages/server/test/fakes/linkedin-fake.ts';
import { startOpenAiFake } from '../../packages/server/test/fakes/openai-fake.ts';
import { startThreadsFake } from '../../packages/server/test/fakes/threads-fake.ts';
import { startXFake } from '../../packages/server/test/fakes/x-fake.ts';
import { makePng } from '../content-weekly-plan/png.mjs';

const HOUR = 3_600_000;
const PLATFORMS = ['x', 'linkedin', 'instagram', 'threads'];
const SNAPSHOT_AGES_H = [1, 3, 6, 12, 24, 48, 72];

const line = (text = '') => process.stdout.write(`${text}\n`);
let n = 0;
const step = (text) => line(`${String(++n).padStart(2)}. ${text}`);
const detail = (text) => line(`      ${text}`);

/**
 * The model: an OpenAI-compatible chat completions server. A real one (Ollama, OpenAI) writes
 * from the prompt; this stand-in answers with fixed, publishable copy per platform.
 */
function localModel(req) {
  const prompt = req.messages.map((m) => m.content).join('\n');
  if (/Suggest \d+ post ideas/.test(prompt)) {
    const [, signalId] = prompt.match(/- id (\S+) \(/) ?? [];
    return JSON.stringify({
      ideas: [
        {
          title: 'Written check-ins instead of the daily standup',
          angle: 'What changed for a team across four time zones, for team leads',
          notes: 'Standups cost the team an hour a day; written check-ins take five minutes.',
          signal_id: signalId,
        },
      ],
    });
  }
  const platform = prompt.match(/Platform: (X|LinkedIn|Instagram|Threads)/)?.[1];
  const posts = {
    X: [
      'We dropped the daily standup. Written check-ins take each of us five minutes.',
      'The hour we got back goes to the work the standup was about.',
    ],
    LinkedIn: [
      'Our team spans four time zones, and the daily standup cost us an hour a day. We replaced it with a written check-in: what I did, what is next, what is in my way. It takes five minutes, and nobody joins a call at 7 a.m. What would you drop first?',
    ],
    Instagram: [
      'Four time zones, zero standups. A written check-in takes five minutes and nobody waits on a call. #remotework #teamleads',
    ],
    Threads: [
      'Four time zones, no daily standup: a five-minute written check-in instead. What would you drop?',
    ],
  };
  return JSON.stringify({ parts: posts[platform] ?? posts.LinkedIn });
}

/** A free loopback port, so CONTENT_PUBLIC_URL can be set before the server starts. */
async function freePort() {
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  return port;
}

/**
 * The browser: follows the platform's authorise page (the fake says yes), then the callback,
 * carrying the cookie the connect set (the callback refuses a browser that did not start it).
 */
async function authorizeInBrowser(authorizeUrl, cookie) {
  const consent = await fetch(authorizeUrl, { redirect: 'manual' });
  const callback = consent.headers.get('location');
  if (consent.status !== 302 || !callback) throw new Error(`The authorise page answered ${consent.status}.`);
  const back = await fetch(callback, { redirect: 'manual', headers: { cookie } });
  const landing = new URL(back.headers.get('location') ?? '/', callback);
  const connected = landing.searchParams.get('connected');
  if (!connected) throw new Error(`The callback sent the browser to ${landing.pathname}${landing.search}.`);
  return connected;
}

async function main() {
  // The fakes, on loopback. The X fake takes the client secret our "app" was registered with.
  const xSecret = randomBytes(16).toString('hex');
  const x = await startXFake({ clientSecret: xSecret });
  const linkedin = await startLinkedInFake();
  const instagram = await startInstagramFake();
  const threads = await startThreadsFake();
  const model = await startOpenAiFake({ respond: localModel });
  const fakes = { x, linkedin, instagram, threads };
  const apps = {
    x: { id: x.clientId, secret: xSecret, api: x.url, auth: x.authUrl },
    ...Object.fromEntries(
      [linkedin, instagram, threads].map((f, i) => [
        PLATFORMS[i + 1],
        { id: f.clientId, secret: f.clientSecret, api: f.url, auth: f.authUrl },
      ]),
    ),
  };

  // The configuration: exactly the variables a user sets for the real platforms.
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-live-local-'));
  const env = {
    SERVICE_MODE: 'live',
    SERVICE_SECRET_KEY: randomBytes(32).toString('base64'),
    SERVICE_MODEL: 'real',
    SERVICE_MODEL_BASE_URL: model.baseUrl,
    SERVICE_MODEL_NAME: 'local-fake-model',
    ...Object.fromEntries(
      PLATFORMS.flatMap((p) => {
        const P = p.toUpperCase();
        return [
          [`SERVICE_${P}_CLIENT_ID`, apps[p].id],
          [`SERVICE_${P}_CLIENT_SECRET`, apps[p].secret],
          [`SERVICE_${P}_API_URL`, apps[p].api],
          [`SERVICE_${P}_AUTH_URL`, apps[p].auth],
        ];
      }),
    ),
    CONTENT_PORT: String(port),
    CONTENT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Only because everything runs on loopback: Instagram and Threads are given image URLs on
    // this server. The real platforms need CONTENT_PUBLIC_URL to be a public https address.
    SERVICE_MEDIA_ALLOW_PRIVATE: '1',
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SEED: 'none',
    // PostgreSQL instead of SQLite in SERVICE_DATA_DIR when the caller sets it (the example's
    // test does on its PostgreSQL run).
    ...(process.env.SERVICE_DATABASE_URL ? { SERVICE_DATABASE_URL: process.env.SERVICE_DATABASE_URL } : {}),
  };
  step('Started the platform fakes on loopback; the server runs with this configuration:');
  for (const [name, value] of Object.entries(env)) {
    const shown = /SECRET_KEY$/.test(name) ? '<32 random bytes, base64, made for this run>' : value;
    detail(`${name}=${shown}`);
  }

  const config = loadConfig(env);
  // The server's clock only moves when told: the example fast-forwards it to the slots. It starts
  // at a fixed instant (Monday 5 January 2026, 09:00 UTC, the ManualClock's default, as in the
  // other examples' tests), not at the real time: the slots the planner picks, how far apart they
  // fall and so which snapshots each post gets depend on the day of the week and the hour, and
  // the example's test checks the story it prints, so it must be the same story on every run.
  const clock = new ManualClock();
  const handle = await createContentApp({
    config,
    clock,
    ids: randomIds,
    // The server's own log (stderr) only when asked: LOG_LEVEL=warn pnpm … start
    logger: process.env.LOG_LEVEL ? createLogger({ level: process.env.LOG_LEVEL }) : silentLogger(),
  });
  const server = await listen(handle, '127.0.0.1', port);
  const closeAll = async () => {
    await server.stop();
    await Promise.all([...Object.values(fakes), model].map((f) => f.close()));
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const client = new ContentClient({ baseUrl: server.url, timeoutMs: 60_000 });
    await story(client, server.url, handle, clock, fakes);
    const violations = [...Object.entries(fakes), ['model', model]].flatMap(([name, f]) =>
      f.violations.map((v) => `${name}: ${v}`),
    );
    if (violations.length)
      throw new Error(`The fakes saw requests outside the platforms' contracts:\n${violations.join('\n')}`);
    line();
    line('Every request followed the platforms’ published contracts: 0 violations.');
  } finally {
    await closeAll();
  }
}

async function story(client, url, handle, clock, fakes) {
  const mode = await client.mode.retrieve();
  if (mode.mode !== 'live' || mode.model !== 'real') throw new Error(`The server is in ${mode.label}.`);
  step(`The content service is up at ${url} ${mode.label}`);

  const brand = await client.brands.create({
    name: 'Fieldnote (live-local example)',
    memory: {
      voice: {
        summary: 'Plain, practical, a little dry. Show, do not tell.',
        do: ['Lead with a concrete example'],
        avoid: ['Hype', 'Exclamation marks'],
        banned_words: ['synergy', 'game-changer'],
      },
      audiences: [{ name: 'Team leads', description: 'Run small remote teams across time zones' }],
      products: [{ name: 'Fieldnote', description: 'Shared notes that replace status meetings' }],
    },
  });
  step(`Created brand "${brand.name}" (${brand.id}) with its voice and banned words`);

  await client.insights.signals.create(brand.id, {
    kind: 'trend',
    title: 'Async standups are trending',
    summary: 'Team leads are talking about dropping the daily meeting.',
    strength: 0.8,
  });
  step('Added a signal for the planner: "Async standups are trending"');

  step('Connecting each platform through its OAuth flow (connect → authorise page → callback):');
  for (const platform of PLATFORMS) {
    const { data: started, response } = await client.channels.connect(brand.id, { platform }).withResponse();
    // A browser keeps the connect's cookie by itself; here, its name=value is passed on by hand.
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
    const channelId = await authorizeInBrowser(started.authorize_url, cookie);
    const channel = await client.channels.retrieve(channelId);
    detail(`${platform}: ${channel.handle} (${channel.display_name}) is ${channel.status}`);
  }

  // A verdict compares a post with the median of at least three others on its platform: give X
  // a short history, published now.
  const xChannel = (await client.channels.list({ brand_id: brand.id })).channels.find(
    (c) => c.platform === 'x',
  );
  for (const text of ['Standup notes, week 45.', 'Standup notes, week 46.', 'Standup notes, week 47.'])
    await client.posts.publish({ channel_id: xChannel.id, text });
  step('Published three short posts on X now, so the planned X post has a median to be compared with');

  const run = await client.agents.run('weekly_plan', { inputs: { brandId: brand.id, count: 1 } });
  step(`weekly_plan ${run.status} with the real-model adapter: ${run.steps.map((s) => s.name).join(' -> ')}`);
  const tokens = run.steps.reduce((sum, s) => sum + (s.usage?.total_tokens ?? 0), 0);
  detail(`${tokens} model tokens recorded on the run's steps`);
  if (run.status !== 'succeeded') throw new Error(`weekly_plan ${run.status}: ${run.error?.message}`);

  // Instagram has no text-only posts: every draft gets the same image, cropped per platform.
  const asset = await client.media.upload(brand.id, makePng(1200, 1200), {
    alt: 'A calm blue square',
    filename: 'cover.png',
  });
  const queue = await client.approvals.list({ brand_id: brand.id, status: 'pending' });
  step(
    `Uploaded a ${asset.width}x${asset.height} image and attached it to each of the ${queue.approvals.length} drafts`,
  );
  for (const a of queue.approvals) await client.drafts.attachMedia(a.draft.id, { asset_id: asset.id });

  step('Approving every approval (a person’s action):');
  const approved = [];
  for (const a of queue.approvals) {
    const done = await client.approvals.approve(a.id);
    approved.push(done);
    detail(`${a.channel.platform}: scheduled for ${done.slot}`);
  }

  // One timeline: every slot, and every snapshot age after each slot, in order. Walking the
  // slots first and the snapshots after would let a post whose slot comes days before another's
  // age past its 72 h window while the clock waits for the last slot (on some days of the week
  // the slots are that far apart), and it would be read only once or twice.
  step('Fast-forwarding the server’s clock; a real server publishes when the slot comes,');
  detail('then reads each post’s metrics 1 h to 72 h after it while the audience reacts:');
  const slots = [...new Set(approved.map((a) => Date.parse(a.slot)))];
  const timeline = [
    ...new Set(slots.flatMap((slot) => [slot, ...SNAPSHOT_AGES_H.map((h) => slot + h * HOUR)])),
  ].sort((a, b) => a - b);
  let snapshots = 0;
  let growth = 0;
  for (const at of timeline) {
    // The audience reacts as time passes: counts grow on the fakes before each read.
    if (at > timeline[0]) audienceReacts(fakes, ++growth);
    clock.set(at);
    const pass = await handle.pass();
    if (pass.failed.length)
      throw new Error(`Posts failed at ${new Date(at).toISOString()}: ${pass.failed.join(', ')}`);
    snapshots += pass.snapshots;
  }
  for (const a of approved) {
    const post = await client.posts.retrieve(a.post_id);
    if (post.status !== 'published')
      throw new Error(`${post.platform} post ${post.id} is ${post.status}: ${post.failure ?? post.notice}`);
    detail(`${post.platform}: published at ${post.published_at}: ${post.permalink}`);
  }
  detail(`${snapshots} snapshots read from the platforms`);

  const posts = approved.map((a) => ({ id: a.post_id }));
  step('What came back:');
  for (const p of posts) {
    const post = await client.posts.retrieve(p.id);
    const m = post.metrics;
    const { replies } = await client.posts.replies(p.id);
    const heard = replies.map((r) => `${r.author}: ${r.theme}`).join(', ');
    detail(
      m
        ? `${post.platform}: ${m.impressions} impressions, ${m.engagements} engagements over ${post.growth.length} snapshots; ${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}${heard ? ` (${heard})` : ''}; verdict: ${post.outcome.verdict}`
        : // LinkedIn's analytics scope is granted only on request (docs/content/live.md).
          `${post.platform}: no metrics could be read (verdict: ${post.outcome.verdict}); on LinkedIn they need the r_member_postAnalytics scope`,
    );
  }
}

/**
 * The audience, played by the example: counts grow on the fakes with each step of time, and
 * people reply once. The planned posts do better than X's three short history posts.
 */
function audienceReacts(fakes, growth) {
  for (const t of fakes.x.tweets.values()) {
    if (t.authorId !== fakes.x.user.id) continue;
    const planned = !t.text.startsWith('Standup notes');
    Object.assign(t.metrics, { impressions: 120 * growth, likes: (planned ? 6 : 2) * growth });
    if (planned && t.replyTo === null && t.metrics.replies === 0)
      fakes.x.reply(t.id, { username: 'maya', text: 'How long did the switch take?' });
  }
  for (const p of fakes.linkedin.posts.values())
    Object.assign(p.metrics, { impressions: 200 * growth, reactions: 9 * growth, comments: growth });
  for (const fake of [fakes.instagram, fakes.threads]) {
    for (const p of fake.posts.values()) {
      if (p.replyTo !== null) continue;
      Object.assign(p.insights, { views: 150 * growth, likes: 7 * growth, shares: growth });
      if (p.replies.length === 0)
        p.replies.push({
          id: `${p.id}1`,
          text: 'Love this, thanks for sharing!',
          username: 'dev_tom',
          timestamp: '2026-01-05T10:00:00+0000',
        });
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    if (error instanceof ContentApiError) {
      process.stderr.write(`The service refused a step: ${error.message} (request ${error.requestId})\n`);
    } else {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exit(1);
  },
);
