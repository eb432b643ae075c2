import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Built at package time into dist/ by @svc/server's build (scripts/copy-assets.mjs), which
 * copies it into the server's dist/app and serves it at `/`. Preact's JSX is compiled by Vite's
 * own esbuild step, so no Babel preset is needed. The client is bundled from its source: the
 * content client's tests depend on the server, so the server (and with it the app) is built
 * before the client's dist exists. The manifest lets the bundle-budget test find the entry and
 * its static imports.
 */
export default defineConfig({
  base: '/',
  resolve: {
    alias: {
      '@svc/content-client': source('../content-client/src/index.ts'),
      '@svc/client-core': source('../client-core/src/index.ts'),
    },
  },
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  // `vite` (pnpm --filter @svc/app run dev) forwards the API to a content service on :3000.
  server: { proxy: { '/v1': 'http://127.0.0.1:3000', '/media': 'http://127.0.0.1:3000' } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    manifest: true,
    target: 'es2022',
    sourcemap: false,
    // The client reads a file path with node:fs only in Node (media uploads); the app never does.
    rollupOptions: { external: ['node:fs/promises'] },
  },
});
