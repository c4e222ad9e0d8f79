/** CPU time of processes (user + system), read from /proc/<pid>/stat (Linux). */
import { readFileSync } from 'node:fs';
import type { ProcessRef } from './memory.js';

const TICKS_PER_SECOND = 100;

export function readCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU seconds each role used between construction and `stop()`. */
export class CpuMeter {
  private readonly before: Map<string, number>;

  constructor(private readonly processes: readonly ProcessRef[]) {
    this.before = new Map(processes.map((p) => [p.role, readCpuSeconds(p.pid)]));
  }

  stop(): Record<string, number> {
    return Object.fromEntries(
      this.processes.map((p) => [
        p.role,
        Math.round((readCpuSeconds(p.pid) - (this.before.get(p.role) ?? NaN)) * 100) / 100,
      ]),
    );
  }
}
