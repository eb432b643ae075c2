// The CLI's own lines for the person (`Next steps`, the SIGTERM notice) go to stderr, and the
// URLs to stdout. When stderr is a file on a full disk (ENOSPC; /dev/full stands in for it) or
// a pipe whose reader has gone (EPIPE), those writes fail. Before, each such failure killed the
// running server with exit code 1; now the line is dropped and the server serves on, then stops
// cleanly on SIGTERM. The server's log survives the same failures in log-destination.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { binFiles, cli, printedUrl } from './helpers/cli.js';

const files = binFiles('svc-cli-stdio-');

/** Starts `svc-server start --only content` with the given stderr; resolves with its URL. */
async function start(stderr: number | 'pipe') {
  const child = spawn(process.execPath, [cli, 'start', '--only', 'content'], {
    env: files.env(),
    stdio: ['ignore', 'pipe', stderr],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await printedUrl(child);
  return { child, url, exited };
}

/** Serves after `Next steps` failed to write, then exits 0 on SIGTERM though its notice fails too. */
async function servesOnAndStops(child: ChildProcess, url: string, exited: Promise<number | null>) {
  // The failed write is reported on a later turn of the child's event loop; a few requests
  // give it those turns. Before the fix the child was gone by now.
  for (let i = 0; i < 5; i++) expect((await fetch(`${url}/health`)).status).toBe(200);
  expect(child.exitCode).toBeNull();
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
}

describe('svc-server start whose stderr cannot be written', { timeout: 60_000 }, () => {
  it('keeps serving when stderr is a full disk (ENOSPC), and stops cleanly on SIGTERM', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const { child, url, exited } = await start(full);
      await servesOnAndStops(child, url, exited);
    } finally {
      closeSync(full);
    }
  });

  it('keeps serving when the reader of its stderr has gone (EPIPE), and stops cleanly on SIGTERM', async () => {
    const { child, url, exited } = await start('pipe');
    // `Next steps` may already sit in the pipe's buffer; the SIGTERM notice is then the write
    // that meets the closed pipe.
    child.stderr?.destroy();
    await servesOnAndStops(child, url, exited);
  });
});
