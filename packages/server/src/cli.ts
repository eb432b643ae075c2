#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { openCommerceDatabase } from './commerce/app.js';
import { createCommerceApiKey } from './commerce/services/api-keys.js';
import { ConfigError, loadConfig } from './config.js';
import { openContentDatabase } from './content/app.js';
import { createContentApiKey, SCOPES } from './content/services/api-keys.js';
import { systemClock } from './platform/clock.js';
import { randomIds } from './platform/ids.js';
import { type RunningServices, type ServiceName, startServices } from './server.js';
import { VERSION } from './version.js';

const USAGE = `svc-server ${VERSION}

Usage:
  svc-server start [--only content|commerce]
  svc-server keys create --service content --name NAME --scopes read,write
  svc-server keys create --service commerce --env sandbox|live --name NAME
  svc-server --version

Configuration comes from the environment: SERVICE_DATA_DIR (./.data), CONTENT_PORT (3000),
COMMERCE_PORT (4000), SERVICE_HOST (127.0.0.1), SERVICE_MODE (sandbox|live), SERVICE_MODEL
(simulated|real). See the README for the full list.`;

class UsageError extends Error {}

function fail(message: string): never {
  process.stderr.write(`svc-server: ${message}\n`);
  process.exit(message.startsWith('Invalid configuration') ? 78 : 64);
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
  const shutdown = (signal: string) => {
    if (stopRequested) return;
    stopRequested = signal;
    process.stderr.write(`svc-server: ${signal} received, finishing requests in flight...\n`);
    if (running) stopAndExit(running);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  running = await startServices({
    config,
    ...(values.only ? { only: values.only as ServiceName } : {}),
  });
  if (stopRequested) return stopAndExit(running);
  for (const s of running.services) {
    const label = s.name === 'content' ? 'content  ' : 'commerce ';
    const extra = s.name === 'content' ? `  (REST ${s.url}/v1, MCP ${s.url}/mcp)` : `  (API ${s.url}/v1)`;
    process.stdout.write(`${label} ${s.url}${extra}\n`);
  }
  process.stdout.write(`data      ${config.dataDir}  (mode: ${config.mode}, model: ${config.model})\n`);
}

function stopAndExit(running: RunningServices): void {
  running.stop().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`svc-server: error during shutdown: ${String(err)}\n`);
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
    const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (scopes.length === 0 || bad.length > 0) {
      throw new UsageError(
        `--scopes must list read and/or write, comma-separated (got '${values.scopes ?? ''}').`,
      );
    }
    const db = openContentDatabase(config.dataDir);
    try {
      const { key } = await createContentApiKey(db, deps, { name, scopes: scopes as ('read' | 'write')[] });
      process.stdout.write(`${key}\n`);
    } finally {
      db.close();
    }
    return;
  }
  if (values.service === 'commerce') {
    if (values.env !== 'sandbox' && values.env !== 'live') {
      throw new UsageError(`--env must be 'sandbox' or 'live' (got '${values.env ?? ''}').`);
    }
    const db = openCommerceDatabase(config.dataDir);
    try {
      const { key } = await createCommerceApiKey(db, deps, { env: values.env, name });
      process.stdout.write(`${key}\n`);
    } finally {
      db.close();
    }
    return;
  }
  throw new UsageError(`--service must be 'content' or 'commerce' (got '${values.service ?? ''}').`);
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
  throw new UsageError(`unknown command '${argv.join(' ')}'.\n\n${USAGE}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof UsageError) fail(err.message);
  if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE') {
    fail(
      `a port is already in use (${(err as Error & { address?: string; port?: number }).port ?? ''}). Set CONTENT_PORT / COMMERCE_PORT.`,
    );
  }
  if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
    fail(err.message);
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
