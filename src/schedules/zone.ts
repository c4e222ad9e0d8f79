/**
 * Time zones and durations of schedules: which IANA names are known, local wall time to an instant,
 * and `1h30m` to seconds. Pure (the runtime's time zone database through Intl).
 */

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter of local wall time in `zone`; undefined for a name the runtime does not know. */
function formatterOf(zone: string): Intl.DateTimeFormat | undefined {
  if (!ZONE_NAME.test(zone)) return undefined;
  let formatter = formatters.get(zone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return undefined;
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** An IANA time zone name (`Asia/Shanghai`, `UTC`); not an offset or an abbreviation. */
export function isKnownTimeZone(zone: string): boolean {
  return formatterOf(zone) !== undefined;
}

/** The local wall time at `instant` in `zone`, as if it were UTC (epoch ms). */
function wallTime(instant: number, zone: string): number {
  const parts = formatterOf(zone)!.formatToParts(new Date(instant));
  const field = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(
    field('year'),
    field('month') - 1,
    field('day'),
    field('hour'),
    field('minute'),
    field('second'),
  );
}

/** Offset of `zone` from UTC at `instant`, ms. */
function offsetAt(instant: number, zone: string): number {
  return wallTime(instant, zone) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant of a local wall time (given as if UTC) in `zone`. A wall time a DST change skips maps
 * to the instant an hour later in wall terms; one it repeats, to its first instant.
 */
export function instantOfWallTime(wall: number, zone: string): number {
  const before = wall - offsetAt(wall - 86_400_000, zone);
  const after = wall - offsetAt(wall + 86_400_000, zone);
  // The earlier candidate whose wall time is right; else (a skipped time) the later offset's.
  for (const candidate of [Math.min(before, after), Math.max(before, after)]) {
    if (wallTime(candidate, zone) === wall) return candidate;
  }
  return Math.max(before, after);
}

/** The local calendar date at `instant` in `zone`, as a UTC midnight. */
export function localDate(instant: number, zone: string): Date {
  const wall = new Date(wallTime(instant, zone));
  return new Date(Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate()));
}

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** Seconds of a duration such as `1h30m`; undefined when it is not one. */
export function durationSeconds(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match || text === '') return undefined;
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}
