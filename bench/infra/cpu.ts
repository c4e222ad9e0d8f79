/** CPU time of processes (user + system), read from /proc/<pid>/stat (Linux). */
import { readdirSync, readFileSync } from 'node:fs';
import type { ProcessRef } from './memory.js';

const TICKS_PER_SECOND = 100;

interface Stat {
  ppid: number;
  /** utime + stime, and cutime + cstime (children it has waited for), in seconds. */
  own: number;
  children: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): ppid is the 2nd, utime, stime, cutime
    // and cstime the 12th to 15th.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return {
      ppid: fields[1]!,
      own: (fields[11]! + fields[12]!) / TICKS_PER_SECOND,
      children: (fields[13]! + fields[14]!) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

export function readCpuSeconds(pid: number): number {
  return readStat(pid)?.own ?? NaN;
}

/**
 * CPU time of a process and all its descendants, live or exited (PostgreSQL forks a backend per
 * connection and a few helpers).
 */
export function readTreeCpuSeconds(root: number): number {
  const stats = new Map<number, Stat>();
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    const stat = Number.isInteger(pid) ? readStat(pid) : undefined;
    if (!stat) continue;
    stats.set(pid, stat);
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  }
  if (!stats.has(root)) return NaN;
  let total = 0;
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    const stat = stats.get(pid)!;
    total += stat.own + stat.children;
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** CPU seconds each role used between construction and `stop()`. */
export class CpuMeter {
  private readonly before: Map<string, number>;

  constructor(private readonly processes: readonly ProcessRef[]) {
    this.before = new Map(processes.map((p) => [p.role, cpuSeconds(p)]));
  }

  stop(): Record<string, number> {
    return Object.fromEntries(
      this.processes.map((p) => [
        p.role,
        Math.round((cpuSeconds(p) - (this.before.get(p.role) ?? NaN)) * 100) / 100,
      ]),
    );
  }
}

function cpuSeconds(process: ProcessRef): number {
  return process.tree ? readTreeCpuSeconds(process.pid) : readCpuSeconds(process.pid);
}
