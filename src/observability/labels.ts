/**
 * Keeps metric label values bounded: task types are caller-chosen, so past a limit of distinct
 * values new ones are folded into `other` rather than growing the series count without end.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly limit = 200) {}

  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return 'other';
    this.seen.add(value);
    return value;
  }
}
