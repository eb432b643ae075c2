import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The private request core is bundled, so users install this package only. ky is bundled
  // too: ky 1 is ESM-only, and a CommonJS build that require()s it gets the module namespace
  // instead of ky (`ky.create is not a function`; Node < 20.19 refuses the require outright).
  // @svc/webhooks stays a dependency so the API types are one definition shared with the
  // webhook verifier.
  noExternal: ['@svc/client-core', 'ky'],
});
