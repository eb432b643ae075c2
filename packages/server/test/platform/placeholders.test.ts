import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from '../../src/platform/db/placeholders.js';

describe('numbering ? placeholders for PostgreSQL', () => {
  it('numbers each parameter in order', () => {
    expect(numberPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?) LIMIT ?')).toBe(
      'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3) LIMIT $4',
    );
  });

  it('leaves a ? inside a string literal, a quoted identifier or a comment alone', () => {
    expect(
      numberPlaceholders(
        `SELECT 'what? it''s ?', "odd?name", ? -- why?\n, ? /* and ? here */ FROM t WHERE x = ?`,
      ),
    ).toBe(`SELECT 'what? it''s ?', "odd?name", $1 -- why?\n, $2 /* and ? here */ FROM t WHERE x = $3`);
  });

  it('leaves SQL without parameters as it is', () => {
    expect(numberPlaceholders("UPDATE t SET s = 'a' WHERE n > 1")).toBe("UPDATE t SET s = 'a' WHERE n > 1");
  });
});
