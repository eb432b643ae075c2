import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'bin/svc-mcp': 'src/bin/svc-mcp.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The private request core is bundled, and nothing else: users install this package alone,
  // as with @svc/commerce-client.
  noExternal: ['@svc/client-core'],
  // esbuild renames classes that refer to themselves (`_NotFoundError`); keep the real names
  // so errors read `NotFoundError: ...` in logs, stack traces and `console.log`.
  keepNames: true,
  // Deno and Workers (nodejs_compat) resolve only the prefixed form of `node:fs/promises`.
  removeNodeProtocol: false,
});
