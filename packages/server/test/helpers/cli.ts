import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built bin, as users run it. */
export const cli = join(import.meta.dirname, '../../dist/cli.js');

/**
 * Runs the bin to the end without blocking this process: a blocked event loop misses the server
 * closing an idle keep-alive socket, and the next fetch then fails with "other side closed".
 */
export function runCliAsync(args: string[], envVars: NodeJS.ProcessEnv) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: envVars });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
