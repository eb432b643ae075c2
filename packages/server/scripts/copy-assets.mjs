#!/usr/bin/env node
// Copies the browser assets the server serves into dist/assets, so a plain `npm install
// @svc/server` serves them with no build step and no CDN: the API reference renderer (Redoc's
// standalone bundle, with its licence).
import { copyFileSync, mkdirSync } from 'node:fs';
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
