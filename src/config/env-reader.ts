/**
 * Reads typed values from an environment object, collecting every problem instead of failing at
 * the first, so that a bad deployment hears about all of them at once (src/config/environment.ts).
 */
export type Env = Record<string, string | undefined>;

export class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  private raw(key: string): string | undefined {
    const value = this.env[key]?.trim();
    return value === '' ? undefined : value;
  }

  optionalString(key: string): string | undefined {
    return this.raw(key);
  }

  string(key: string, fallback: string, pattern: RegExp, expected: string): string {
    const value = this.raw(key) ?? fallback;
    if (!pattern.test(value)) this.problems.push(`${key}=${JSON.stringify(value)} is not ${expected}`);
    return value;
  }

  int(key: string, fallback: number, min: number, max: number): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || parsed < min || parsed > max) {
      this.problems.push(`${key}=${JSON.stringify(value)} is not a whole number from ${min} to ${max}`);
      return fallback;
    }
    return parsed;
  }

  /** Comma- or space-separated values, each checked. */
  list(key: string, valid: (value: string) => boolean, expected: string): string[] {
    const values = (this.raw(key) ?? '').split(/[\s,]+/).filter(Boolean);
    for (const value of values) {
      // Secrets are never echoed into an error message.
      const shown = /SECRET|KEYS/.test(key) ? 'a value' : JSON.stringify(value);
      if (!valid(value)) this.problems.push(`${key}: ${shown} is not ${expected}`);
    }
    return values.filter(valid);
  }

  optionalInt(key: string, min: number, max: number): number | undefined {
    return this.raw(key) === undefined ? undefined : this.int(key, min, min, max);
  }

  bool(key: string, fallback: boolean): boolean {
    const value = this.raw(key)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${key}=${JSON.stringify(value)} is not true or false`);
    return fallback;
  }

  oneOf<T extends string>(key: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(key) ?? fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${key}=${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }
}
