import { ensurePlatformSpecs, PlatformSpecsError } from '../../../../scripts/platform-specs.mjs';

/**
 * vitest globalSetup (the server package and examples/live-local): before any test file loads,
 * the platforms' published documents are in the verified cache, copied from the local mirror
 * when needed. Without them the whole run stops on one line that names the command to run:
 * the contract tests are never skipped, and ten suites never fail one by one with ENOENT.
 */
export default function setup(): void {
  try {
    ensurePlatformSpecs();
  } catch (err) {
    if (!(err instanceof PlatformSpecsError)) throw err;
    // Thrown, vitest would bury the line under "No test files found" and a list of every
    // project; the message alone is the whole story (what is missing, the command that fixes it).
    process.stderr.write(`\n${err.message}\n`);
    process.exit(1);
  }
}
