#!/usr/bin/env node
// Copies the browser assets the server serves into dist, so a plain `npm install @svc/server`
// serves them with no build step and no CDN: the API reference renderer (Redoc's standalone
// bundle, with its licence) into dist/assets, and the web app (packages/app, built here with
// Vite) into dist/app. The app is built by this step rather than by `pnpm -r` because the
// clients' tests depend on the server, so the server builds before the clients.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(pkg, 'package.json'));
const out = join(pkg, 'dist/assets');
mkdirSync(out, { recursive: true });

const redoc = require.resolve('redoc/bundles/redoc.standalone.js');
copyFileSync(redoc, join(out, 'redoc.standalone.js'));
copyFileSync(`${redoc}.LICENSE.txt`, join(out, 'redoc.standalone.js.LICENSE.txt'));
console.log('assets: dist/assets/redoc.standalone.js');

const appPkg = join(pkg, '../app');
const vite = join(
  dirname(createRequire(join(appPkg, 'package.json')).resolve('vite/package.json')),
  'bin/vite.js',
);
const built = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
  cwd: appPkg,
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);
const app = join(appPkg, 'dist');
if (!existsSync(join(app, 'index.html'))) {
  console.error(`assets: the web app build left no ${join(app, 'index.html')}`);
  process.exit(1);
}
const appOut = join(pkg, 'dist/app');
rmSync(appOut, { recursive: true, force: true });
// The build manifest is for the bundle-budget test, not for the server to serve.
cpSync(app, appOut, { recursive: true, filter: (src) => !src.startsWith(join(app, '.vite')) });
console.log('assets: dist/app (the web app)');
