/**
 * What the SDK's per-call sandbox timeout costs: `npx tsx bench/micro/vm-timeout-cost.ts`. The worker
 * calls into the workflow sandbox with `vm` and a `timeout` (the SDK's `isolateExecutionTimeout`), and
 * Node starts a watchdog thread for each such call. Times 20,000 calls of a trivial script without and
 * with a timeout: wall and CPU per call (bench/results/levers.md, lever 5).
 */
import vm from 'node:vm';

const CALLS = 20_000;
const context = vm.createContext({ n: 0 });
const script = new vm.Script('n++');

for (const timeout of [undefined, 5000]) {
  const options = timeout ? { timeout } : {};
  for (let i = 0; i < 2000; i++) script.runInContext(context, options);
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) script.runInContext(context, options);
  const wallUs = Number(process.hrtime.bigint() - started) / 1e3 / CALLS;
  const used = process.cpuUsage(cpu);
  console.log(
    `timeout ${timeout ?? 'none'}: ${wallUs.toFixed(1)} µs wall, ${((used.user + used.system) / CALLS).toFixed(1)} µs CPU per call`,
  );
}
