/** Resident memory of processes, read from /proc (Linux): samples of VmRSS and the kernel's peak VmHWM. */
import { readFileSync } from 'node:fs';

export interface ProcessRef {
  /** What the process is: `api`, `worker`, `process`, `temporal`, `redis`. */
  role: string;
  pid: number;
  /** `service`: what a user deploys for this system; `store`: its database server. */
  kind: 'service' | 'store';
  /** CPU counts its descendants too (PostgreSQL's backends); RSS is the process's own. */
  tree?: boolean;
}

export interface Memory {
  rssBytes: number;
  /** Peak resident size over the process's life. */
  hwmBytes: number;
}

export function readMemory(pid: number): Memory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rssBytes: field('VmRSS'), hwmBytes: field('VmHWM') };
}

/** Peak RSS of each role over a window, sampled every `intervalMs`. */
export class MemorySampler {
  private readonly peaks = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly processes: readonly ProcessRef[],
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** Stops sampling; the peak RSS per role in MiB. */
  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    return Object.fromEntries([...this.peaks].map(([role, bytes]) => [role, toMiB(bytes)]));
  }

  /** RSS per role right now, in MiB. */
  now(): Record<string, number> {
    return Object.fromEntries(this.processes.map((p) => [p.role, toMiB(readMemory(p.pid)?.rssBytes ?? NaN)]));
  }

  private sample(): void {
    for (const { role, pid } of this.processes) {
      const rss = readMemory(pid)?.rssBytes;
      if (rss !== undefined && rss > (this.peaks.get(role) ?? 0)) this.peaks.set(role, rss);
    }
  }
}

export const toMiB = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
