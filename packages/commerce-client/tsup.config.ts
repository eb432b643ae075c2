import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The private request core is bundled, so users install this package only. ky and
  // @svc/webhooks stay dependencies: ky fixes reach users without a client release, and the
  // API types stay one definition shared with the webhook verifier.
  noExternal: ['@svc/client-core'],
});
