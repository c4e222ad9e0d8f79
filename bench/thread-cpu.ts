/**
 * CPU time of one process split by thread (Linux /proc/<pid>/task/<tid>/stat), for the parts a V8
 * profile cannot see: the Temporal core's Rust threads (tokio), V8's GC and compiler helpers, libuv.
 *
 *   npx tsx bench/thread-cpu.ts --pid <pid> --out <file.jsonl>     sample every second until the process exits
 *   npx tsx bench/thread-cpu.ts --summary <file.jsonl> [--from <ISO time>] [--to <ISO time>]
 *
 * A sample line is `{ "t": ISO time, "threads": { "<tid> <name>": cpu seconds } }`; the summary
 * groups threads by role (main JS thread, workflow threads, V8 platform + libuv, Rust core) and
 * prints each group's CPU seconds between the samples nearest `--from` and `--to`.
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const TICKS_PER_SECOND = 100;

const { values: flags } = parseArgs({
  options: {
    pid: { type: 'string' },
    out: { type: 'string' },
    summary: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    'interval-ms': { type: 'string', default: '1000' },
  },
});

type Sample = { t: string; threads: Record<string, number> };

function sample(pid: number): Sample | undefined {
  const threads: Record<string, number> = {};
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
      threads[`${tid} ${name}`] = (fields[11]! + fields[12]!) / TICKS_PER_SECOND;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { t: new Date().toISOString(), threads };
}

function summarize(file: string, from?: string, to?: string): void {
  const samples = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Sample);
  const nearest = (time: string | undefined, fallback: Sample): Sample => {
    if (!time) return fallback;
    const at = Date.parse(time);
    return samples.reduce((best, s) =>
      Math.abs(Date.parse(s.t) - at) < Math.abs(Date.parse(best.t) - at) ? s : best,
    );
  };
  const first = nearest(from, samples[0]!);
  const last = nearest(to, samples[samples.length - 1]!);
  const groups = new Map<string, number>();
  const tids = Object.keys(last.threads).map((key) => Number(key.slice(0, key.indexOf(' '))));
  const main = Math.min(...tids);
  // Node names all its threads `node`: the SDK's workflow threads (worker_threads) start after the
  // Temporal core's tokio threads, V8's platform threads and libuv's pool before them.
  const firstTokio = Math.min(
    ...Object.keys(last.threads)
      .filter((key) => key.includes(' tokio'))
      .map((key) => Number(key.slice(0, key.indexOf(' ')))),
  );
  const roleOf = (tid: number, name: string): string => {
    if (tid === main) return 'main JS thread';
    if (name === 'node')
      return tid > firstTokio
        ? 'workflow threads (worker_threads)'
        : 'V8 platform + libuv (GC, compiler, I/O)';
    if (/^(tokio|workflow-proces|temporal)/.test(name)) return 'Rust core (tokio, workflow processing)';
    return name;
  };
  for (const [key, seconds] of Object.entries(last.threads)) {
    const tid = Number(key.slice(0, key.indexOf(' ')));
    const name = key.slice(key.indexOf(' ') + 1).replace(/[\d-]+$/, '');
    const role = roleOf(tid, name);
    const delta = seconds - (first.threads[key] ?? 0);
    groups.set(role, (groups.get(role) ?? 0) + delta);
  }
  const total = [...groups.values()].reduce((a, b) => a + b, 0);
  console.log(`${first.t} → ${last.t}: ${total.toFixed(2)} CPU s`);
  for (const [name, seconds] of [...groups].sort((a, b) => b[1] - a[1]))
    if (seconds > 0)
      console.log(
        `${name.padEnd(42)} ${seconds.toFixed(2).padStart(8)} s  ${((100 * seconds) / total).toFixed(1).padStart(5)}%`,
      );
}

if (flags.summary) {
  summarize(flags.summary, flags.from, flags.to);
} else {
  if (!flags.pid || !flags.out) throw new Error('--pid and --out are required (or --summary <file>)');
  const pid = Number(flags.pid);
  const out = flags.out;
  const timer = setInterval(() => {
    const s = sample(pid);
    if (!s) {
      clearInterval(timer);
      return;
    }
    appendFileSync(out, `${JSON.stringify(s)}\n`);
  }, Number(flags['interval-ms']));
}
