import { readFileSync } from 'node:fs';
import type { Dialect, SqlValue } from './sql.js';

/**
 * The one clock every instance on a database reads its named leases by (leases-store.ts), so a
 * lease's expiry is never one process's wall clock judged by another's. Two hosts whose wall
 * clocks differ by more than a lease's length would otherwise both hold it, or one would take a
 * live lease from the other.
 *
 * - PostgreSQL: the server's `clock_timestamp()`, written and compared inside each statement.
 *   Instances on many machines read one clock; it can still step (NTP, a resumed VM), which moves
 *   every lease at once, and no holder sees a different time than a taker.
 * - SQLite: the database has no clock of its own (its 'now' is the calling process's wall clock),
 *   and a shared SQLite file in WAL mode is only ever opened on one machine. That machine's
 *   monotonic clock is one for all its processes and no one sets it: a wall clock set by hand,
 *   stepped by NTP, or faked for one process (libfaketime) moves no lease. Its count restarts at
 *   boot, so the text starts with the boot's id: a lease written before a reboot is over (all its
 *   holders are gone), however large its count was.
 *
 * Both forms are text that sorts as time within one deployment. Where the boot id cannot be read
 * (not Linux), SQLite falls back to the wall clock, which processes on one machine share unless
 * one fakes it.
 */
export interface LeaseClock {
  /** SQL (with its parameters) for "now + ms": a lease's end. */
  until(ms: number): { sql: string; params: SqlValue[] };
  /** SQL (with its parameters) true when the lease in `column` has run out. */
  over(column: string): { sql: string; params: SqlValue[] };
}

/**
 * No lease is longer (the media sweep's, a day, is the longest). On SQLite an end further ahead
 * than this was written by a process whose monotonic clock is not the machine's (libfaketime
 * without FAKETIME_DONT_FAKE_MONOTONIC=1 makes it the faked wall clock, ~1.8e12 ms ahead): it is
 * taken as over rather than held until the machine's clock gets there.
 */
export const LONGEST_LEASE_MS = 2 * 24 * 60 * 60_000;

const PG_TEXT = (at: string) => `to_char((${at}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const postgresClock: LeaseClock = {
  until: (ms) => ({ sql: PG_TEXT(`clock_timestamp() + ? * interval '1 millisecond'`), params: [ms] }),
  // An end further ahead than any lease can last was not written by a take (a hand edit): over.
  over: (column) => ({
    sql: `(${column} <= ${PG_TEXT('clock_timestamp()')} OR ${column} > ${PG_TEXT(`clock_timestamp() + ? * interval '1 millisecond'`)})`,
    params: [LONGEST_LEASE_MS],
  }),
};

/** This boot's id (Linux); null elsewhere. Read once: it does not change while the process runs. */
function readBootId(): string | null {
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return /^[0-9a-f-]{36}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}
const BOOT = readBootId();

/** Milliseconds on the machine's monotonic clock, padded so that text order is number order. */
const machineMs = (plus: number) =>
  (process.hrtime.bigint() / 1_000_000n + BigInt(Math.round(plus))).toString().padStart(16, '0');

/** `<boot id>:<ms>`, or where there is no boot id the wall clock's ISO time. */
const machineLeaseTime = (plus = 0): string =>
  BOOT ? `${BOOT}:${machineMs(plus)}` : new Date(Date.now() + plus).toISOString();

const sqliteClock: LeaseClock = {
  until: (ms) => ({ sql: '?', params: [machineLeaseTime(ms)] }),
  // Another boot's lease, one too far ahead to be this machine's, (or one written by an older version, as an ISO time) is over.
  over: (column) =>
    BOOT
      ? {
          sql: `(${column} <= ? OR ${column} > ? OR substr(${column}, 1, ?) <> ?)`,
          params: [machineLeaseTime(), machineLeaseTime(LONGEST_LEASE_MS), 37, `${BOOT}:`],
        }
      : { sql: `${column} <= ?`, params: [machineLeaseTime()] },
};

export const leaseClock = (dialect: Dialect): LeaseClock =>
  dialect === 'postgres' ? postgresClock : sqliteClock;
