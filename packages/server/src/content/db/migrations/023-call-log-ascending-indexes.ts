import type { Migration } from '../../../platform/db/sql.js';

/**
 * The MCP call log's two indexes, ascending. Its entries come in oldest first (time-ordered ids,
 * batches in arrival order), so each batch lands at one edge of each index. A descending index
 * takes them at its left edge, where SQLite splits a full page in two instead of starting a new
 * one: each batch wrote about a quarter more pages than it needs (issue 20, docs/benchmarks.md).
 * `GET /v1/mcp-calls` pages newest first and both engines read an ascending index backwards for
 * that, so every read stays on an index, and no id or cursor changes.
 *
 * Upgrading rebuilds both indexes once: on a large log that takes a while, inside the migration.
 */
const ASCENDING = `
  DROP INDEX mcp_calls_created;
  DROP INDEX mcp_calls_key;
  CREATE INDEX mcp_calls_created ON mcp_calls (created_at, id);
  CREATE INDEX mcp_calls_key ON mcp_calls (key_id, created_at, id);
`;

export const callLogAscendingIndexesMigration: Migration = {
  id: 23,
  name: 'ascending MCP call-log indexes',
  up: ASCENDING,
  postgres: ASCENDING,
};
