import type { Row, SqlExecutor, SqlParams } from '../../src/platform/db/sql.js';

/**
 * PostgreSQL: what the statements a store sends write to the WAL, counted, not timed. `use` gets
 * an executor over `tx` that runs each statement containing `marker` under
 * `EXPLAIN (ANALYZE, WAL)` (so it does run, and writes, once) and keeps its plan's WAL record
 * count; every other statement runs as it is. EXPLAIN returns the plan, not the statement's rows,
 * so `rowsOf` answers for it (read back what the statement wrote, in the same transaction).
 */
export async function walRecordsOf<T>(
  tx: SqlExecutor,
  marker: string,
  rowsOf: () => Promise<Row[]>,
  use: (watched: SqlExecutor) => Promise<T>,
): Promise<{ result: T; records: number[] }> {
  const records: number[] = [];
  const watched: SqlExecutor = {
    get: (sql, params) => tx.get(sql, params),
    run: (sql, params) => tx.run(sql, params),
    all: async <R = Row>(sql: string, params?: SqlParams) => {
      if (!sql.includes(marker)) return tx.all<R>(sql, params);
      const [row] = await tx.all<{ 'QUERY PLAN': { Plan: { 'WAL Records'?: number } }[] }>(
        `EXPLAIN (ANALYZE, WAL, FORMAT JSON) ${sql}`,
        params,
      );
      for (const plan of row?.['QUERY PLAN'] ?? []) records.push(plan.Plan['WAL Records'] ?? 0);
      return (await rowsOf()) as R[];
    },
  };
  return { result: await use(watched), records };
}
