import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase, testEngine } from './database.js';

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

/**
 * What the bins a test file starts share: a data directory and, on the PostgreSQL run, a fresh
 * database, made before the file's tests and removed after them. `env` is a started bin's
 * environment (ports chosen by the system, no seed, no log), on top of `inherited`.
 */
export function binFiles(prefix: string) {
  let database: TestPostgresDatabase | undefined;
  let dataDir = '';
  beforeAll(async () => {
    if (testEngine === 'postgres') database = await createTestPostgresDatabase();
    dataDir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get dataDir() {
      return dataDir;
    },
    env: (extra: Record<string, string> = {}, inherited: NodeJS.ProcessEnv = process.env) => ({
      ...inherited,
      ...(database ? { SERVICE_DATABASE_URL: database.url } : {}),
      SERVICE_DATA_DIR: dataDir,
      CONTENT_PORT: '0',
      COMMERCE_PORT: '0',
      LOG_LEVEL: 'silent',
      SERVICE_SEED: 'none',
      ...extra,
    }),
  };
}

/** The URL a started bin prints for `service`, once it has printed all its lines; rejects if it exits first. */
export function printedUrl(
  child: ChildProcess,
  service: 'content' | 'commerce' = 'content',
): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const found = new RegExp(`^${service}\\s+(\\S+)`, 'm').exec(out)?.[1];
      if (found && /^data\s/m.test(out)) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
  });
}
