import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type LogStream, turnBatched } from '../../src/platform/log-destination.js';
import { writesWithoutWaiting } from '../../src/platform/logger.js';

/**
 * The log's destination writes the lines of one event-loop turn together (an access-log line per
 * request, each write a trip through libuv's thread pool), and loses none of them: a quiet
 * server's line goes out at the end of its turn, and an exit or a crash writes what is pending.
 */

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A stream that records what it is handed, and a file standing in for the fd. */
function recording() {
  const writes: string[] = [];
  const events: string[] = [];
  const file = join(mkdtempSync(join(tmpdir(), 'svc-log-')), 'log');
  const fd = openSync(file, 'w');
  const stream: LogStream = {
    write: (line) => {
      writes.push(line);
    },
    flushSync: () => {
      events.push(`flushSync with ${readFileSync(file, 'utf8').length} bytes in the file`);
    },
    flush: (cb) => cb(),
  };
  return { writes, events, stream, fd, file: () => readFileSync(file, 'utf8'), close: () => closeSync(fd) };
}

describe('turnBatched', () => {
  it('hands the lines of one turn to the stream in one write, at the end of the turn', async () => {
    const r = recording();
    const log = turnBatched(r.stream, r.fd);
    log.write('a\n');
    log.write('b\n');
    log.write('c\n');
    expect(r.writes).toEqual([]);
    await nextTurn();
    expect(r.writes).toEqual(['a\nb\nc\n']);
    log.write('d\n');
    await nextTurn();
    expect(r.writes).toEqual(['a\nb\nc\n', 'd\n']);
    await nextTurn();
    expect(r.writes, 'an empty turn writes nothing').toHaveLength(2);
    r.close();
  });

  it('writes pending lines synchronously on flushSync, after what the stream holds, and never twice', async () => {
    const r = recording();
    const log = turnBatched(r.stream, r.fd);
    log.write('x\n');
    log.write('y\n');
    log.flushSync();
    expect(r.events).toEqual(['flushSync with 0 bytes in the file']);
    expect(r.file()).toBe('x\ny\n');
    await nextTurn();
    expect(r.writes, 'the turn’s write finds nothing left').toEqual([]);
    r.close();
  });

  it('hands pending lines over on flush and calls back', async () => {
    const r = recording();
    const log = turnBatched(r.stream, r.fd);
    log.write('z\n');
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    expect(r.writes).toEqual(['z\n']);
    await nextTurn();
    expect(r.writes).toEqual(['z\n']);
    r.close();
  });
});

/** The built logger (what `svc-server` runs) in a process of its own; its stderr. */
function runLogger(
  script: string,
  onStderr?: (text: string, child: ReturnType<typeof spawn>) => void,
  /** stderr to a file (written at once, see writesWithoutWaiting) instead of a pipe (asynchronously). */
  opts: { toFile?: boolean } = {},
) {
  const dist = pathToFileURL(join(import.meta.dirname, '../../dist/index.js')).href;
  const code = `import { createLogger } from ${JSON.stringify(dist)};\nconst log = createLogger();\n${script}`;
  const file = opts.toFile ? join(mkdtempSync(join(tmpdir(), 'svc-log-')), 'stderr') : null;
  const fd = file ? openSync(file, 'w') : null;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['pipe', 'ignore', fd ?? 'pipe'],
  });
  if (fd !== null) closeSync(fd);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
    onStderr?.(stderr, child);
  });
  return new Promise<{ code: number | null; lines: { msg: string; n?: number }[]; stderr: string }>(
    (resolve) =>
      child.once('close', (code) => {
        if (file) stderr = readFileSync(file, 'utf8');
        const lines = stderr
          .split('\n')
          .filter((l) => l.startsWith('{'))
          // A cut line fails the assertions below instead of throwing here, where it would
          // leave the test waiting for its timeout.
          .map((l) => {
            try {
              return JSON.parse(l) as { msg: string; n?: number };
            } catch {
              return { msg: `not JSON: ${l.slice(0, 80)}` };
            }
          });
        resolve({ code, lines, stderr });
      }),
  );
}

// Each test starts a process that imports the whole built server; a loaded machine needs time.
describe('createLogger’s destination', { timeout: 60_000 }, () => {
  const logMany = 'for (let n = 0; n < 2000; n++) log.info({ n }, "line");';

  it('writes every line logged in the turn of an exit, in order', async () => {
    const run = await runLogger(`${logMany}\nprocess.exit(3);`);
    expect(run.code).toBe(3);
    expect(run.lines.map((l) => l.n)).toEqual([...Array(2000).keys()]);
  });

  it('writes every line logged in the turn of a crash', async () => {
    const run = await runLogger(`${logMany}\nthrow new Error('boom');`);
    expect(run.code).toBe(1);
    expect(run.lines.map((l) => l.n)).toEqual([...Array(2000).keys()]);
    expect(run.stderr).toContain('boom');
  });

  it('writes every line to a file too (written at once), over several turns, an exit and a crash', async () => {
    const turns =
      'for (let n = 0; n < 1000; n++) log.info({ n }, "line");\nawait new Promise((r) => setImmediate(r));\n';
    const then = 'for (let n = 1000; n < 2000; n++) log.info({ n }, "line");\n';
    const exited = await runLogger(`${turns}${then}process.exit(3);`, undefined, { toFile: true });
    expect(exited.code).toBe(3);
    expect(exited.lines.map((l) => l.n)).toEqual([...Array(2000).keys()]);
    const crashed = await runLogger(`${turns}${then}throw new Error('boom');`, undefined, { toFile: true });
    expect(crashed.code).toBe(1);
    expect(crashed.lines.map((l) => l.n)).toEqual([...Array(2000).keys()]);
    expect(crashed.stderr).toContain('boom');
  });

  it('writes a quiet process’s line without waiting for more lines or for the exit', async () => {
    // The child logs one line and then waits; only seeing the line ends it.
    const run = await runLogger(
      'log.info("alone"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));',
      (text, child) => {
        if (text.includes('"alone"')) child.stdin?.end();
      },
    );
    expect(run.code).toBe(0);
    expect(run.lines.map((l) => l.msg)).toEqual(['alone']);
  });
});

describe('writesWithoutWaiting', () => {
  it('writes at once to a file or /dev/null, never to a pipe or socket a reader drains', async () => {
    const file = openSync(join(mkdtempSync(join(tmpdir(), 'svc-log-')), 'log'), 'w');
    const devNull = openSync('/dev/null', 'w');
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 200)'], { stdio: 'pipe' });
    try {
      expect(writesWithoutWaiting(file)).toBe(true);
      expect(writesWithoutWaiting(devNull)).toBe(true);
      const pipe = (child.stdin as unknown as { _handle: { fd: number } })._handle.fd;
      expect(pipe).toBeGreaterThan(2);
      expect(writesWithoutWaiting(pipe)).toBe(false);
      expect(writesWithoutWaiting(123456), 'a closed descriptor').toBe(false);
    } finally {
      child.kill();
      closeSync(file);
      closeSync(devNull);
    }
  });
});
