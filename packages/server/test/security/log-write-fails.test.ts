// Outside attack on the log's destination: a client floods requests whose access-log lines carry
// long paths (up to ~16 KB each) until the disk holding the server's log file is full. Every log
// write then fails with ENOSPC. The server must keep serving (lines it cannot write are held up to
// the bound, then dropped and counted) and still exit when told to: before, the first failed
// write threw from the log stream, the process died, and a restart died again on its first line.
// /dev/full stands in for the full disk: every write to it fails with ENOSPC.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The child imports the whole built server; a loaded machine needs time.
describe('log destination whose writes fail (a full disk)', { timeout: 90_000 }, () => {
  it('keeps the process running, holds a bounded backlog, and exits when told to', async () => {
    const dist = pathToFileURL(join(import.meta.dirname, '../../dist/index.js')).href;
    const code = `import { createLogger } from ${JSON.stringify(dist)};
const log = createLogger();
const path = '/v1/checkouts/' + 'a'.repeat(15000);
let turns = 40;
const turn = () => {
  for (let i = 0; i < 100; i++) log.info({ path, i }, 'request');
  if (--turns > 0) return setImmediate(turn);
  globalThis.gc();
  process.stdout.write(JSON.stringify({ heapUsed: process.memoryUsage().heapUsed }) + '\\n');
  process.exit(5);
};
turn();`;
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', full],
    });
    closeSync(full);
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    // 60 MB of lines were logged; what is held unwritten stays under the 32 MB bound.
    expect(exitCode).toBe(5);
    const { heapUsed } = JSON.parse(stdout.split('\n')[0] as string);
    expect(heapUsed).toBeLessThan(100 * 1024 * 1024);
  });
});
