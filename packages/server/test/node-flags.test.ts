import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript beside the bin, no declarations
import { missingNodeFlags, NODE_FLAGS } from '../bin/node-flags.js';
import { binFiles, printedUrl } from './helpers/cli.js';

/** The published bin, as `npx svc-server`, the systemd unit and a container run it. */
const bin = join(import.meta.dirname, '../bin/svc-server.js');

const files = binFiles('svc-flags-');

const env = (extra: Record<string, string> = {}) => {
  const { NODE_OPTIONS: _, SVC_SERVER_NODE_FLAGS_APPLIED: __, ...inherited } = process.env;
  return files.env(extra, inherited);
};

/** Starts the bin and resolves once both services print their URLs. */
async function startBin(extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, 'start'], { env: env(extra) });
  const url = await printedUrl(child);
  return { child, url };
}

/** The serving node's command line (the bin's own pid, replaced or not). Read from /proc, so Linux only. */
const servingCommandLine = (child: ChildProcess) =>
  readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

const stopped = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

describe('the V8 flags svc-server start runs with', { timeout: 60_000 }, () => {
  it('adds only the flags neither the command line nor NODE_OPTIONS names, whatever their value', () => {
    expect(NODE_FLAGS).toEqual(['--max-semi-space-size=16']);
    expect(missingNodeFlags([], '')).toEqual(NODE_FLAGS);
    expect(missingNodeFlags([], undefined)).toEqual(NODE_FLAGS);
    expect(missingNodeFlags(['--max-semi-space-size=32'], '')).toEqual([]);
    expect(missingNodeFlags([], '--enable-source-maps  --max_semi_space_size=4')).toEqual([]);
    expect(missingNodeFlags(['--enable-source-maps'], '--max-old-space-size=256')).toEqual(NODE_FLAGS);
  });

  // Node 22.15+ and 24 (CI runs the suite on 24): the bin replaces itself, one process.
  const canReplaceItself = typeof (process as { execve?: unknown }).execve === 'function';

  it.runIf(process.platform === 'linux')(
    'started plainly it serves in one process, with --max-semi-space-size=16 where node can replace itself, and a SIGTERM stops it with exit 0',
    async () => {
      const { child, url } = await startBin();
      // Never a parent kept to relaunch: on Node 20, which cannot replace itself, it would start
      // node twice and take back half of what the flag saves, so Node's defaults are used there.
      expect(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim()).toBe('');
      expect(servingCommandLine(child).includes('--max-semi-space-size=16')).toBe(canReplaceItself);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const exit = stopped(child);
      child.kill('SIGTERM');
      expect(await exit).toEqual({ code: 0, signal: null });
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    },
  );

  it.runIf(process.platform === 'linux')(
    'leaves a NODE_OPTIONS choice alone and starts node once',
    async () => {
      const { child } = await startBin({ NODE_OPTIONS: '--max-semi-space-size=4' });
      const own = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
      expect(own).toBe('');
      expect(servingCommandLine(child)).not.toContain('--max-semi-space-size=16');
      const exit = stopped(child);
      child.kill('SIGINT');
      expect((await exit).code).toBe(0);
    },
  );

  it('passes the server exit code through: invalid configuration is still 78, with one line', async () => {
    const child = spawn(process.execPath, [bin, 'start'], { env: env({ SERVICE_MODE: 'bogus' }) });
    let err = '';
    child.stderr?.on('data', (c) => {
      err += c;
    });
    expect(await stopped(child)).toEqual({ code: 78, signal: null });
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/SERVICE_MODE must be one of sandbox, live/);
  });

  it.runIf(process.platform === 'linux')('ends by the same signal when the server is killed', async () => {
    const { child } = await startBin();
    const exit = stopped(child);
    process.kill(child.pid as number, 'SIGKILL');
    expect(await exit).toEqual({ code: null, signal: 'SIGKILL' });
  });

  // A failed process.execve does not throw: node aborts (SIGABRT), and no server starts. Forced
  // here by running the bin on a copy of node that a preload removes or makes non-executable
  // while it runs, as an upgrade or uninstall under a running shell, or a noexec mount, would.
  // On a node without process.execve (Node 20) nothing is restarted, so the same broken binary
  // must change nothing: the server serves and prints no restart warning.
  it.runIf(process.platform === 'linux').each([
    ['removed', 'ENOENT'],
    ['not executable', 'EACCES'],
  ])(
    canReplaceItself
      ? "when node's binary is %s (%s) it serves in this process with Node's defaults and says how to set the flag"
      : "when node's binary is %s (%s) it serves as ever: node cannot replace itself here, so nothing is restarted",
    async (_how, code) => {
      // A dot-folder in the path, as an install under a home directory (~/.nvm) has.
      const dir = mkdtempSync(join(tmpdir(), 'svc-execve-'));
      try {
        const node = join(dir, '.node', 'bin', 'node');
        mkdirSync(join(dir, '.node', 'bin'), { recursive: true });
        copyFileSync(process.execPath, node);
        const preload = join(dir, 'break-node.mjs');
        const breakIt =
          code === 'ENOENT' ? 'unlinkSync(process.execPath)' : 'chmodSync(process.execPath, 0o644)';
        writeFileSync(preload, `import { chmodSync, unlinkSync } from 'node:fs';\n${breakIt};\n`);
        const child = spawn(node, ['--import', preload, bin, 'start'], { env: env() });
        let err = '';
        child.stderr?.on('data', (c) => {
          err += c;
        });
        const exit = stopped(child);
        const url = await printedUrl(child);
        expect((await fetch(`${url}/health`)).status).toBe(200);
        expect(servingCommandLine(child)).not.toContain('--max-semi-space-size=16');
        if (canReplaceItself) {
          expect(err).toContain(`could not restart node with --max-semi-space-size=16 (${code}: ${node})`);
          expect(err).toContain('NODE_OPTIONS="--max-semi-space-size=16" svc-server start');
        } else {
          expect(err).not.toContain('could not restart node');
        }
        child.kill('SIGTERM');
        expect(await exit).toEqual({ code: 0, signal: null });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
