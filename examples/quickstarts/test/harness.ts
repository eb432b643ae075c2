// Runs a Markdown quick start exactly as written. The fenced blocks a reader acts on are marked in
// their info string, which GitHub and npm ignore after the language, so the docs render as usual:
//
//   ```js file=buy.mjs       written to the work folder as buy.mjs (any language)
//   ```sh                    run with bash in the work folder, in order
//   ```sh clone              the from-a-clone variant: run from the repository root
//   ```sh npm                the npm-registry variant: shown, never run (the packages are not
//                            published yet); the `clone` block after it is what runs
//   ```sh background ready=TEXT   started and left running until its stdout shows TEXT;
//                            stopped with SIGTERM at the end, and it must then exit cleanly
//
//   ```text output           what the sh block just before it prints (a background block: by the
//                            time it is ready): each line must match a line of its stdout, in
//                            order, with `...` standing for any text (ids)
//
// Every other block (```text, ```json, ```ts without file=) is for reading only. Each sh block is
// its own bash process (`set -eo pipefail`); what it exports is passed on to the next ones, as in
// the reader's terminal. The work folder sits inside examples/quickstarts, so `@svc/*` imports
// resolve through this package's node_modules, as the docs tell readers with a clone to do.
// The only substitution is through the environment: the caller sets the variables the docs tell
// readers to set (SERVICE_API_URL, ...) to the test servers' values.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createTestEngineDatabase } from '@svc/server/testing';

export const packageDir = join(import.meta.dirname, '..');
export const repoRoot = join(packageDir, '..', '..');

export interface Block {
  lang: string;
  attrs: Record<string, string | true>;
  code: string;
  /** 1-based line of the opening fence, for error messages. */
  line: number;
}

/** The fenced blocks of `markdown`, optionally only those in the `## {section}` section. */
export function parseBlocks(markdown: string, section?: string): Block[] {
  let text = markdown;
  let offset = 0;
  if (section) {
    const start = markdown.search(new RegExp(`^## ${section}\\s*$`, 'm'));
    if (start < 0) throw new Error(`no "## ${section}" section`);
    const rest = markdown.slice(start + 3);
    const end = rest.search(/^## /m);
    text = markdown.slice(start, end < 0 ? undefined : start + 3 + end);
    offset = start;
  }
  const blocks: Block[] = [];
  for (const m of text.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm)) {
    const [lang = '', ...words] = (m[1] ?? '').trim().split(/\s+/);
    const attrs: Record<string, string | true> = {};
    for (const word of words) {
      const eq = word.indexOf('=');
      if (eq < 0) attrs[word] = true;
      else attrs[word.slice(0, eq)] = word.slice(eq + 1);
    }
    const line = markdown.slice(0, offset + (m.index ?? 0)).split('\n').length;
    blocks.push({ lang, attrs, code: m[2] ?? '', line });
  }
  return blocks;
}

const shells = new Set(['sh', 'bash', 'shell']);

export interface Ran {
  block: Block;
  stdout: string;
  stderr: string;
  /** How long it ran, to see which step makes a doc slow. */
  ms: number;
}

export interface Stopped extends Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Proc {
  // Its own process group, so stopping a background block stops what it started too.
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const proc: Proc = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    }),
  };
  child.stdout?.on('data', (d) => {
    proc.stdout += d;
  });
  child.stderr?.on('data', (d) => {
    proc.stderr += d;
  });
  return proc;
}

async function stop(proc: Proc) {
  if (proc.child.exitCode === null && proc.child.signalCode === null && proc.child.pid) {
    try {
      process.kill(-proc.child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  return proc.exited;
}

function waitFor(proc: Proc, text: string, what: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`${what}: no "${text}" on stdout in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const check = () => {
      if (proc.stdout.includes(text)) done();
    };
    const done = (error?: Error) => {
      clearTimeout(timer);
      proc.child.stdout?.off('data', check);
      if (error) reject(new Error(`${error.message}\nstdout:\n${proc.stdout}\nstderr:\n${proc.stderr}`));
      else resolve();
    };
    proc.child.stdout?.on('data', check);
    proc.exited.then(({ code, signal }) =>
      done(new Error(`${what}: exited (${code ?? signal}) before printing "${text}"`)),
    );
    check();
  });
}

/** Checks that each line of `shown` matches a line of `stdout`, in order; `...` is any text. */
export function expectOutput(stdout: string, shown: string, where: string) {
  const lines = stdout.split('\n');
  let at = 0;
  for (const want of shown.split('\n').filter((l) => l.trim())) {
    const pattern = new RegExp(
      `^${want
        .trim()
        .split('...')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    const found = lines.findIndex((line, i) => i >= at && pattern.test(line.trim()));
    if (found < 0) throw new Error(`${where}: the doc shows "${want}", but the output was:\n${stdout}`);
    at = found + 1;
  }
}

/** The environment a reader's fresh terminal would have: none of the service's own variables. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(SERVICE_|CONTENT_|COMMERCE_|SVC_|WEBHOOK_|PORT$|LOG_LEVEL$|VITEST|npm_)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', NO_COLOR: '1', ...extra };
}

/** A port nothing listens on now, for docs that need a fixed one before anything starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

export interface Server {
  urls: Record<'content' | 'commerce', string | undefined>;
  dataDir: string;
  /**
   * Where the server keeps its data, as the variables a reader's terminal has for the docs'
   * `svc-server keys create`: SERVICE_DATA_DIR, plus SERVICE_DATABASE_URL on PostgreSQL.
   */
  storage: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * `svc-server start` from the clone, on free ports and a temporary data directory, as the docs'
 * readers run it with `npm start`, on the test engine (a fresh PostgreSQL database when
 * SVC_TEST_DATABASE=postgres). Resolves once it has printed its URLs.
 */
export async function startServer(
  options: { only?: 'content' | 'commerce'; env?: Record<string, string> } = {},
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-quickstart-data-'));
  const database = await createTestEngineDatabase();
  const storage = { SERVICE_DATA_DIR: dataDir, ...database.env };
  const args = [join(repoRoot, 'packages/server/dist/cli.js'), 'start'];
  if (options.only) args.push('--only', options.only);
  const proc = start(
    process.execPath,
    args,
    repoRoot,
    cleanEnv({
      ...storage,
      CONTENT_PORT: '0',
      COMMERCE_PORT: '0',
      LOG_LEVEL: 'warn',
      ...options.env,
    }),
  );
  await waitFor(proc, '\ndata ', 'svc-server start').catch(async (err) => {
    await database.drop();
    throw err;
  });
  const url = (name: string) => proc.stdout.match(new RegExp(`^${name} +(http://\\S+)`, 'm'))?.[1];
  return {
    urls: { content: url('content'), commerce: url('commerce') },
    dataDir,
    storage,
    async stop() {
      const { code, signal } = await stop(proc);
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
      if (code !== 0) throw new Error(`svc-server exited ${code ?? signal}:\n${proc.stderr}`);
    },
  } satisfies Server;
}

export interface DocRun {
  /** Every block that ran in the foreground, in order. */
  ran: Ran[];
  /** The background blocks, after they were stopped. */
  stopped: Stopped[];
  /** All foreground stdout, in order. */
  stdout: string;
  /** The files written from `file=` blocks. */
  files: string[];
}

/**
 * Runs the marked blocks of `doc` (a path from the repository root, or absolute) in a new work folder inside
 * examples/quickstarts, with `env` on top of a clean environment.
 */
export async function runDoc(
  doc: string,
  options: {
    env?: Record<string, string>;
    section?: string;
    timeoutMs?: number;
    /**
     * Read the output through these replacements (test value -> the doc's default) before
     * comparing it with an `output` block, e.g. the test server's URL -> http://127.0.0.1:3000.
     */
    shownAs?: Record<string, string>;
    /** Before stopping the background blocks, wait until the first one has printed each of these. */
    backgroundUntil?: string[];
    /** Then this, with the environment the blocks left, while the background blocks still run. */
    whileRunning?: (env: NodeJS.ProcessEnv) => Promise<void>;
  } = {},
): Promise<DocRun> {
  const blocks = parseBlocks(readFileSync(resolve(repoRoot, doc), 'utf8'), options.section);
  const work = mkdtempSync(join(packageDir, '.run-'));
  const envFile = join(mkdtempSync(join(tmpdir(), 'svc-quickstart-env-')), 'env');
  let env = cleanEnv(options.env);
  const ran: Ran[] = [];
  const background: { block: Block; proc: Proc }[] = [];
  const files: string[] = [];
  const stopped: Stopped[] = [];
  let last: string | undefined; // the stdout an `output` block describes
  const where = (b: Block) => `${doc}:${b.line} (\`\`\`${b.lang} ${Object.keys(b.attrs).join(' ')})`;

  try {
    for (const block of blocks) {
      if (typeof block.attrs.file === 'string') {
        writeFileSync(join(work, block.attrs.file), block.code);
        files.push(block.attrs.file);
        continue;
      }
      if (block.attrs.output) {
        if (last === undefined)
          throw new Error(`${where(block)}: an output block must follow a block that ran`);
        let stdout = last;
        for (const [actual, shown] of Object.entries(options.shownAs ?? {}))
          stdout = stdout.replaceAll(actual, shown);
        expectOutput(stdout, block.code, where(block));
        continue;
      }
      if (!shells.has(block.lang) || block.attrs.npm) continue;
      const cwd = block.attrs.clone ? repoRoot : work;

      if (block.attrs.background) {
        const ready = block.attrs.ready;
        if (typeof ready !== 'string')
          throw new Error(`${where(block)}: a background block needs ready=TEXT`);
        const proc = start('bash', ['-c', `set -eo pipefail\n${block.code}`], cwd, env);
        background.push({ block, proc });
        await waitFor(proc, ready, where(block));
        last = proc.stdout;
        continue;
      }

      const began = performance.now();
      const script = `set -eo pipefail\ntrap 'env -0 > ${JSON.stringify(envFile)}' EXIT\n${block.code}`;
      const proc = start('bash', ['-c', script], cwd, env);
      const timeout = setTimeout(() => stop(proc), options.timeoutMs ?? 30_000);
      const { code, signal } = await proc.exited;
      clearTimeout(timeout);
      if (code !== 0) {
        throw new Error(
          `${where(block)} failed (${code ?? signal}):\n${block.code}\nstdout:\n${proc.stdout}\nstderr:\n${proc.stderr}`,
        );
      }
      last = proc.stdout;
      ran.push({
        block,
        stdout: proc.stdout,
        stderr: proc.stderr,
        ms: Math.round(performance.now() - began),
      });
      // What the block exported is there for the next blocks, as in one terminal.
      const next: NodeJS.ProcessEnv = {};
      for (const entry of readFileSync(envFile, 'utf8').split('\0')) {
        const eq = entry.indexOf('=');
        if (eq > 0) next[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      for (const name of ['PWD', 'OLDPWD', 'SHLVL', '_']) delete next[name];
      env = next;
    }
    const first = background[0];
    for (const text of options.backgroundUntil ?? []) {
      if (first) await waitFor(first.proc, text, where(first.block));
    }
    await options.whileRunning?.(env);
  } finally {
    for (const { block, proc } of background.reverse()) {
      const { code, signal } = await stop(proc);
      stopped.unshift({ block, stdout: proc.stdout, stderr: proc.stderr, ms: 0, code, signal });
    }
    rmSync(work, { recursive: true, force: true });
    rmSync(dirname(envFile), { recursive: true, force: true });
  }
  // A background block must still have been running: stopped by our SIGTERM, or exiting 0 on it.
  for (const { block, stderr, code, signal } of stopped) {
    if (code !== 0 && signal !== 'SIGTERM') {
      throw new Error(`${where(block)} had exited (${code ?? signal}) before the end:\n${stderr}`);
    }
  }
  return { ran, stopped, stdout: ran.map((r) => r.stdout).join(''), files };
}
