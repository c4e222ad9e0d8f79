/**
 * A page of 200 schedules answers under load: the list reads its rows from Temporal's list call
 * alone (no describe per schedule), so it does not depend on 200 describes finishing inside one
 * deadline. While batches of one-shot creates and single schedule gets run beside it, every list
 * call answers 200 with all 200 rows (also for a host-limited key, whose rows are described, at most 8
 * at a time). Prints the list's latencies; asserts no time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { SCHEDULE_TEST_ENV } from '../helpers/schedule-env.js';
import { createSchedule, deleteSchedule } from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';

const SCHEDULES = 200;
const LISTS = 40;
const suffix = randomUUID().slice(0, 8);
// An owner of its own: the other files share this dev server, and 200 schedules of theirs would
// bring their owner to its SCHEDULES_MAX_PER_OWNER (100 by default).
const owner = `load${suffix}`;
const TYPE = `load${suffix}.list`;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    env: { ...SCHEDULE_TEST_ENV, RATE_LIMIT_PER_MINUTE: '1000000', SCHEDULES_MAX_PER_OWNER: '10000' },
    keys: {
      admin: { owner: 'ops', scopes: ['admin'] },
      writer: { owner, scopes: ['tasks:read', 'tasks:write', 'schedules:read', 'schedules:write'] },
      hosts: { owner, scopes: ['schedules:read'], allowedCallbackHosts: ['127.0.0.1'] },
    },
  });
  for (let i = 0; i < SCHEDULES; i += 20) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(20, SCHEDULES - i) }, (_, j) =>
        createSchedule(
          h,
          {
            scheduleId: `load-${suffix}-${i + j}`,
            cron: `${(i + j) % 60} 3 * * *`,
            paused: true,
            task: { taskType: TYPE, payload: {}, callbackUrl: h.receiver.url },
          },
          h.keys.writer!.key,
        ),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(201);
  }
  await waitFor(
    async () => {
      const page = await h.call('GET', `/api/v1/schedules?owner=${owner}&taskType=${TYPE}&pageSize=1000`, {
        key: h.keys.admin!.key,
      });
      return page.body.schedules?.length === SCHEDULES;
    },
    { timeoutMs: 60_000, what: `${SCHEDULES} schedules listed` },
  );
}, 300_000);
afterAll(async () => {
  for (let i = 0; h && i < SCHEDULES; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, SCHEDULES - i) }, (_, j) =>
        deleteSchedule(h, `load-${suffix}-${i + j}`, { key: h.keys.writer!.key }),
      ),
    );
  }
  await h?.stop();
}, 300_000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe('a list of 200 schedules under load', () => {
  it('answers every call with every row while creates and gets run beside it', async () => {
    let loading = true;
    let created = 0;
    const load = (async () => {
      let n = 0;
      while (loading) {
        const tasks = Array.from({ length: 50 }, () => ({
          taskType: `${TYPE}.task`,
          payload: { n: n++ },
          delaySeconds: 3600,
          callbackUrl: h.receiver.url,
        }));
        const [batch] = await Promise.all([
          h.call('POST', '/api/v1/tasks/batch', { key: h.keys.writer!.key, payload: { tasks } }),
          ...Array.from({ length: 8 }, (_, i) =>
            h.call('GET', `/api/v1/schedules/load-${suffix}-${(n + i) % SCHEDULES}`, {
              key: h.keys.writer!.key,
            }),
          ),
        ]);
        created += (batch.body.results as { status: number }[]).filter((r) => r.status === 201).length;
      }
    })();
    const results: Record<string, { ms: number[]; statuses: number[]; rows: number[] }> = {
      admin: { ms: [], statuses: [], rows: [] },
      hosts: { ms: [], statuses: [], rows: [] },
    };
    try {
      for (let i = 0; i < LISTS; i++) {
        for (const as of ['admin', 'hosts'] as const) {
          const url =
            as === 'admin'
              ? `/api/v1/schedules?owner=${owner}&taskType=${TYPE}&pageSize=1000`
              : `/api/v1/schedules?taskType=${TYPE}&pageSize=1000`;
          const started = performance.now();
          const page = await h.call('GET', url, { key: h.keys[as]!.key });
          results[as]!.ms.push(performance.now() - started);
          results[as]!.statuses.push(page.status);
          results[as]!.rows.push(page.body.schedules?.length ?? -1);
        }
      }
    } finally {
      loading = false;
      await load;
    }
    for (const [as, r] of Object.entries(results)) {
      const sorted = [...r.ms].sort((a, b) => a - b);
      console.log(
        `GET /api/v1/schedules (${SCHEDULES} rows, ${as}): ${LISTS} calls under load (${created} tasks created beside), ` +
          `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
      );
      expect(
        r.statuses.every((s) => s === 200),
        `${as}: ${r.statuses.join(',')}`,
      ).toBe(true);
      expect(
        r.rows.every((n) => n === SCHEDULES),
        `${as}: ${r.rows.join(',')}`,
      ).toBe(true);
    }
  }, 600_000);
});
