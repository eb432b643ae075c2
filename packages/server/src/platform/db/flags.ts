/**
 * Boolean flag columns: INTEGER 0/1 on SQLite, BOOLEAN on PostgreSQL. Read them with `fromFlag`
 * (SQLite answers 0/1, PostgreSQL true/false). Write them with `toFlag` until the executors take
 * JS booleans themselves (the PostgreSQL engine work maps them to 0/1 on SQLite): 1/0 is what
 * SQLite stores, and PostgreSQL reads a parameter '1'/'0' as true/false. In SQL text, use the
 * literals TRUE/FALSE, which both engines understand.
 */
export const fromFlag = (v: unknown): boolean => Boolean(v);
export const toFlag = (v: boolean): number => (v ? 1 : 0);
