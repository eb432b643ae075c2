import type { Row, SqlExecutor, SqlParams } from '../../src/platform/db/sql.js';

/**
 * PostgreSQL: what the statements a store sends write to the WAL, counted, not timed. `use` gets
 * an executor over `tx` that runs each statement containing `marker` under
 * `EXPLAIN (ANALYZE, WAL)` (so it does run, and writes, once) and keeps its plan's WAL record
 * count; every other statement runs as it is. EXPLAIN returns the plan, not the statement's rows,
 * so `rowsOf` answers for it (read back what the statement wrote, in the same transaction; a
 * watched `run` answers with their count as its `changes`).
 */
export async function walRecordsOf<T>(
  tx: SqlExecutor,
  marker: string,
  rowsOf: () => Promise<Row[]>,
  use: (watched: SqlExecutor) => Promise<T>,
): Promise<{ result: T; records: number[] }> {
  const records: number[] = [];
  const explained = async (sql: string, params: SqlParams | undefined) => {
    const [row] = await tx.all<{ 'QUERY PLAN': { Plan: { 'WAL Records'?: number } }[] }>(
      `EXPLAIN (ANALYZE, WAL, FORMAT JSON) ${sql}`,
      params,
    );
    for (const plan of row?.['QUERY PLAN'] ?? []) records.push(plan.Plan['WAL Records'] ?? 0);
    return rowsOf();
  };
  const watched: SqlExecutor = {
    get: (sql, params) => tx.get(sql, params),
    run: async (sql, params) =>
      sql.includes(marker) ? { changes: (await explained(sql, params)).length } : tx.run(sql, params),
    all: async <R = Row>(sql: string, params?: SqlParams) =>
      sql.includes(marker) ? ((await explained(sql, params)) as R[]) : tx.all<R>(sql, params),
  };
  return { result: await use(watched), records };
}
