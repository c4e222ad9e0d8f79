import vm from 'node:vm';
const ctx = vm.createContext({ n: 0 });
const script = new vm.Script('n++');
for (const timeout of [undefined, 5000]) {
  const opts = timeout ? { timeout } : {};
  for (let i = 0; i < 2000; i++) script.runInContext(ctx, opts);
  const N = 20000;
  const t = process.hrtime.bigint();
  const c = process.cpuUsage();
  for (let i = 0; i < N; i++) script.runInContext(ctx, opts);
  const wall = Number(process.hrtime.bigint() - t) / 1e3 / N;
  const cpu = process.cpuUsage(c);
  console.log(
    `timeout ${timeout ?? 'none'}: ${wall.toFixed(1)} µs wall, ${((cpu.user + cpu.system) / N).toFixed(1)} µs CPU per call`,
  );
}
