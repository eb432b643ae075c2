import { type ChildProcess, spawn } from 'node:child_process';
import { cli } from './cli.js';

/** The built server (`svc-server start`) running in a process of its own, and the URL it serves. */
export interface BuiltServer {
  url: string;
  child: ChildProcess;
}

/**
 * Starts the built bin on ephemeral ports, unseeded and silent, with `env` added, and resolves
 * with `service`'s URL once it has printed where its data lives (it is then serving).
 */
export function startBuilt(
  service: 'content' | 'commerce',
  env: NodeJS.ProcessEnv,
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<BuiltServer> {
  return launchBuilt(service, env, stderr).started;
}

/** startBuilt, with its process at hand before it serves (to signal one caught while it starts). */
export function launchBuilt(
  service: 'content' | 'commerce',
  env: NodeJS.ProcessEnv,
  stderr: 'inherit' | 'ignore' = 'inherit',
): { child: ChildProcess; started: Promise<BuiltServer> } {
  const child = spawn(process.execPath, [cli, 'start'], {
    env: {
      ...process.env,
      CONTENT_PORT: '0',
      COMMERCE_PORT: '0',
      LOG_LEVEL: 'silent',
      SERVICE_SEED: 'none',
      ...env,
    },
    stdio: ['ignore', 'pipe', stderr],
  });
  const line = new RegExp(`^${service}\\s+(\\S+)`, 'm');
  let out = '';
  const started = new Promise<BuiltServer>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const url = line.exec(out)?.[1];
      if (url && /^data\s/m.test(out)) resolve({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`svc-server exited early (${code}): ${out}`)));
  });
  return { child, started };
}

/** kill -9, resolved once the process is gone. */
export function killHard(server: Pick<BuiltServer, 'child'>): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}
