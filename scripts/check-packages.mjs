#!/usr/bin/env node
// Proves each publishable package is well formed as it would be published: publint checks
// package.json against the files, and arethetypeswrong checks the types resolve for ESM,
// CJS and bundlers from the packed tarball. Before those, each package's README must link only
// with absolute URLs (npmjs.com renders it away from the repository, where ../../docs is a
// 404), and the package must ship a LICENSE and say where its repository is.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules/.bin', name);
let failed = false;

/** Markdown and HTML link targets that are neither absolute URLs nor in-page anchors. */
function relativeLinks(markdown) {
  const targets = [
    ...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
    ...markdown.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm),
    ...markdown.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/gi),
  ].map((m) => m[1]);
  return targets.filter((t) => !/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(t));
}

function checkPublishedDocs(dir, pkg) {
  const problems = [];
  const readme = join(dir, 'README.md');
  if (!existsSync(readme)) problems.push('has no README.md');
  else
    for (const link of relativeLinks(readFileSync(readme, 'utf8')))
      problems.push(`README links to '${link}': use an absolute URL`);
  if (!existsSync(join(dir, 'LICENSE'))) problems.push('has no LICENSE file');
  if (Array.isArray(pkg.files) && !pkg.files.includes('LICENSE'))
    problems.push("does not list LICENSE in 'files'");
  if (!pkg.repository?.url) problems.push("has no 'repository' field");
  if (!pkg.homepage) problems.push("has no 'homepage' field");
  return problems;
}

for (const dir of readdirSync(join(root, 'packages'))) {
  const pkgPath = join(root, 'packages', dir, 'package.json');
  if (!existsSync(pkgPath)) continue;
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  if (pkg.private) continue;
  const cwd = join(root, 'packages', dir);
  process.stdout.write(`\n── docs ${pkg.name}\n`);
  const problems = checkPublishedDocs(cwd, pkg);
  for (const problem of problems) process.stdout.write(`${pkg.name} ${problem}\n`);
  if (problems.length > 0) failed = true;
  else process.stdout.write('README links are absolute; LICENSE, repository and homepage are set.\n');
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
