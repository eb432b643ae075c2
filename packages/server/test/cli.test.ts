import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, runCliAsync } from './helpers/cli.js';
import { createTestPostgresDatabase, type TestPostgresDatabase, testEngine } from './helpers/database.js';

/** On the PostgreSQL run, every command here (server and keys alike) shares one fresh database. */
let database: TestPostgresDatabase | undefined;
beforeAll(async () => {
  if (testEngine === 'postgres') database = await createTestPostgresDatabase();
});
afterAll(() => database?.drop());

function env(dataDir: string, extra: Record<string, string> = {}) {
  return {
    ...process.env,
    ...(database ? { SERVICE_DATABASE_URL: database.url } : {}),
    SERVICE_DATA_DIR: dataDir,
    CONTENT_PORT: '0',
    COMMERCE_PORT: '0',
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

function runCli(args: string[], envVars: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [cli, ...args], { env: envVars, encoding: 'utf8', timeout: 20_000 });
}

/**
 * The command-line contract the README and the docs rely on, exercised on the built bin. Every
 * command is a whole process start (about a second; several on a loaded machine), so the tests
 * here get more time than the suite's default; they run the bin without blocking this process,
 * because a blocked event loop misses the server closing an idle keep-alive socket.
 */
describe('svc-server', { timeout: 60_000 }, () => {
  let dataDir: string;
  let server: ChildProcess;
  let stdout = '';
  let stderr = '';
  let urls: { content: string; commerce: string };

  beforeAll(async () => {
    if (!existsSync(cli))
      throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    server = spawn(process.execPath, [cli, 'start'], { env: env(dataDir, { SERVICE_SEED: 'none' }) });
    server.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    urls = await new Promise((resolve, reject) => {
      server.stdout?.on('data', (chunk) => {
        stdout += chunk;
        const content = /^content\s+(\S+)/m.exec(stdout)?.[1];
        const commerce = /^commerce\s+(\S+)/m.exec(stdout)?.[1];
        if (content && commerce && /^data\s/m.test(stdout)) resolve({ content, commerce });
      });
      server.once('exit', (code) => reject(new Error(`exited early with ${code}: ${stdout}`)));
    });
  });

  afterAll(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints one line per service with its base URL, then where the data lives', () => {
    expect(stdout).toMatch(/^content\s+http:\/\/127\.0\.0\.1:\d+ /m);
    expect(stdout).toMatch(/^commerce\s+http:\/\/127\.0\.0\.1:\d+ /m);
    expect(stdout).toContain(dataDir);
    if (database) expect(stdout).toContain(`database: ${database.url}`);
  });

  it('keeps stdout to those three lines and tells the person what to do next on stderr', async () => {
    await new Promise<void>((resolve) => {
      const poll = () => (stderr.includes('Stuck?') ? resolve() : setTimeout(poll, 20));
      poll();
    });
    expect(
      stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['content', 'commerce', 'data']);
    expect(stderr).toMatch(/node \S*cli\.js keys create --service content --name \S+ --scopes read,write/);
    expect(stderr).toMatch(/node \S*cli\.js keys create --service commerce --env sandbox/);
    expect(stderr).toContain(`${urls.content}/docs`);
    expect(stderr).toContain(`${urls.commerce}/docs`);
    expect(stderr).toContain(`The app: ${urls.content}/`);
    expect(stderr).toContain(`${urls.content}/mcp`);
  });

  it('runs through the published bin, a committed file that loads the build', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8'));
    const res = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '..', pkg.bin['svc-server']), '--version'],
      {
        encoding: 'utf8',
      },
    );
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe(pkg.version);
  });

  it('serves health on both services', async () => {
    expect(await (await fetch(`${urls.content}/health`)).json()).toEqual({ ok: true });
    expect(await (await fetch(`${urls.commerce}/v1/health`)).json()).toEqual({ ok: true });
  });

  it('creates a content key while the server runs, printing only the key', async () => {
    const res = await runCliAsync(
      ['keys', 'create', '--service', 'content', '--name', 'cli-test', '--scopes', 'read,write'],
      env(dataDir),
    );
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^svc_[0-9A-Za-z]{32}\n$/);
    const list = await (await fetch(`${urls.content}/v1/api-keys`)).json();
    expect(list.api_keys.map((k: { name: string }) => k.name)).toContain('cli-test');
    expect(JSON.stringify(list)).not.toContain(res.stdout.trim());
  });

  it('creates a commerce key for each environment that the running server accepts', async () => {
    for (const [envName, prefix] of [
      ['sandbox', 'svc_test_'],
      ['live', 'svc_live_'],
    ] as const) {
      const res = await runCliAsync(
        ['keys', 'create', '--service', 'commerce', '--env', envName, '--name', 'cli'],
        env(dataDir),
      );
      expect(res.status).toBe(0);
      const key = res.stdout.trim();
      expect(key.startsWith(prefix)).toBe(true);
      expect(key.slice(prefix.length)).toMatch(/^[0-9A-Za-z]{32,}$/);
      const merchants = await fetch(`${urls.commerce}/v1/merchants?limit=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(merchants.status).toBe(200);
    }
  });

  it('refuses bad keys create arguments with a clear line', async () => {
    const res = await runCliAsync(
      ['keys', 'create', '--service', 'content', '--name', 'x', '--scopes', 'admin'],
      env(dataDir),
    );
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/--scopes must list read and\/or write/);
    expect(res.stdout).toBe('');
  });

  describe('keys list and revoke', () => {
    const mcpCall = (base: string, key: string) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const createKey = async (args: string[]) => {
      const res = await runCliAsync(['keys', 'create', ...args], env(dataDir));
      expect(res.status).toBe(0);
      return res.stdout.trim();
    };
    const listJson = async (service: string) => {
      const res = await runCliAsync(['keys', 'list', '--service', service, '--json'], env(dataDir));
      expect(res.status).toBe(0);
      return JSON.parse(res.stdout).api_keys as Array<Record<string, unknown>>;
    };

    it('revokes a content key while the server runs: the next MCP request gets 401 and REST stops listing it', async () => {
      const key = await createKey(['--service', 'content', '--name', 'to-revoke', '--scopes', 'read']);
      expect((await mcpCall(urls.content, key)).status).toBe(200);

      const listed = (await listJson('content')).find((k) => k.name === 'to-revoke');
      expect(listed).toMatchObject({ scopes: ['read'], prefix: key.slice(0, 12) });
      expect(JSON.stringify(await listJson('content'))).not.toContain(key);
      const table = await runCliAsync(['keys', 'list', '--service', 'content'], env(dataDir));
      expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+SCOPES\s+NAME\s+PREFIX\s+CREATED\s+LAST USED$/);
      expect(table.stdout).toMatch(new RegExp(`^${listed?.id}\\s+read\\s+to-revoke\\s`, 'm'));

      const revoke = await runCliAsync(
        ['keys', 'revoke', String(listed?.id), '--service', 'content'],
        env(dataDir),
      );
      expect(revoke.status).toBe(0);
      expect(revoke.stdout).toMatch(new RegExp(`^Revoked content key ${listed?.id} \\(to-revoke\\)`));

      const refused = await mcpCall(urls.content, key);
      expect(refused.status).toBe(401);
      expect(JSON.stringify(await refused.json())).toMatch(/revoked/);
      const rest = await (await fetch(`${urls.content}/v1/api-keys`)).json();
      expect(rest.api_keys.map((k: { id: string }) => k.id)).not.toContain(listed?.id);
      expect((await listJson('content')).map((k) => k.id)).not.toContain(listed?.id);

      const again = await runCliAsync(
        ['keys', 'revoke', String(listed?.id), '--service', 'content', '--json'],
        env(dataDir),
      );
      expect(again.status).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ id: listed?.id, already_revoked: true });
    });

    it('lists commerce keys with their environment and revokes one: the next request gets 401', async () => {
      const key = await createKey(['--service', 'commerce', '--env', 'live', '--name', 'live-to-revoke']);
      const call = () =>
        fetch(`${urls.commerce}/v1/merchants?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      expect((await call()).status).toBe(200);

      const listed = (await listJson('commerce')).find((k) => k.name === 'live-to-revoke');
      expect(listed).toMatchObject({ env: 'live', prefix: key.slice(0, 12), revoked_at: null });
      expect(listed).not.toHaveProperty('key_hash');
      const table = await runCliAsync(['keys', 'list', '--service', 'commerce'], env(dataDir));
      expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+ENV\s+NAME\s/);
      expect(table.stdout).toMatch(new RegExp(`^${listed?.id}\\s+live\\s+live-to-revoke\\s`, 'm'));

      const revoke = await runCliAsync(
        ['keys', 'revoke', String(listed?.id), '--service', 'commerce'],
        env(dataDir),
      );
      expect(revoke.status).toBe(0);
      expect(revoke.stdout).toMatch(/^Revoked commerce key/);
      const refused = await call();
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe('INVALID_API_KEY');
      expect((await listJson('commerce')).map((k) => k.id)).not.toContain(listed?.id);

      const again = await runCliAsync(
        ['keys', 'revoke', String(listed?.id), '--service', 'commerce'],
        env(dataDir),
      );
      expect(again.status).toBe(0);
      expect(again.stdout).toMatch(/was already revoked at .*; nothing changed/);
    });

    it.each(['content', 'commerce'])(
      'refuses to revoke an unknown %s key id with a clear error',
      async (service) => {
        const res = await runCliAsync(
          ['keys', 'revoke', 'key_doesnotexist', '--service', service],
          env(dataDir),
        );
        expect(res.status).toBe(1);
        expect(res.stdout).toBe('');
        expect(res.stderr).toMatch(new RegExp(`no ${service} API key with id 'key_doesnotexist'`));
      },
    );

    it('refuses keys list without a valid --service', async () => {
      const res = await runCliAsync(['keys', 'list', '--service', 'billing'], env(dataDir));
      expect(res.status).toBe(64);
      expect(res.stderr).toMatch(/--service must be 'content' or 'commerce'/);
    });
  });

  it.each([
    [{ CONTENT_PORT: 'abc' }, /CONTENT_PORT must be a port number/],
    [{ SERVICE_MODE: 'production' }, /SERVICE_MODE must be one of sandbox, live \(got 'production'\)/],
    [{ SERVICE_MODEL: 'gpt' }, /SERVICE_MODEL must be one of simulated, real/],
    [
      { SERVICE_MODE: 'live' },
      /SERVICE_SECRET_KEY is required with SERVICE_MODE=live .*openssl rand -base64 32/,
    ],
    [
      { SERVICE_MODE: 'live', SERVICE_SECRET_KEY: 'hunter2hunter2' },
      /SERVICE_SECRET_KEY is too short: it decodes to 10 bytes, and at least 32 random bytes are needed/,
    ],
    [{ SERVICE_SECRET_KEY: '0'.repeat(64) }, /SERVICE_SECRET_KEY looks typed rather than random/],
    [
      { SERVICE_LINKEDIN_CLIENT_ID: 'li-app' },
      /SERVICE_LINKEDIN_CLIENT_SECRET is required when SERVICE_LINKEDIN_CLIENT_ID is set/,
    ],
    [
      { SERVICE_X_CLIENT_SECRET: 'shh' },
      /SERVICE_X_CLIENT_ID is required when SERVICE_X_CLIENT_SECRET is set/,
    ],
    [{ SERVICE_THREADS_API_URL: 'graph.threads.net' }, /SERVICE_THREADS_API_URL must be an absolute URL/],
    [{ SERVICE_DATABASE_URL: 'mysql://db/svc' }, /SERVICE_DATABASE_URL must be a postgres:\/\/ .*URL/],
    [
      { SERVICE_DATABASE_POOL_SIZE: '1' },
      /SERVICE_DATABASE_POOL_SIZE must be a whole number of connections, at least 2/,
    ],
    [
      { SERVICE_MCP_LOG_RETENTION_DAYS: '90d' },
      /SERVICE_MCP_LOG_RETENTION_DAYS must be a whole number of days, from 0 to 36500 \(got '90d'\)/,
    ],
    [
      { SERVICE_MCP_LOG_RETENTION_DAYS: '-1' },
      /SERVICE_MCP_LOG_RETENTION_DAYS must be a whole number of days, from 0 to 36500 \(got '-1'\)/,
    ],
    [
      { SERVICE_MCP_LOG_RETENTION_DAYS: '1e9' },
      /SERVICE_MCP_LOG_RETENTION_DAYS must be a whole number of days, from 0 to 36500 \(got '1e9'\)/,
    ],
  ])('stops start-up on bad configuration %o with one line naming the setting', (bad, message) => {
    const res = runCli(['start'], env(dataDir, bad));
    expect(res.status).toBe(78);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(message);
  });

  it('starts one service with --only, and stops on SIGINT', async () => {
    const only = spawn(process.execPath, [cli, 'start', '--only', 'commerce'], { env: env(dataDir) });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      only.stdout?.on('data', (chunk) => {
        out += chunk;
        if (/^data\s/m.test(out)) resolve();
      });
      only.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    expect(out).toMatch(/^commerce\s/m);
    expect(out).not.toMatch(/^content\s/m);
    const exited = new Promise<number | null>((resolve) => only.once('exit', (code) => resolve(code)));
    only.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('stops when started through npm exec and the shell npm forwards SIGTERM to dies without passing it on', async () => {
    // npm exec runs `sh -c "'svc-server' 'start'"` and forwards SIGTERM to that shell only; dash
    // forks rather than execs, so killing the shell alone used to leave the server orphaned.
    const viaShell = spawn('sh', ['-c', `'${process.execPath}' '${cli}' 'start' '--only' 'commerce'`], {
      env: env(dataDir, { npm_lifecycle_event: 'npx' }),
    });
    let out = '';
    let err = '';
    viaShell.stderr?.on('data', (c) => {
      err += c;
    });
    const url = await new Promise<string>((resolve, reject) => {
      viaShell.stdout?.on('data', (chunk) => {
        out += chunk;
        const found = /^commerce\s+(\S+)/m.exec(out)?.[1];
        if (found && /^data\s/m.test(out)) resolve(found);
      });
      viaShell.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    expect((await fetch(`${url}/v1/health`)).status).toBe(200);
    // The server holds the pipe too: it closes only when the server itself has exited.
    const serverGone = new Promise<void>((resolve) => viaShell.stdout?.once('close', () => resolve()));
    viaShell.kill('SIGTERM');
    await serverGone;
    expect(err).toMatch(
      /the npm\/npx process that started svc-server has gone, finishing requests in flight/,
    );
    await expect(fetch(`${url}/v1/health`)).rejects.toThrow();
  });

  it('exits cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
