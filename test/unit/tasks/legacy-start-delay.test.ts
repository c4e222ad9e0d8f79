/**
 * The retired start delay's module has an end date: past it, no task an earlier version started with
 * a start delay can still be waiting, and this test fails until the module goes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_WAITING_TASK_AFTER, START_DELAY_RETIRED_ON } from '../../../src/tasks/legacy-start-delay.js';

const DAY_MS = 86_400_000;
/** MAX_SCHEDULE_AHEAD_SECONDS' default: the furthest a task can be due after its start. */
const HORIZON_DAYS = 90;

describe('the legacy start-delay paths', () => {
  it('end the 90-day horizon after the version that retired the start delay', () => {
    const ends = Date.parse(NO_WAITING_TASK_AFTER);
    expect(ends - Date.parse(START_DELAY_RETIRED_ON)).toBeGreaterThanOrEqual(HORIZON_DAYS * DAY_MS);
    expect(ends - Date.parse(START_DELAY_RETIRED_ON)).toBeLessThanOrEqual((HORIZON_DAYS + 1) * DAY_MS);
  });

  it('are removed once no such task can be waiting', () => {
    expect(
      Date.now(),
      `no task started with a start delay can be waiting after ${NO_WAITING_TASK_AFTER}: delete ` +
        'src/tasks/legacy-start-delay.ts, its uses in reader.ts and commands.ts, NOT_STARTED_YET in ' +
        'src/temporal/sdk-knowledge.ts, this test and test/integration/legacy-start-delay.test.ts',
    ).toBeLessThan(Date.parse(NO_WAITING_TASK_AFTER));
  });

  it('live in one module, which its header says who uses', () => {
    const src = join(import.meta.dirname, '../../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const importers = files.filter((file) =>
      readFileSync(join(src, file), 'utf8').includes("/legacy-start-delay.js'"),
    );
    expect(importers.sort()).toEqual(['tasks/commands.ts', 'tasks/reader.ts']);
    const pinned = files.filter((file) => readFileSync(join(src, file), 'utf8').includes('NOT_STARTED_YET'));
    expect(pinned.sort()).toEqual(['tasks/legacy-start-delay.ts', 'temporal/sdk-knowledge.ts']);
    // Nothing else speaks of a start delay's waiting task.
    const words = /whenWaiting|readWaitingTask|startDelayPending|cancelWaitingTask|isNotStartedYet/;
    const speaking = files.filter(
      (file) => file !== 'tasks/legacy-start-delay.ts' && words.test(readFileSync(join(src, file), 'utf8')),
    );
    expect(speaking, relative(process.cwd(), src)).toEqual([]);
  });
});
