// Preloaded into a built server by a test (NODE_OPTIONS=--require, see start-migrations-first):
// when the process sends a first start's migrations (the one batch, BEGIN; CREATE TABLE ...), it
// appends one line to SVC_TEST_LOADED_AT_MIGRATIONS saying whether the services' code (express,
// which only they use) was loaded by then. Only pg's connection module is loaded here; pg itself
// is left for the server to load its own way.
'use strict';
const { appendFileSync } = require('node:fs');

const report = process.env.SVC_TEST_LOADED_AT_MIGRATIONS;
const Connection = require('pg/lib/connection.js');
const query = Connection.prototype.query;
Connection.prototype.query = function (text, ...rest) {
  const batch = typeof text === 'string' ? /^BEGIN;\s*CREATE TABLE (\w+)/.exec(text) : null;
  if (report && batch) {
    const express = Object.keys(require.cache).some((path) =>
      /[\\/]node_modules[\\/]express[\\/]/.test(path),
    );
    appendFileSync(report, `${JSON.stringify({ first_table: batch[1], express_loaded: express })}\n`);
  }
  return query.call(this, text, ...rest);
};
