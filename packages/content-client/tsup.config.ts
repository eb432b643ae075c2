import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'bin/svc-mcp': 'src/bin/svc-mcp.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The private request core is bundled, so users install this package only; ky stays a
  // dependency (listed in package.json) so its fixes reach users without a client release.
  noExternal: ['@svc/client-core'],
  // Deno and Workers (nodejs_compat) resolve only the prefixed form of `node:fs/promises`.
  removeNodeProtocol: false,
});
