// Preloaded into a built server by a test (NODE_OPTIONS=--require, see stopBeforeWrite in
// stop-before-write.ts): the first process to reach a statement matching SVC_TEST_STOP_BEFORE
// stops itself (SIGSTOP) just before the statement is prepared or sent, so a test catches it at
// that point however loaded the machine is, then kills it. "First" is decided by who creates the
// file SVC_TEST_STOP_CLAIM: the other processes given this preload run on untouched.
'use strict';
const { closeSync, openSync } = require('node:fs');

const pattern = new RegExp(process.env.SVC_TEST_STOP_BEFORE ?? '(?!)');
const claim = process.env.SVC_TEST_STOP_CLAIM;
let passed = false;

function stopBefore(sql) {
  if (passed || !claim || typeof sql !== 'string' || !pattern.test(sql)) return;
  passed = true;
  try {
    closeSync(openSync(claim, 'wx'));
  } catch {
    return; // another process got there first and is the one held
  }
  process.kill(process.pid, 'SIGSTOP');
}

// SQLite: every statement is prepared once per connection (statement cache) before it first runs.
const Database = require('better-sqlite3');
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql, ...rest) {
  stopBefore(sql);
  return prepare.call(this, sql, ...rest);
};

// PostgreSQL: every statement's text goes out on pg's connection, as a simple query or in a Parse
// message (a prepared statement's first use on a connection). Only that module is loaded here; pg
// itself is left for the server to load its own way.
const Connection = require('pg/lib/connection.js');
const query = Connection.prototype.query;
Connection.prototype.query = function (text, ...rest) {
  stopBefore(text);
  return query.call(this, text, ...rest);
};
const parse = Connection.prototype.parse;
Connection.prototype.parse = function (config, ...rest) {
  stopBefore(config?.text);
  return parse.call(this, config, ...rest);
};
