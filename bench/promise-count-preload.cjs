// Preloaded into svc-server by bench/promise-count.mjs: counts the promises this process makes
// (async_hooks PROMISE inits) and writes the count to PROMISE_COUNT_FILE on SIGUSR2.
const { createHook } = require('node:async_hooks');
const { writeFileSync } = require('node:fs');

let made = 0;
createHook({
  init(_id, type) {
    if (type === 'PROMISE') made++;
  },
}).enable();
process.on('SIGUSR2', () => writeFileSync(process.env.PROMISE_COUNT_FILE, String(made)));
