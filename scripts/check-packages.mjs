#!/usr/bin/env node
// Proves each publishable package is well formed as it would be published: publint checks
// package.json against the files, and arethetypeswrong checks the types resolve for ESM,
// CJS and bundlers from the packed tarball.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules/.bin', name);
let failed = false;

for (const dir of readdirSync(join(root, 'packages'))) {
  const pkgPath = join(root, 'packages', dir, 'package.json');
  if (!existsSync(pkgPath)) continue;
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  if (pkg.private) continue;
  const cwd = join(root, 'packages', dir);
  for (const [tool, args] of [
    ['publint', ['--strict']],
    // The server's CLI entry is ESM-only by design; its library entry is checked in both formats.
    [
      'attw',
      [
        '--pack',
        '.',
        '--format',
        'table-flipped',
        ...(pkg.bin ? ['--exclude-entrypoints', 'package.json'] : []),
      ],
    ],
  ]) {
    process.stdout.write(`\n── ${tool} ${pkg.name}\n`);
    const res = spawnSync(bin(tool), args, { cwd, stdio: 'inherit' });
    if (res.status !== 0) failed = true;
  }
}
if (failed) {
  process.stderr.write('\nPackage checks failed.\n');
  process.exit(1);
}
process.stdout.write('\nAll packages are well formed.\n');
