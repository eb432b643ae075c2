import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, as, BUYER, PROTOCOL, sandboxUser } from '../commerce/helpers.js';
import { runCliAsync } from '../helpers/cli.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../helpers/database.js';
import {
  freePorts,
  type Instance,
  killHard,
  nginxConfig,
  requireScaleOutTools,
  startInstance,
  startNginx,
} from '../helpers/scale-out.js';
import { api } from '../helpers/start.js';

/**
 * Issue 19's deployment, for real: three `svc-server start` processes (the built bin), each with
 * its own ports and data directory, on ONE PostgreSQL database, behind nginx (round robin, no
 * sticky sessions, on loopback). Media files live in one directory all three share
 * (SERVICE_MEDIA_DIR). Every request below goes through nginx unless it names an instance.
 *
 * The webhook check spans the file: deliveries start under load, one instance is killed with
 * kill -9 while it holds some of them and is restarted; the other checks run while the dead
 * instance's delivery leases run out; the last test sees every event delivered.
 */
const DELIVERY_LEASE_MS = 60_000;

let database: TestPostgresDatabase;
let root: string;
let instances: Instance[] = [];
let nginx: { stop(): Promise<void> } | null = null;
let contentUrl: string;
let commerceUrl: string;
let env: Record<string, string>;
let mediaDir: string;
/** The commerce key every test uses, made with `svc-server keys create` once all instances run. */
let key: string;

const cliEnv = () => ({ ...process.env, ...env, SERVICE_DATA_DIR: join(root, 'cli', '.data') });

/** A commerce key made the way an operator makes one: `svc-server keys create` on the database. */
async function makeCommerceKey(name: string): Promise<string> {
  const made = await runCliAsync(
    ['keys', 'create', '--service', 'commerce', '--env', 'sandbox', '--name', name],
    cliEnv(),
  );
  if (made.status !== 0) throw new Error(`keys create failed: ${made.stderr}`);
  return made.stdout.trim();
}

const upstreamOf = (headers: Headers) => headers.get('x-svc-upstream') ?? '';

/**
 * Waits until nginx sends requests to all three instances again: after the restart, it keeps the
 * killed instance out of the rotation for its fail_timeout, and the tests after this one expect
 * their requests spread over three.
 */
async function untilAllThreeServe(base: string, path: string) {
  const seen = new Set<string>();
  const deadline = Date.now() + 15_000;
  while (seen.size < 3 && Date.now() < deadline) {
    const res = await fetch(`${base}${path}`);
    await res.arrayBuffer();
    seen.add(upstreamOf(res.headers));
    if (seen.size < 3) await new Promise((r) => setTimeout(r, 100));
  }
  expect(seen.size, `nginx sent requests to ${[...seen].join(', ')} only`).toBe(3);
}

// --- the webhook receiver: records how many attempts of each event are in flight at once ---

interface Hook {
  eventId: string;
  attempt: number;
  at: number;
}
let receiver: Server;
let receiverUrl: string;
const hooks: Hook[] = [];
const inFlight = new Map<string, number>();
let mostAtOnce = 0;
/** Events whose first attempt the receiver fails (500): their retry must wait for the schedule. */
const failFirst = new Set<string>();

function startHookReceiver(): Promise<void> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string };
      const now = (inFlight.get(event.id) ?? 0) + 1;
      inFlight.set(event.id, now);
      mostAtOnce = Math.max(mostAtOnce, now);
      const attempt = hooks.filter((h) => h.eventId === event.id).length + 1;
      hooks.push({ eventId: event.id, attempt, at: Date.now() });
      // Slow enough that a kill lands while attempts are on the wire.
      setTimeout(() => {
        inFlight.set(event.id, (inFlight.get(event.id) ?? 1) - 1);
        const fail = attempt === 1 && event.type === 'checkout.completed' && failFirst.size < 3;
        if (fail) failFirst.add(event.id);
        res.writeHead(fail ? 500 : 200);
        res.end('ok');
      }, 150);
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => {
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  requireScaleOutTools();
  database = await createTestPostgresDatabase();
  root = mkdtempSync(join(tmpdir(), 'svc-scale-out-'));
  mediaDir = join(root, 'shared-media');
  mkdirSync(mediaDir);
  const [nginxContent, nginxCommerce, ...ports] = await freePorts(8);
  contentUrl = `http://127.0.0.1:${nginxContent}`;
  commerceUrl = `http://127.0.0.1:${nginxCommerce}`;
  env = {
    SERVICE_DATABASE_URL: database.url,
    SERVICE_DATABASE_POOL_SIZE: '4',
    SERVICE_MEDIA_DIR: mediaDir,
    SERVICE_SEED: 'none',
    SERVICE_PUBLIC_API: 'all',
    CONTENT_PUBLIC_URL: contentUrl,
    SERVICE_WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'warn',
  };
  instances = [0, 1, 2].map((i) => ({
    name: `instance ${i}`,
    dataDir: join(root, `instance-${i}`, '.data'),
    contentPort: ports[2 * i] as number,
    commercePort: ports[2 * i + 1] as number,
    content: `http://127.0.0.1:${ports[2 * i]}`,
    commerce: `http://127.0.0.1:${ports[2 * i + 1]}`,
    child: null,
  }));
  // All three at once on the empty database: the migrations' advisory lock lets one migrate.
  await Promise.all(instances.map((inst) => startInstance(inst, env)));
  const dir = join(root, 'nginx');
  nginx = await startNginx(
    dir,
    nginxConfig({
      dir,
      contentPort: nginxContent as number,
      commercePort: nginxCommerce as number,
      instances,
    }),
  );
  await startHookReceiver();
  key = await makeCommerceKey('scale-out');
}, 120_000);

afterAll(async () => {
  await nginx?.stop();
  await Promise.all(instances.map((inst) => killHard(inst)));
  // What the servers logged as errors, for a failure's diagnosis (the logs go with the temp dir).
  for (const inst of instances) {
    const log = join(inst.dataDir, '..', 'server.log');
    const errors = existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => /"level":(50|60)/.test(l))
      : [];
    if (errors.length) console.error(`${inst.name} logged errors:\n${errors.join('\n')}`);
  }
  await new Promise((resolve) => receiver?.close(resolve));
  await database?.drop();
  if (root && !process.env.SVC_KEEP_SCALE_OUT) rmSync(root, { recursive: true, force: true });
  else if (root) console.log(root);
});

describe('three svc-server instances on one PostgreSQL database behind nginx', () => {
  let endpointId: string;
  let checkoutsUnderLoad: string[] = [];
  let killedAt = 0;

  it('webhook events under load: one instance is killed with kill -9 mid-delivery and restarted', async () => {
    const app = as({ url: commerceUrl }, key);
    const endpoint = await app('POST', '/v1/webhook_endpoints', { url: receiverUrl });
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.body.id;
    const { userToken } = await sandboxUser({ url: commerceUrl }, key, { client_user_id: 'load' });
    const user = as({ url: commerceUrl }, key, userToken);
    const wave = (n: number, tag: string) =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const made = await user('POST', '/v1/checkouts', {
            product_url: `${PROTOCOL}/${tag}-${i}-price-1500`,
            buyer: BUYER,
            shipping_address: ADDRESS,
          });
          expect(made.status, JSON.stringify(made.body)).toBe(201);
          // 12 confirms of one user at once, on a loaded machine, may each lose the SERIALIZABLE
          // spending check many times; past 16 the server says 503 CONTENDED with Retry-After,
          // and a client retries, as ours do. Any other answer fails the test.
          let confirmed = await user('POST', `/v1/checkouts/${made.body.id}/confirm`);
          for (let retry = 0; retry < 3 && confirmed.body?.error?.code === 'CONTENDED'; retry++) {
            await new Promise((r) => setTimeout(r, 1000));
            confirmed = await user('POST', `/v1/checkouts/${made.body.id}/confirm`);
          }
          expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
          return made.body.id as string;
        }),
      );
    checkoutsUnderLoad = await wave(12, 'before-kill');
    // Kill instance 1 while attempts are on the wire (the receiver holds each for 150 ms).
    while (hooks.length < 10) await new Promise((r) => setTimeout(r, 20));
    await killHard(instances[1] as Instance);
    killedAt = Date.now();
    // Load goes on through nginx, which sends the dead instance's share to the others.
    const during = await wave(8, 'while-down');
    await startInstance(instances[1] as Instance, env);
    await untilAllThreeServe(commerceUrl, '/v1/health');
    await untilAllThreeServe(contentUrl, '/health');
    const after = await wave(8, 'after-restart');
    checkoutsUnderLoad = [...checkoutsUnderLoad, ...during, ...after];
    expect(mostAtOnce).toBe(1);
  }, 60_000);

  it('50 concurrent identical keyed confirms spread over the instances give exactly one order', async () => {
    const { call, userToken } = await sandboxUser({ url: commerceUrl }, key, { client_user_id: 'racer' });
    // slow-order keeps the store busy ~50 ms, so the 50 requests overlap.
    const chk = await call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/slow-order-kettle`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(chk.body.status).toBe('ready_to_confirm');
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', `/v1/checkouts/${chk.body.id}/confirm`, undefined, { 'idempotency-key': 'one-order' }),
      ),
    );
    // nginx spread them over all three.
    expect(new Set(answers.map((a) => upstreamOf(a.headers))).size).toBe(3);
    const successes = answers.filter((a) => a.status === 200);
    const others = answers.filter((a) => a.status !== 200);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    for (const a of successes) expect(a.body).toEqual(successes[0]?.body);
    expect(successes[0]?.body.status).toBe('completed');
    // Never a second run of the confirm: every other answer is "still being processed".
    for (const a of others) {
      expect(a.status, JSON.stringify(a.body)).toBe(409);
      expect(a.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
    const orders = (await call('GET', '/v1/orders')).body.orders;
    expect(orders).toHaveLength(1);
    // Afterwards every instance replays the one answer.
    for (const inst of instances) {
      const replay = await as({ url: inst.commerce }, key, userToken)(
        'POST',
        `/v1/checkouts/${chk.body.id}/confirm`,
        undefined,
        { 'idempotency-key': 'one-order' },
      );
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(successes[0]?.body);
    }
  }, 60_000);

  it('50 concurrent identical keyed checkout creations spread over the instances create one checkout', async () => {
    // Unlike confirm, creating a checkout has no state of its own to fall back on: only the
    // key's claim stands between 50 requests and 50 checkouts.
    const { call } = await sandboxUser({ url: commerceUrl }, key, { client_user_id: 'creator' });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(
          'POST',
          '/v1/checkouts',
          { product_url: `${PROTOCOL}/once-lamp-price-2500`, buyer: BUYER, shipping_address: ADDRESS },
          { 'idempotency-key': 'one-checkout' },
        ),
      ),
    );
    expect(new Set(answers.map((a) => upstreamOf(a.headers))).size).toBe(3);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.id))).toEqual(new Set([created[0]?.body.id]));
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status, JSON.stringify(a.body)).toBe(409);
      expect(a.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
  });

  it('a key revoked with `svc-server keys revoke` is refused by every instance on the next request', async () => {
    const doomed = await makeCommerceKey('doomed');
    for (const inst of instances)
      expect((await as({ url: inst.commerce }, doomed)('GET', '/v1/merchants')).status).toBe(200);
    const listed = await runCliAsync(['keys', 'list', '--service', 'commerce', '--json'], cliEnv());
    const id = (JSON.parse(listed.stdout) as { api_keys: { id: string; name: string }[] }).api_keys.find(
      (k) => k.name === 'doomed',
    )?.id;
    expect(id).toBeDefined();
    const revoked = await runCliAsync(['keys', 'revoke', id as string, '--service', 'commerce'], cliEnv());
    expect(revoked.status, revoked.stderr).toBe(0);
    for (const inst of instances) {
      const refused = await as({ url: inst.commerce }, doomed)('GET', '/v1/merchants');
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('INVALID_API_KEY');
    }
    // And through nginx, whichever instance answers.
    for (let i = 0; i < 3; i++)
      expect((await as({ url: commerceUrl }, doomed)('GET', '/v1/merchants')).status).toBe(401);
  });

  it('a media file uploaded through one instance is served by the others', async () => {
    const brand = await api(contentUrl, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    expect(brand.status).toBe(201);
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#2a6f97' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cover.png');
    const uploaded = await fetch(`${instances[0]?.content}/v1/brands/${brand.body.id}/media`, {
      method: 'POST',
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const asset = (await uploaded.json()) as { id: string; variants: Record<string, { url: string }> };
    const paths = Object.values(asset.variants).map((v) => new URL(v.url).pathname);
    expect(paths.length).toBeGreaterThan(1);
    for (const path of paths) {
      const bodies = await Promise.all(
        instances.map(async (inst) => {
          const res = await fetch(`${inst.content}${path}`);
          expect(res.status, `${inst.name} ${path}`).toBe(200);
          return Buffer.from(await res.arrayBuffer());
        }),
      );
      for (const b of bodies) expect(b.equals(bodies[0] as Buffer)).toBe(true);
    }
    // The files are in the shared media directory, not in the uploading instance's data directory.
    expect(existsSync(join(mediaDir, asset.id))).toBe(true);
    expect(existsSync(join(instances[0]?.dataDir as string, 'media', asset.id))).toBe(false);
    // The asset itself, too, from every instance.
    for (const inst of instances)
      expect((await api(inst.content, 'GET', `/v1/media/${asset.id}`)).status).toBe(200);
  });

  it('a due automation and a scheduled post fire once, with the shared sandbox clock moved through the API', async () => {
    const brand = await api(contentUrl, 'POST', '/v1/brands', { body: { name: 'Once' } });
    const channel = await api(contentUrl, 'POST', `/v1/brands/${brand.body.id}/channels/connect`, {
      body: { platform: 'x' },
    });
    expect(channel.status).toBe(201);
    // The three advances below move the shared clock 3 hours, and the fire is counted on its
    // local day: started after 21:00 the clock would be on the next day when the fire is read
    // (runs_today 0). So the test starts at 06:xx server local time, the next day.
    // Counted to 06:00 by the calendar, not as 24 - hour + 6 hours, which is an hour off across a
    // DST change in the server's zone.
    const before = new Date((await api(contentUrl, 'GET', '/v1/sandbox/clock')).body.now);
    const morning = new Date(before);
    morning.setDate(morning.getDate() + 1);
    morning.setHours(6, 0, 0, 0);
    const toMorning = await api(contentUrl, 'POST', '/v1/sandbox/clock/advance', {
      body: { minutes: Math.ceil((morning.getTime() - before.getTime()) / 60_000) },
    });
    expect(toMorning.status, JSON.stringify(toMorning.body)).toBe(200);
    const now = new Date((await api(contentUrl, 'GET', '/v1/sandbox/clock')).body.now);
    expect(now.getHours()).toBe(6);
    // Server local time, as the trigger's hour is; due within the next two hours.
    const hour = (now.getHours() + 1) % 24;
    const scheduled = await api(contentUrl, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.body.id,
        name: 'Morning digest',
        agent_id: 'digest',
        trigger: { type: 'schedule', every: 'day', hour },
      },
    });
    expect(scheduled.status).toBe(201);
    const onPublish = await api(contentUrl, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.body.id,
        name: 'Digest on publish',
        agent_id: 'digest',
        trigger: { type: 'event', event: 'post.published' },
      },
    });
    expect(onPublish.status).toBe(201);
    const post = await api(contentUrl, 'POST', '/v1/posts', {
      body: {
        channel_id: channel.body.channel.id,
        text: 'Three instances, one post.',
        scheduled_for: new Date(now.getTime() + 60 * 60_000).toISOString(),
      },
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);

    // Three advances at once, one per instance (round robin): each runs the due work it finds.
    const advances = await Promise.all(
      [0, 1, 2].map(() => api(contentUrl, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 1 } })),
    );
    for (const a of advances) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(new Set(advances.map((a) => upstreamOf(a.headers))).size).toBe(3);
    // Another pass on each instance finds nothing left to do.
    for (const inst of instances)
      expect(
        (await api(inst.content, 'POST', '/v1/sandbox/clock/advance', { body: { minutes: 1 } })).status,
      ).toBe(200);

    const published = await api(contentUrl, 'GET', `/v1/posts/${post.body.id}`);
    expect(published.body.status).toBe('published');
    const fires = async (id: string) => {
      const runs = await api(contentUrl, 'GET', '/v1/agent-runs?agent_id=digest&limit=100');
      return runs.body.agent_runs.filter((r: { automation_id: string }) => r.automation_id === id).length;
    };
    // The post event reaches its automation through the events outbox: wait for it, then for more.
    for (let i = 0; i < 100 && (await fires(onPublish.body.id)) === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await fires(onPublish.body.id)).toBe(1);
    expect(await fires(scheduled.body.id)).toBe(1);
    const auto = await api(contentUrl, 'GET', `/v1/automations/${scheduled.body.id}`);
    expect(auto.body.runs_today + auto.body.skipped_today).toBe(1);
  }, 60_000);

  it("every webhook event was delivered, none twice at once; the killed instance's claims came back and the retry schedule held", async () => {
    const deliveries = async () =>
      (
        await api(
          instances[0]?.commerce as string,
          'GET',
          `/dashboard/api/deliveries?endpoint_id=${endpointId}&limit=200`,
        )
      ).body.deliveries as {
        event_id: string;
        status: string;
        attempts: { at: string; response_status: number | null }[];
        next_attempt_at: string | null;
      }[];
    // Deliveries the dead instance held come back when their lease runs out.
    const deadline = killedAt + DELIVERY_LEASE_MS + 15_000;
    let list = await deliveries();
    // Done: delivered, or failed once on purpose and waiting for its retry.
    const settled = (d: (typeof list)[number]) =>
      d.status === 'succeeded' ||
      (failFirst.has(d.event_id) && d.attempts.length === 1 && d.status === 'pending');
    while (list.some((d) => !settled(d)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      list = await deliveries();
    }
    expect(list.length).toBeGreaterThan(checkoutsUnderLoad.length);
    expect(list.filter((d) => !settled(d))).toEqual([]);
    // Every event that reached the receiver was sent one attempt at a time.
    expect(mostAtOnce).toBe(1);
    const received = new Set(hooks.map((h) => h.eventId));
    for (const d of list) if (d.status === 'succeeded') expect(received.has(d.event_id)).toBe(true);
    // A failed first attempt waits for its retry: about a minute (±10%), never sooner.
    // The receiver answered 500 to each of these; an instance killed before it recorded that answer
    // never scheduled a retry (its claim came back when the lease ran out), so only a recorded 500
    // says when the schedule started. At least one must have been recorded.
    expect(failFirst.size).toBeGreaterThan(0);
    let scheduled = 0;
    for (const id of failFirst) {
      const d = list.find((x) => x.event_id === id);
      expect(d, `delivery of ${id}`).toBeDefined();
      const failed = d?.attempts.findIndex((a) => a.response_status === 500) ?? -1;
      if (!d || failed === -1) continue;
      scheduled++;
      const first = Date.parse(d.attempts[failed]?.at ?? '');
      const next = d.attempts[failed + 1];
      const retry = next ? Date.parse(next.at) : Date.parse(d.next_attempt_at ?? '');
      expect(retry - first).toBeGreaterThanOrEqual(54_000);
      expect(retry - first).toBeLessThanOrEqual(66_000 + 5_000);
    }
    expect(scheduled).toBeGreaterThan(0);
  }, 120_000);
});
