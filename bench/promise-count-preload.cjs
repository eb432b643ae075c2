// Preloaded into svc-server by bench/promise-count.mjs: counts the promises this process makes
// (async_hooks PROMISE inits) and writes the count to PROMISE_COUNT_FILE on SIGUSR2, after forcing a
// collection when it can (see below).
const { createHook } = require('node:async_hooks');
const { writeFileSync } = require('node:fs');

let made = 0;
createHook({
  init(_id, type) {
    if (type === 'PROMISE') made++;
  },
}).enable();
process.on('SIGUSR2', () => {
  // With --expose-gc and --trace-gc-nvp: a collection now, so every byte allocated before this
  // reading is in a line V8 has printed (bench/promise-count.mjs sums them).
  globalThis.gc?.();
  writeFileSync(process.env.PROMISE_COUNT_FILE, String(made));
});
