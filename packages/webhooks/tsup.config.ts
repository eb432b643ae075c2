import { defineConfig } from 'tsup';

export default defineConfig({
  // Two entries so edge bundlers that follow `./web` never see `node:crypto`.
  entry: { index: 'src/index.ts', web: 'src/web.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'node20',
  // Deno and Workers (nodejs_compat) resolve only the prefixed form.
  removeNodeProtocol: false,
});
