#!/usr/bin/env node
import { isAbsolute, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { openCommerceDatabase } from './commerce/db/open.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { openContentDatabase } from './content/db/open.js';
import { systemClock } from './platform/clock.js';
import type { SqlDatabase } from './platform/db/sql.js';
import { AppError } from './platform/errors.js';
import { randomIds } from './platform/ids.js';
import { createLogger, type Logger } from './platform/logger.js';
import { refillStatBuffer } from './platform/stat-buffer.js';
import { dropFailedWrites, noteOnStderr } from './platform/stdio-writes.js';
import type { RunningServices, ServiceName } from './server.js';
import { VERSION } from './version.js';

/**
 * The services' code (about 1 MB of JavaScript, most of a start's CPU to load) is imported by
 * the command that runs it, never up front: `start` opens the databases first (see there), and
 * the keys commands need only their own services. Code has run by then, so each import starts
 * from a clean stat buffer (stat-buffer.ts: nothing before them stats stdout or stderr today).
 */
const afterCleanStat =
  <T>(load: () => Promise<T>) =>
  () => {
    refillStatBuffer();
    return load();
  };
const loadServer = afterCleanStat(() => import('./server.js'));
const loadContentKeys = afterCleanStat(() => import('./content/services/api-keys.js'));
const loadContentStores = afterCleanStat(() => import('./content/db/stores/index.js'));
const loadCommerceKeys = afterCleanStat(() => import('./commerce/services/api-keys.js'));

const USAGE = `svc-server ${VERSION}

Usage:
  svc-server start [--only content|commerce]
  svc-server keys create --service content --name NAME --scopes read,write
  svc-server keys create --service commerce --env sandbox|live --name NAME
  svc-server keys list --service content|commerce [--json]
  svc-server keys revoke ID --service content|commerce [--json]
  svc-server migrate-to-postgres        (see svc-server migrate-to-postgres --help)
  svc-server --version

Configuration comes from the environment: SERVICE_DATA_DIR (./.data), CONTENT_PORT (3000),
COMMERCE_PORT (4000), SERVICE_HOST (127.0.0.1), SERVICE_MODE (sandbox|live), SERVICE_MODEL
(simulated|real), SERVICE_DATABASE_URL (unset: SQLite files in SERVICE_DATA_DIR; postgres://...:
both services on PostgreSQL, schemas content and commerce; keys commands write there too).
See the README for the full list.`;

/** The database URL as it may be printed: a password never reaches a terminal or a log. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

class UsageError extends Error {}
/** A well-formed command that cannot be carried out (an unknown key id): exit 1, not 64. */
class CommandError extends Error {}

function fail(message: string, code?: number): never {
  noteOnStderr(`svc-server: ${message}\n`);
  process.exit(code ?? (message.startsWith('Invalid configuration') ? 78 : 64));
}

async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { only: { type: 'string' } }, strict: true });
  if (values.only !== undefined && values.only !== 'content' && values.only !== 'commerce') {
    throw new UsageError(`--only must be 'content' or 'commerce' (got '${values.only}').`);
  }
  const config = loadConfig();

  // Handlers go in before anything starts, so a signal during start-up is honoured too
  // (Node's default would kill the process with databases half-open).
  let running: RunningServices | null = null;
  let stopRequested: string | null = null;
  const shutdown = (why: string) => {
    if (stopRequested) return;
    stopRequested = why;
    noteOnStderr(`svc-server: ${why}, finishing requests in flight...\n`);
    if (running) stopAndExit(running);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM received'));
  process.on('SIGINT', () => shutdown('SIGINT received'));
  stopWhenOrphaned(() => shutdown('the npm/npx process that started svc-server has gone'));

  const only = values.only as ServiceName | undefined;
  // The logger is made once the services' code is loaded: its look at stderr is a stat that must
  // not come before that load (stat-buffer.ts). A migration's notes (SQLite opens at once) wait.
  let logger: Logger | undefined;
  const notes: [ServiceName, string][] = [];
  const note = (service: ServiceName) => (message: string) => {
    if (logger) logger.child({ service }).warn(message);
    else notes.push([service, message]);
  };
  const databases = await openDatabasesFirst(config, only, note);
  const { startServices } = await loadServer();
  logger = createLogger({ level: config.logLevel });
  for (const [service, message] of notes) logger.child({ service }).warn(message);
  running = await startServices({ config, logger, databases, ...(only ? { only } : {}) });
  if (stopRequested) return stopAndExit(running);
  // A script that reads the URLs below and then closes its end of the pipe must not stop the
  // server it started: a write to stdout that fails, now or later, is dropped.
  dropFailedWrites(process.stdout);
  for (const s of running.services) {
    const label = s.name === 'content' ? 'content  ' : 'commerce ';
    const extra = s.name === 'content' ? `  (REST ${s.url}/v1, MCP ${s.url}/mcp)` : `  (API ${s.url}/v1)`;
    process.stdout.write(`${label} ${s.url}${extra}\n`);
  }
  const database = config.databaseUrl ? `, database: ${withoutPassword(config.databaseUrl)}` : '';
  process.stdout.write(
    `data      ${config.dataDir}  (mode: ${config.mode}, model: ${config.model}${database})\n`,
  );
  // On stderr: stdout's first lines are the contract scripts parse; this is for the person.
  noteOnStderr(nextSteps(running, cliCommand()));
}

/**
 * Starts opening the services' databases, and resolves once what is left of each open is the
 * database's own work, with the opens in flight for startServices to take over (and close).
 *
 * Opening a database on PostgreSQL is mostly waiting on the server: a first start's migrations
 * are about 120 ms of DDL there (content's schema; commerce's runs beside it). Sent before the
 * services' code is loaded, they run beside that load (a few hundred ms of CPU) instead of after
 * it. This waits until they are sent, not done: the load is one synchronous stretch, and the
 * round trips leading up to the batch (connect, the lock) would wait for its end. A failure stays
 * in its promise until startServices reports it, as before.
 */
async function openDatabasesFirst(
  config: Config,
  only: ServiceName | undefined,
  note: (service: ServiceName) => (message: string) => void,
): Promise<Partial<Record<ServiceName, Promise<SqlDatabase>>>> {
  const databases: Partial<Record<ServiceName, Promise<SqlDatabase>>> = {};
  const handedOver: Promise<void>[] = [];
  for (const [service, open] of [
    ['content', openContentDatabase],
    ['commerce', openCommerceDatabase],
  ] as const) {
    if (only && only !== service) continue;
    let sent = () => {};
    const migrating = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const opening = open(config, note(service), sent);
    const settled = opening.then(
      () => undefined,
      () => undefined,
    );
    databases[service] = opening;
    handedOver.push(Promise.race([migrating, settled]));
  }
  await Promise.all(handedOver);
  return databases;
}

/** How the person typed this command, so the hints can be pasted: `svc-server`, `npx svc-server` or `node path/cli.js`. */
function cliCommand(): string {
  const script = process.argv[1] ?? '';
  if (/[\\/]node_modules[\\/]\.bin[\\/]/.test(script)) return 'npx svc-server';
  if (/[\\/]dist[\\/]cli\.js$/.test(script)) {
    const rel = relative(process.cwd(), script);
    return `node ${rel.startsWith('..') || isAbsolute(rel) ? script : rel}`;
  }
  return 'svc-server';
}

/** What to do next, printed once the services listen: keys, the API reference, the app, help. */
export function nextSteps(running: RunningServices, cli: string): string {
  const url = (name: ServiceName) => running.services.find((s) => s.name === name)?.url;
  const content = url('content');
  const commerce = url('commerce');
  const lines = ['', 'Next steps', '  Make an API key (this works while the server runs):'];
  if (content) lines.push(`    ${cli} keys create --service content --name my-agent --scopes read,write`);
  if (commerce) lines.push(`    ${cli} keys create --service commerce --env sandbox --name my-app`);
  lines.push(`    ${cli} keys list --service ${content ? 'content' : 'commerce'}   (and keys revoke ID)`);
  lines.push('  API reference:');
  if (content) lines.push(`    content   ${content}/docs`);
  if (commerce) lines.push(`    commerce  ${commerce}/docs`);
  if (content) {
    lines.push(`  The app: ${content}/`);
    lines.push(`  MCP clients: ${content}/mcp with "Authorization: Bearer <content key>"`);
  }
  lines.push('  Stuck? docs/troubleshooting.md. Stop with Ctrl-C (SIGINT) or SIGTERM.', '');
  return `${lines.join('\n')}\n`;
}

/**
 * `npx svc-server start` (and `npm start`) run this process as npm -> sh -c -> node. npm forwards
 * SIGTERM and SIGINT to that shell only, and a shell that forks instead of exec-ing (dash,
 * Debian's and Ubuntu's sh) dies of the signal without passing it on, leaving the server
 * running with no parent. So when a package manager started us, losing our parent counts as a
 * stop signal. Outside npm/pnpm (systemd, nohup, a terminal) nothing changes.
 */
function stopWhenOrphaned(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, 250);
  timer.unref();
}

function stopAndExit(running: RunningServices): void {
  running.stop().then(
    () => process.exit(0),
    (err) => {
      noteOnStderr(`svc-server: error during shutdown: ${String(err)}\n`);
      process.exit(1);
    },
  );
}

async function keysCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      service: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      env: { type: 'string' },
    },
    strict: true,
  });
  const name = values.name?.trim();
  if (!name) throw new UsageError('--name is required.');
  const config = loadConfig();
  const deps = { clock: systemClock, ids: randomIds };

  if (values.service === 'content') {
    const scopes = (values.scopes ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const { SCOPES, createContentApiKey } = await loadContentKeys();
    const { contentStores } = await loadContentStores();
    const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (scopes.length === 0 || bad.length > 0) {
      throw new UsageError(
        `--scopes must list read and/or write, comma-separated (got '${values.scopes ?? ''}').`,
      );
    }
    const db = await openContentDatabase(config);
    try {
      const { key } = await createContentApiKey(contentStores(db), deps, {
        name,
        scopes: scopes as ('read' | 'write')[],
      });
      process.stdout.write(`${key}\n`);
    } finally {
      await db.close();
    }
    return;
  }
  if (values.service === 'commerce') {
    if (values.env !== 'sandbox' && values.env !== 'live') {
      throw new UsageError(`--env must be 'sandbox' or 'live' (got '${values.env ?? ''}').`);
    }
    const { createCommerceApiKey } = await loadCommerceKeys();
    const db = await openCommerceDatabase(config);
    try {
      const { key } = await createCommerceApiKey(db, deps, { env: values.env, name });
      process.stdout.write(`${key}\n`);
    } finally {
      await db.close();
    }
    return;
  }
  throw new UsageError(`--service must be 'content' or 'commerce' (got '${values.service ?? ''}').`);
}

type KeyService = 'content' | 'commerce';

function keyService(value: string | undefined): KeyService {
  if (value === 'content' || value === 'commerce') return value;
  throw new UsageError(`--service must be 'content' or 'commerce' (got '${value ?? ''}').`);
}

/** Left-aligned columns separated by two spaces, headers in capitals: easy to read and to `awk`. */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

async function keysList(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { service: { type: 'string' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  const service = keyService(values.service);
  const config = loadConfig();
  const [{ listContentApiKeys }, { contentStores }, { DEFAULT_ACCOUNT_ID, listApiKeys }] = await Promise.all([
    loadContentKeys(),
    loadContentStores(),
    loadCommerceKeys(),
  ]);
  const db = service === 'content' ? await openContentDatabase(config) : await openCommerceDatabase(config);
  try {
    const keys =
      service === 'content'
        ? await listContentApiKeys(contentStores(db))
        : (await listApiKeys(db, DEFAULT_ACCOUNT_ID))
            .filter((k) => k.revoked_at === null)
            .map(({ account_id: _account, ...k }) => k);
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ api_keys: keys }, null, 2)}\n`);
      return;
    }
    if (keys.length === 0) {
      process.stdout.write(
        `No active ${service} API keys. Create one with: svc-server keys create --service ${service} ...\n`,
      );
      return;
    }
    const headers = [
      'ID',
      service === 'content' ? 'SCOPES' : 'ENV',
      'NAME',
      'PREFIX',
      'CREATED',
      'LAST USED',
    ];
    const rows = keys.map((k) => [
      k.id,
      'scopes' in k ? k.scopes.join(',') : k.env,
      k.name,
      `${k.prefix}...`,
      k.created_at,
      k.last_used_at ?? 'never',
    ]);
    process.stdout.write(table(headers, rows));
  } finally {
    await db.close();
  }
}

/** Where `keys revoke` names the instances it had to wait out (their caches' leases ran out). */
const stderrWaits = {
  warn: (fields: { instances: string[] }, message: string) => {
    process.stderr.write(`${message}: ${fields.instances.join(', ')}\n`);
  },
};

async function keysRevoke(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { service: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const service = keyService(values.service);
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0) throw new UsageError('keys revoke takes exactly one key id (see keys list).');
  const config = loadConfig();
  const [{ revokeContentApiKeyOnce }, { contentStores }, { DEFAULT_ACCOUNT_ID, revokeApiKey }] =
    await Promise.all([loadContentKeys(), loadContentStores(), loadCommerceKeys()]);
  const db = service === 'content' ? await openContentDatabase(config) : await openCommerceDatabase(config);
  try {
    // One instant for the whole command: a commerce key whose revoked_at is not this instant
    // was revoked earlier (revokeApiKey keeps the first time).
    const now = systemClock.now();
    const deps = { clock: { now: () => now } };
    const outcome =
      service === 'content'
        ? // Waits until every running instance has dropped its cached copy of the key (or until
          // their caches' leases have run out): the key fails on every instance once this returns.
          await revokeContentApiKeyOnce(
            {
              stores: contentStores(db),
              db,
              transaction: (fn) => db.transaction((tx) => fn(contentStores(tx))),
            },
            { ...deps, logger: stderrWaits },
            id,
          )
        : // The same wait as above, on the commerce key epoch (migration 16).
          await revokeApiKey(db, { ...deps, logger: stderrWaits }, DEFAULT_ACCOUNT_ID, id).then((apiKey) => ({
            apiKey,
            revoked_at: apiKey.revoked_at ?? now.toISOString(),
            already_revoked: apiKey.revoked_at !== now.toISOString(),
          }));
    const { apiKey, already_revoked, revoked_at } = outcome;
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ id: apiKey.id, name: apiKey.name, revoked_at, already_revoked })}\n`,
      );
    } else if (already_revoked) {
      process.stdout.write(
        `${apiKey.id} (${apiKey.name}) was already revoked at ${revoked_at}; nothing changed.\n`,
      );
    } else {
      process.stdout.write(
        `Revoked ${service} key ${apiKey.id} (${apiKey.name}); requests with it now get 401.\n`,
      );
    }
  } catch (err) {
    if (err instanceof AppError && err.status === 404) {
      throw new CommandError(
        `no ${service} API key with id '${id}'. List them with: svc-server keys list --service ${service}`,
      );
    }
    throw err;
  } finally {
    await db.close();
  }
}

const MIGRATE_TO_POSTGRES_USAGE = `Usage: svc-server migrate-to-postgres

Moves a SQLite deployment into PostgreSQL: the rows of content.sqlite and commerce.sqlite in
SERVICE_DATA_DIR (./.data) go into the database at SERVICE_DATABASE_URL (postgres://...), one
schema per service (content, commerce).

  1. Stop svc-server. The SQLite files are only read; they stay as they are.
  2. SERVICE_DATABASE_URL=postgres://... SERVICE_DATA_DIR=/var/lib/svc svc-server migrate-to-postgres
  3. Start svc-server with SERVICE_DATABASE_URL set.

It brings the target up to this svc-server's schema first, then copies every table in one
transaction per service (0/1 flags become booleans) and prints the rows per table. It refuses,
writing nothing, when a SQLite file is at another schema version than this svc-server (start
this version on it once first) or when the target already holds rows. Media files are not
copied: they stay in SERVICE_DATA_DIR/media, which the services keep using.`;

async function migrateToPostgresCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    process.stdout.write(`${MIGRATE_TO_POSTGRES_USAGE}\n`);
    return;
  }
  const config = loadConfig();
  if (!config.databaseUrl) {
    throw new UsageError(
      `migrate-to-postgres needs SERVICE_DATABASE_URL=postgres://... (the database to fill).\n\n${MIGRATE_TO_POSTGRES_USAGE}`,
    );
  }
  // Imported here: it brings the `pg` driver, which a start on SQLite never loads.
  const { MigrationRefused, migrateToPostgres } = await import('./migrate-to-postgres.js');
  try {
    await migrateToPostgres({
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      out: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (err) {
    if (err instanceof MigrationRefused) throw new CommandError(err.message);
    throw err;
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'start') return start(sub === undefined ? rest : [sub, ...rest]);
  if (command === 'keys' && sub === 'create') return keysCreate(rest);
  if (command === 'keys' && sub === 'list') return keysList(rest);
  if (command === 'keys' && sub === 'revoke') return keysRevoke(rest);
  if (command === 'migrate-to-postgres')
    return migrateToPostgresCommand(sub === undefined ? rest : [sub, ...rest]);
  throw new UsageError(`unknown command '${argv.join(' ')}'.\n\n${USAGE}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof UsageError) fail(err.message);
  if (err instanceof CommandError) fail(err.message, 1);
  if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE') {
    fail(
      `a port is already in use (${(err as Error & { address?: string; port?: number }).port ?? ''}). Set CONTENT_PORT / COMMERCE_PORT.`,
    );
  }
  if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
    fail(err.message);
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
