import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'bin/svc-mcp': 'src/bin/svc-mcp.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The private request core and ky are bundled: ky 1 is ESM-only, so a CJS build that
  // require()s it breaks. Users install this package alone, as with @svc/commerce-client.
  noExternal: ['@svc/client-core', 'ky'],
  // Deno and Workers (nodejs_compat) resolve only the prefixed form of `node:fs/promises`.
  removeNodeProtocol: false,
});
