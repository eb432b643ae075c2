import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cli } from './cli.js';

/** Debian's nginx (packages `nginx-light` or `nginx`); the multi-instance test starts its own. */
export const NGINX = '/usr/sbin/nginx';

/** Fails with one line saying how to get what the test needs; never a silent skip. */
export function requireScaleOutTools(): void {
  if (!existsSync(NGINX))
    throw new Error(
      `${NGINX} is missing: the 3-instance test runs them behind nginx. Install Debian's package: apt-get install -y nginx-light`,
    );
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
}

/** Loopback ports nobody listens on right now (each bound and let go; the OS does not hand them out again soon). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import('node:net').Server>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

export interface Instance {
  name: string;
  dataDir: string;
  contentPort: number;
  commercePort: number;
  content: string;
  commerce: string;
  child: ChildProcess | null;
}

/**
 * Starts `svc-server start` (the built bin) for `inst`, on its fixed ports so a restart after
 * kill -9 comes back where nginx expects it. Resolves once both services listen. Its stderr (the
 * log, at `warn`) goes to `<dataDir>/../server.log`, kept for a failure's diagnosis.
 */
export function startInstance(inst: Instance, env: Record<string, string>): Promise<void> {
  mkdirSync(inst.dataDir, { recursive: true });
  const log = createWriteStream(join(inst.dataDir, '..', 'server.log'), { flags: 'a' });
  const child = spawn(process.execPath, [cli, 'start'], {
    env: {
      ...process.env,
      // As in every test: an answer that drifts from its schema fails loudly.
      SERVICE_VALIDATE_RESPONSES: '1',
      ...env,
      SERVICE_DATA_DIR: inst.dataDir,
      CONTENT_PORT: String(inst.contentPort),
      COMMERCE_PORT: String(inst.commercePort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.pipe(log);
  inst.child = child;
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      if (/^content\s/m.test(out) && /^commerce\s/m.test(out) && /^data\s/m.test(out)) resolve();
    });
    child.once('exit', (code, signal) =>
      reject(
        new Error(`${inst.name} exited early (${code ?? signal}): ${out}; see ${inst.dataDir}/../server.log`),
      ),
    );
  });
}

/** kill -9: the process gets no chance to give anything back. */
export function killHard(inst: Instance): Promise<void> {
  const child = inst.child;
  inst.child = null;
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/**
 * The nginx configuration the test runs, and docs/operations.md shows: one upstream per
 * service, round robin over the instances (no sticky sessions), keep-alive connections that nginx
 * drops before the instances' own 5 s idle timeout, and a failed connection (a dead instance) tried
 * on the next instance. `X-Svc-Upstream` names the instance that answered, for the test only.
 */
export function nginxConfig(opts: {
  dir: string;
  contentPort: number;
  commercePort: number;
  instances: Instance[];
}): string {
  const upstream = (name: string, ports: number[]) => `
  upstream ${name} {
${ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 32;
    keepalive_timeout 4s;
  }`;
  const server = (port: number, name: string) => `
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 250m;
    location / {
      proxy_pass http://${name};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_next_upstream error timeout;
      proxy_request_buffering off;
      proxy_read_timeout 60s;
      add_header X-Svc-Upstream $upstream_addr always;
    }
  }`;
  const d = opts.dir;
  return `worker_processes 1;
error_log ${d}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${d}/client_body;
  proxy_temp_path ${d}/proxy;
  fastcgi_temp_path ${d}/fastcgi;
  uwsgi_temp_path ${d}/uwsgi;
  scgi_temp_path ${d}/scgi;
${upstream(
  'svc_content',
  opts.instances.map((i) => i.contentPort),
)}
${upstream(
  'svc_commerce',
  opts.instances.map((i) => i.commercePort),
)}
${server(opts.contentPort, 'svc_content')}
${server(opts.commercePort, 'svc_commerce')}
}
`;
}

/** Starts nginx in the foreground on its own config in `dir`; `stop()` ends it (and only it). */
export async function startNginx(dir: string, config: string): Promise<{ stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, config);
  const pid = join(dir, 'nginx.pid');
  const check = spawnSync(NGINX, ['-t', '-p', dir, '-c', file, '-g', `daemon off; pid ${pid};`], {
    encoding: 'utf8',
  });
  if (check.status !== 0) throw new Error(`nginx refused its configuration: ${check.stderr}`);
  const child = spawn(NGINX, ['-p', dir, '-c', file, '-g', `daemon off; pid ${pid};`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  // Ready once the master wrote its pid file (it listens before that).
  for (let i = 0; !existsSync(pid) || !readFileSync(pid, 'utf8').trim(); i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    if (i > 200) throw new Error(`nginx did not start within 10 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        // SIGQUIT: graceful shutdown of the master and its workers.
        child.kill('SIGQUIT');
      }),
  };
}
