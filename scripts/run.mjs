#!/usr/bin/env node
// The README's two commands, `npm start` and `npm test`, must work on a machine that has only
// Node.js and npm. This script installs the workspace with pnpm 10 (through npx when pnpm is
// not on the PATH), builds what the command needs, and then runs it. `screenshots` is the third:
// it refreshes docs/screenshots/ from the browser tests, which a plain test run never writes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresProjects, splitProjectFilters } from './engine-projects.mjs';
import { fetchPlatformSpecs, PlatformSpecsError } from './platform-specs.mjs';
import { mergeReports, summarize } from './test-summary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...rest] = process.argv.slice(2);

// pnpm's "update available" box is noise on a first run; the packageManager field pins pnpm anyway.
const quiet = { ...process.env, npm_config_update_notifier: 'false' };

function pnpmCommand() {
  const probe = spawnSync('pnpm', ['--version'], {
    encoding: 'utf8',
    shell: process.platform === 'win32',
    env: quiet,
  });
  if (probe.status === 0 && /^10\./.test(probe.stdout.trim())) return ['pnpm'];
  return ['npx', '--yes', 'pnpm@10'];
}

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
    env: quiet,
    ...opts,
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/**
 * Whether a PostgreSQL server answers at SVC_TEST_POSTGRES_URL (the tests' default otherwise),
 * asked with the server package's own driver. Never throws: a no is a reason to print.
 */
async function postgresAnswers() {
  const url = process.env.SVC_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  try {
    const pg = createRequire(join(root, 'packages/server/package.json'))('pg');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      await client.query('SELECT 1');
    } finally {
      await client.end();
    }
    return { ok: true, url };
  } catch (err) {
    return { ok: false, url, reason: String(err?.message ?? err).split('\n')[0] };
  }
}

function ensureInstalled(pnpm) {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lock = join(root, 'pnpm-lock.yaml');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  process.stderr.write('Installing dependencies (first run compiles better-sqlite3; about a minute)...\n');
  run(pnpm[0], [...pnpm.slice(1), 'install', '--frozen-lockfile']);
}

/** Each workspace package directory `name` needs built, with the directories it depends on (itself included). */
function workspaceClosure(name) {
  const byName = new Map();
  for (const dir of readdirSync(join(root, 'packages'))) {
    const file = join(root, 'packages', dir, 'package.json');
    if (existsSync(file))
      byName.set(JSON.parse(readFileSync(file, 'utf8')).name, join(root, 'packages', dir));
  }
  const closures = new Map();
  const visit = (pkg) => {
    const dir = byName.get(pkg);
    if (!dir) return [];
    if (closures.has(dir)) return closures.get(dir);
    const closure = new Set([dir]);
    closures.set(dir, closure);
    const { dependencies = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const [dep, range] of Object.entries(dependencies))
      if (String(range).startsWith('workspace:')) for (const d of visit(dep)) closure.add(d);
    return closure;
  };
  visit(name);
  return closures;
}

/** Newest and oldest modification times of the files under `path` (a file or a folder). */
function mtimes(path, acc = { newest: 0, oldest: Number.POSITIVE_INFINITY, files: 0 }) {
  if (!existsSync(path)) return acc;
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const entry of readdirSync(path)) mtimes(join(path, entry), acc);
  } else {
    acc.newest = Math.max(acc.newest, st.mtimeMs);
    acc.oldest = Math.min(acc.oldest, st.mtimeMs);
    acc.files += 1;
  }
  return acc;
}

/**
 * The build is current when every file in each package's dist/ is newer than every file it is
 * built from: its own and its workspace dependencies' src/, scripts/ (build steps such as
 * copying assets), package.json, tsconfig and tsup config, plus the shared TypeScript config and the lockfile. A few hundred stat calls instead
 * of ~30 s of tsup. SVC_REBUILD=1 forces a build. Returns true, or why a build is needed.
 */
function buildIsCurrent(closures) {
  if (process.env.SVC_REBUILD === '1') return 'SVC_REBUILD=1';
  const sources = (dir) => {
    const acc = { newest: 0, oldest: Number.POSITIVE_INFINITY, files: 0 };
    for (const input of ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsup.config.ts'])
      mtimes(join(dir, input), acc);
    return acc.newest;
  };
  const shared = mtimes(join(root, 'tsconfig.base.json'));
  for (const file of ['tsconfig.json', 'pnpm-lock.yaml']) mtimes(join(root, file), shared);
  for (const [dir, closure] of closures) {
    const dist = mtimes(join(dir, 'dist'));
    if (dist.files === 0) return 'first build';
    const newestInput = Math.max(shared.newest, ...[...closure].map(sources));
    if (dist.oldest <= newestInput) return 'sources changed since the last build';
  }
  return true;
}

/**
 * The platforms' published documents the contract tests validate against, verified in
 * .cache/platform-specs/: from the ../shared mirror when present, else downloaded once (what
 * `pnpm specs:fetch` does). Without them, one line saying why, and no test run.
 */
async function platformSpecs() {
  try {
    await fetchPlatformSpecs();
  } catch (err) {
    if (!(err instanceof PlatformSpecsError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

const pnpm = pnpmCommand();
ensureInstalled(pnpm);

if (command === 'start') {
  const current = buildIsCurrent(workspaceClosure('@svc/server'));
  if (current !== true) {
    process.stderr.write(`Building @svc/server (${current})...\n`);
    run(pnpm[0], [...pnpm.slice(1), '--filter', '@svc/server...', 'run', 'build'], {
      stdio: ['inherit', 'ignore', 'inherit'],
    });
  }
  // The server's V8 flags (packages/server/bin/node-flags.js), unless NODE_OPTIONS names them.
  const { missingNodeFlags, RELAUNCHED } = await import('../packages/server/bin/node-flags.js');
  const flags = process.env[RELAUNCHED] ? [] : missingNodeFlags([], process.env.NODE_OPTIONS);
  const child = spawn(
    process.execPath,
    [...flags, join(root, 'packages/server/dist/cli.js'), 'start', ...rest],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  // `npm start` is npm -> sh -c -> this script. npm forwards SIGTERM to the shell only, and dash
  // dies of it without passing it on: when our parent goes, stop the server ourselves.
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    child.kill('SIGTERM');
  }, 250);
  watch.unref();
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (command === 'test') {
  run(pnpm[0], [...pnpm.slice(1), 'run', 'build']);
  await platformSpecs();
  const reports = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const vitest = (name, args, env = quiet) => {
    const file = join(reports, `${name}.json`);
    const result = spawnSync(
      join(root, 'node_modules/.bin/vitest'),
      ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`, ...args],
      { cwd: root, stdio: 'inherit', env },
    );
    return {
      status: result.status,
      report: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined,
    };
  };
  // Every project on SQLite, then again on PostgreSQL (when one answers) every project whose
  // tests start a server (scripts/engine-projects.mjs says which, and why the others run once).
  const runs = [vitest('sqlite', rest)];
  const filters = splitProjectFilters(rest);
  const onPostgres = postgresProjects(filters.projects);
  const postgres = onPostgres.length ? await postgresAnswers() : { ok: false, notNeeded: true };
  let postgresNote;
  if (postgres.ok) {
    process.stdout.write(`\nAgain on PostgreSQL (${postgres.url}): ${onPostgres.join(', ')}...\n`);
    runs.push(
      vitest('postgres', [...onPostgres.flatMap((p) => ['--project', p]), ...filters.others], {
        ...quiet,
        SVC_TEST_DATABASE: 'postgres',
      }),
    );
  } else if (postgres.notNeeded) {
    postgresNote = 'PostgreSQL: not needed, none of the chosen projects starts a server.';
    process.stdout.write(`\n${postgresNote}\n`);
  } else {
    postgresNote = `PostgreSQL: not tested, nothing answered at ${postgres.url} (${postgres.reason}); start PostgreSQL 15 there, or point SVC_TEST_POSTGRES_URL at one where this user may create databases.`;
    process.stdout.write(`\n${postgresNote}\n`);
  }
  const { line, failed, broken } = summarize(mergeReports(runs.map((r) => r.report)));
  for (const f of broken)
    process.stdout.write(
      `\n${f.loaded ? 'Failed outside a test' : 'Failed to load'}: ${f.file}: ${f.reason}`,
    );
  process.stdout.write(`\nEngines: SQLite${postgres.ok ? ' and PostgreSQL' : ' only'}\n`);
  if (postgresNote) process.stdout.write(`${postgresNote}\n`);
  process.stdout.write(`${line}\n`);
  // CI must never pass without the PostgreSQL run (.ci/run provides a server).
  const missingInCi = !postgres.ok && !postgres.notNeeded && Boolean(process.env.CI);
  process.exit(runs.find((r) => r.status)?.status || (failed || missingInCi ? 1 : 0));
} else if (command === 'screenshots') {
  // The browser tests with SVC_SCREENSHOTS=1 (test/helpers/app-pages.ts writes only then): the
  // app's, and the commerce pages' (dashboard and hosted pages).
  run(pnpm[0], [...pnpm.slice(1), '--filter', '@svc/server...', 'run', 'build'], {
    stdio: ['inherit', 'ignore', 'inherit'],
  });
  await platformSpecs();
  // `pnpm screenshots test/content/app-plan-browser` refreshes only the pictures those files take.
  const scoped = rest.some((a) => a.startsWith('test/'));
  const files = scoped ? [] : ['test/content/app-', 'test/commerce/pages-axe-browser'];
  run(join(root, 'node_modules/.bin/vitest'), ['run', '--project', 'server', ...files, ...rest], {
    env: { ...quiet, SVC_SCREENSHOTS: '1' },
  });
  process.stdout.write('\nScreenshots written to docs/screenshots/ (review them with git diff --stat)\n');
} else {
  process.stderr.write('usage: node scripts/run.mjs start|test|screenshots\n');
  process.exit(64);
}
