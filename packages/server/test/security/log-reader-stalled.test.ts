// Outside attack on the access log's destination (platform/log-destination.ts): a client floods
// requests whose log lines carry long paths while the process's stderr pipe is not being read
// (a stalled log collector). The process must keep a bounded amount of unwritten log in memory,
// say what it dropped once the reader is back, and still exit when told to.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const MB = 1024 * 1024;

/** Children still running when a test ends (one that hangs on exit, as before the fix). */
const started = new Set<ReturnType<typeof spawn>>();
afterEach(() => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
});

/**
 * The built logger in a child whose stderr nobody reads until the child says (on stdout) how
 * much heap it holds after logging `mb` MB of ~1 KB lines over many turns of its event loop.
 */
function floodWhileUnread(mb: number, then: string) {
  const dist = pathToFileURL(join(import.meta.dirname, '../../dist/index.js')).href;
  const code = `import { createLogger } from ${JSON.stringify(dist)};
const log = createLogger();
const path = '/v1/checkouts/' + 'a'.repeat(1000);
let turns = ${mb};
const turn = () => {
  for (let i = 0; i < 1000; i++) log.info({ path, i }, 'request');
  if (--turns > 0) return setImmediate(turn);
  globalThis.gc();
  process.stdout.write(JSON.stringify({ heapUsed: process.memoryUsage().heapUsed }) + '\\n');
  ${then}
};
turn();`;
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', code], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.add(child);
  // Not read: once node's and the kernel's buffers are full, the child's writes get EAGAIN.
  child.stderr.pause();
  let stdout = '';
  const report = new Promise<{ heapUsed: number }>((resolve) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0] as string));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { child, report, exited };
}

// Each test imports the whole built server in a child; a loaded machine needs time.
describe('log destination with a reader that takes nothing', { timeout: 90_000 }, () => {
  it('holds a bounded backlog and says how many lines it dropped once the reader is back', async () => {
    // 200 MB of lines: without a bound, all of it stays in the child's heap.
    const { child, report, exited } = floodWhileUnread(
      200,
      `process.stdin.resume(); process.stdin.on('end', () => log.info('after'));`,
    );
    const { heapUsed } = await report;
    expect(heapUsed).toBeLessThan(120 * MB);

    // Read until what the child held is mostly out, so its next line is taken; then ask for it.
    // The reader keeps up with the pipe: chunks are kept as they come and only the newest bytes
    // are searched for the last line. (Appending each chunk to one string and searching all of it
    // flattened and scanned up to 33 MB per 64 KB chunk; under load the child found the pipe full
    // at nearly every write and waited out sonic-boom's 100 ms EAGAIN pause each time: 185 s.)
    const chunks: Buffer[] = [];
    let taken = 0;
    let tail = '';
    const after = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        const asked = taken > 30 * MB;
        chunks.push(chunk);
        taken += chunk.length;
        if (!asked && taken > 30 * MB) child.stdin.end();
        const newest = tail + chunk.toString('latin1');
        if (newest.includes('"msg":"after"}\n')) resolve();
        tail = newest.slice(-32);
      });
    });
    child.stderr.resume();
    await after;
    child.kill();
    await exited;
    const stderr = Buffer.concat(chunks).toString('utf8');

    const parsed = stderr
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        try {
          return JSON.parse(l) as { msg: string; level: number };
        } catch {
          return { msg: 'not JSON', level: 0 };
        }
      });
    // A notice goes out with the first lines taken after a drop, so a long stall may give several.
    const notices = parsed.filter((l) => l.msg.includes('log lines were dropped'));
    expect(notices.map((n) => n.level)).toContain(40);
    const dropped = notices.reduce((sum, n) => sum + Number(n.msg.split(' ')[0]), 0);
    expect(dropped).toBeGreaterThan(100_000);
    // Every line logged is written or counted as dropped (200 turns of 1000 lines).
    const written = parsed.filter((l) => l.msg === 'request').length;
    expect(written + dropped).toBeLessThanOrEqual(200_000);
    expect(written + dropped).toBeGreaterThanOrEqual(199_990);
    expect(parsed.at(-1)?.msg).toBe('after');
    expect(parsed.at(-2)).toBe(notices.at(-1));
  });

  it('exits on process.exit within the exit patience even though the reader never reads', async () => {
    const { report, exited, child } = floodWhileUnread(20, 'process.exit(5);');
    await report;
    // Before: sonic-boom's synchronous flush (pino's exit hook, then ours) retried the full pipe
    // every 100 ms for ever, and a SIGTERM'd server never exited while its log reader was stalled.
    expect(await exited).toBe(5);
    child.stderr.destroy();
  });

  it('exits on process.exit when the reader dies while the exit is still writing', async () => {
    const { report, exited, child } = floodWhileUnread(20, 'process.exit(5);');
    await report;
    // The child is in its exit flush now (it exits right after its report), retrying a full pipe;
    // its reader goes away, so its next write gets EPIPE. Before: sonic-boom 4's flushSync retried
    // any error other than EAGAIN every 100 ms for ever, and the process never ended.
    child.stderr.destroy();
    expect(await exited).toBe(5);
  });
});
