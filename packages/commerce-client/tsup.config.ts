import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The private request core is bundled, so users install this package only; nothing else is.
  // @svc/webhooks stays a dependency so the API types are one definition shared with the
  // webhook verifier.
  noExternal: ['@svc/client-core'],
  // esbuild renames classes that refer to themselves (`_NotFoundError`); keep the real names
  // so errors read `NotFoundError: ...` in logs, stack traces and `console.log`.
  keepNames: true,
});
