/**
 * Counts the calls into `vm` contexts (each one runs with the SDK's `isolateExecutionTimeout`, so
 * each starts a watchdog thread), per thread, and appends the running totals to VM_CALLS_FILE every
 * 2 s and at exit. Preload it into the worker, e.g.
 *
 *   npm run bench -- --scenario herd --system ours-api \
 *     --worker-node-arg=--require=$PWD/bench/micro/count-vm-calls.cjs --worker-env VM_CALLS_FILE=/tmp/vm-calls.txt
 *
 * Worker threads inherit the flag, so the workflow threads are counted too. A line: `<epoch ms> <thread id> <calls> <with timeout>`.
 */
'use strict';
const vm = require('node:vm');
const { appendFileSync } = require('node:fs');
const { threadId } = require('node:worker_threads');

const file = process.env.VM_CALLS_FILE;
let calls = 0;
let timed = 0;
const count = (options) => {
  calls++;
  if (options && typeof options === 'object' && options.timeout !== undefined) timed++;
};
const scriptRun = vm.Script.prototype.runInContext;
vm.Script.prototype.runInContext = function (context, options) {
  count(options);
  return scriptRun.call(this, context, options);
};
const run = vm.runInContext;
vm.runInContext = function (code, context, options) {
  count(options);
  return run.call(this, code, context, options);
};
if (file) {
  const write = () => appendFileSync(file, `${Date.now()} ${threadId} ${calls} ${timed}\n`);
  setInterval(write, 2000).unref();
  process.on('exit', write);
}
