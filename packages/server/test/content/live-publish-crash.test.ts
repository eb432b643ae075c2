import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startXFake, type XFake } from '../fakes/x-fake.js';
import { type BuiltServer, killHard as kill, startBuilt } from '../helpers/built-server.js';
import { binFiles, cli } from '../helpers/cli.js';
import { connectLive } from '../helpers/live.js';
import { api, type TestService } from '../helpers/start.js';

/**
 * kill -9 of the built server (`svc-server start`, live mode) while X holds the publish call:
 * X has stored the tweet but never answers. After a restart on the same data directory the post
 * must be `unconfirmed` (start-up recovery finds the attempt without an outcome), and X must
 * still hold exactly one tweet: the service never sends it again. Both engines; a second
 * instance beside the restarted one on the same database must not send it either.
 */
const SECRET = 'x-crash-secret';

function start(files: ReturnType<typeof binFiles>, fake: XFake, secretKey: string): Promise<BuiltServer> {
  return startBuilt('content', {
    ...files.env(),
    SERVICE_MODE: 'live',
    SERVICE_SECRET_KEY: secretKey,
    SERVICE_X_CLIENT_ID: fake.clientId,
    SERVICE_X_CLIENT_SECRET: SECRET,
    SERVICE_X_API_URL: fake.url,
    SERVICE_X_AUTH_URL: fake.authUrl,
  });
}

/** Resolves once the fake has stored a tweet (it then holds the answer forever). */
async function tweetStored(fake: XFake) {
  while (fake.tweets.size === 0) await new Promise((r) => setTimeout(r, 20));
}

describe('kill -9 during a live publish', () => {
  // A dot-folder in the data directory's path, as the house rules ask.
  const files = binFiles('.svc-live-crash-');
  let fake: XFake;
  let server: BuiltServer | null = null;
  let beside: BuiltServer | null = null;

  beforeAll(async () => {
    if (!existsSync(cli))
      throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
    fake = await startXFake({ clientSecret: SECRET });
  });
  afterAll(async () => {
    await Promise.all([server && kill(server), beside && kill(beside)]);
    await fake.close();
  });

  it('leaves the post unconfirmed after a restart, and X holds exactly one tweet', async () => {
    const secretKey = randomBytes(32).toString('base64');
    server = await start(files, fake, secretKey);
    const brand = await api(server.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    const channel = await connectLive({ url: server.url } as TestService, brand.body.id, 'x');

    fake.failNext('POST /2/tweets', { kind: 'hang', afterAccept: true });
    const publishing = api(server.url, 'POST', '/v1/posts', {
      body: { channel_id: channel.id, text: 'Out, but nobody heard back.' },
    }).catch(() => null); // the server dies before it answers
    await tweetStored(fake);
    await kill(server);
    expect(await publishing).toBeNull();

    [server, beside] = await Promise.all([start(files, fake, secretKey), start(files, fake, secretKey)]);
    const posts = await api(server.url, 'GET', '/v1/posts');
    expect(posts.body.posts).toHaveLength(1);
    const [post] = posts.body.posts;
    expect(post.status).toBe('unconfirmed');
    expect(post.notice).toContain('the server stopped while x was being called');
    expect(post.notice).toContain(`POST /v1/posts/${post.id}/confirm`);
    expect((await api(beside.url, 'GET', `/v1/posts/${post.id}`)).body.status).toBe('unconfirmed');
    expect(fake.tweets.size).toBe(1);
    expect(fake.requests.filter((r) => r === 'POST /2/tweets')).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  }, 60_000);
});
