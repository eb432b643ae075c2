import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'example-mcp-config' },
});
