/**
 * The per-owner schedule limit, held exactly within one API process. Visibility lists a schedule
 * about a second after its create, so counting it alone let parallel creates through (a limit of 5
 * made 8 of 20, 10 of 30): here one owner's creates run one at a time, and each counts the
 * schedules visibility lists together with those this process created and visibility does not list
 * yet. Across API replicas nothing is shared: creates for one owner that reach different replicas
 * within visibility's lag can together pass the limit (docs/security.md says by how much).
 */

/** How long a schedule this process created counts from its create, whether or not listed: visibility's lag, amply. */
const UNLISTED_MS = 30_000;

export class OwnerLimit {
  /** The create running for each owner (its tail: the next one waits on it). */
  private readonly queues = new Map<string, Promise<void>>();
  /** Schedules this process created lately, by owner: id → when. */
  private readonly recent = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Runs `fn` when no other create of `owner`'s runs in this process. */
  async serialized<T>(owner: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(owner) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.queues.set(owner, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.queues.get(owner) === tail) this.queues.delete(owner);
    }
  }

  /** How many schedules `owner` has: the ids visibility lists and those created here lately. */
  count(owner: string, listed: ReadonlySet<string>): number {
    const mine = this.fresh(owner);
    let count = listed.size;
    for (const id of mine.keys()) if (!listed.has(id)) count += 1;
    if (mine.size === 0) this.recent.delete(owner);
    return count;
  }

  created(owner: string, scheduleId: string): void {
    this.fresh(owner).set(scheduleId, this.now());
  }

  deleted(owner: string, scheduleId: string): void {
    this.recent.get(owner)?.delete(scheduleId);
  }

  private fresh(owner: string): Map<string, number> {
    let ids = this.recent.get(owner);
    if (!ids) this.recent.set(owner, (ids = new Map()));
    const cutoff = this.now() - UNLISTED_MS;
    for (const [id, at] of ids) if (at < cutoff) ids.delete(id);
    return ids;
  }
}
