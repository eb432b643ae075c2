/**
 * An explicit insertion-order column, `seq`, for tables whose queries break ties (rows written in
 * the same millisecond) by the order they were inserted. SQLite's `rowid` did that, but PostgreSQL
 * has none, so each such table gets a column both engines fill on insert, without the store
 * naming it:
 *
 * - SQLite: an INTEGER set from the row's rowid by an AFTER INSERT trigger, and backfilled from
 *   the rowid for the rows already there, so the order is exactly the one `rowid` gave.
 * - PostgreSQL: a BIGINT whose default is the next value of its own sequence, which numbers new
 *   rows in order. Not an identity column: that would be NOT NULL, and SQLite cannot add a NOT NULL
 *   column without a default, so the two schemas would differ (the schema-parity test compares them).
 */
export function orderingColumnSql(tables: readonly string[]): { sqlite: string; postgres: string } {
  return {
    sqlite: tables
      .map(
        (t) => `
    ALTER TABLE ${t} ADD COLUMN seq INTEGER;
    UPDATE ${t} SET seq = rowid;
    CREATE TRIGGER ${t}_seq AFTER INSERT ON ${t} FOR EACH ROW WHEN NEW.seq IS NULL
      BEGIN UPDATE ${t} SET seq = NEW.rowid WHERE rowid = NEW.rowid; END;`,
      )
      .join('\n'),
    postgres: tables
      .map(
        (t) => `
    ALTER TABLE ${t} ADD COLUMN seq BIGINT;
    CREATE SEQUENCE ${t}_seq OWNED BY ${t}.seq;
    ALTER TABLE ${t} ALTER COLUMN seq SET DEFAULT nextval('${t}_seq');`,
      )
      .join(''),
  };
}
