import { createRequire } from 'node:module';

/** Read at run time so the OpenAPI document and `--version` always match the published package. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;
