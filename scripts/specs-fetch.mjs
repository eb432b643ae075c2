#!/usr/bin/env node
// `pnpm specs:fetch`: fills .cache/platform-specs/ with the platforms' published documents the
// contract tests validate against, each checked against its sha256 in scripts/platform-specs.json.
// From ../shared/platform-specs when that mirror is present (no network), else downloaded from
// each document's source repository at its commit. See scripts/platform-specs.mjs.
import { defaultLocations, fetchPlatformSpecs, PlatformSpecsError } from './platform-specs.mjs';

const where = defaultLocations();
try {
  const { copied, downloaded, total } = await fetchPlatformSpecs(where);
  process.stdout.write(
    `Platform documents: ${total} verified in ${where.cache} (${copied} copied from the mirror, ${downloaded} downloaded)\n`,
  );
} catch (err) {
  // One line: what failed and what to do. A bug in this script still shows its stack.
  if (!(err instanceof PlatformSpecsError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
