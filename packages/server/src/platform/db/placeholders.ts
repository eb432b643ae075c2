/**
 * Stores write `?` placeholders, as SQLite takes them; PostgreSQL numbers them (`$1`, `$2`, …).
 * A `?` inside a string literal ('…'), a quoted identifier ("…") or a comment is text, not a
 * parameter, and stays as it is.
 */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (c === "'" || c === '"') {
      // A doubled quote inside is an escaped quote, so the literal goes on.
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const j = end === -1 ? sql.length : end;
      out += sql.slice(i, j);
      i = j;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const j = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, j);
      i = j;
    } else if (c === '?') {
      n++;
      out += `$${n}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
