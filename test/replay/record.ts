/**
 * Records the histories of the task workflow as the current code writes them, one per state a task
 * can be in, into test/fixtures/histories/<shape>/. The replay test (histories.test.ts) replays every
 * recorded shape against the workflow code of the day: a change that would break a task already
 * sleeping or retrying fails it. Record a new shape whenever the workflow changes its commands
 * (behind `patched()`), and keep the old shapes.
 *
 *   npm run record-histories -- --shape v2
 *   npm run record-histories -- --shape v2 --only rate-limited-retried   # add or redo some, keep the rest
 *
 * Runs its own dev server (or TEMPORAL_TEST_ADDRESS), workers in this process, the API through
 * inject and a callback receiver on loopback, as the integration tests do. Takes about 20 s.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { startTestServer, writeWorkflowBundle, type TestServer } from '../helpers/dev-server.js';
import { Harness, quietRuntime } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';
import type { PolicyFile } from '../../src/task-types/policies.js';
import { startAsV1 } from '../helpers/shape-v1.js';
import { MANIFEST, manifestOf, shapeDir } from './fixtures.js';

interface Recording {
  workflowId: string;
  runId?: string;
  /** The history is complete once this event type is its last (an open task: a started timer). */
  lastEvent: string;
}

interface Scenario {
  name: string;
  /** What the task went through; kept in the fixture's manifest. */
  what: string;
  run(ctx: Context): Promise<Recording>;
}

interface Context {
  h: Harness;
  server: TestServer;
}

const DAY_S = 86_400;
/** Task types whose policies take the other workflow paths: a rate limit, and a bounded retry schedule. */
const RATED_TYPE = 'fixture.rated';
const BOUNDED_TYPE = 'fixture.bounded';
const POLICIES: PolicyFile = {
  taskTypes: {
    [RATED_TYPE]: { ratePerSecond: 50 },
    [BOUNDED_TYPE]: {
      retry: {
        immediateRetries: 1,
        initialIntervalMs: 1000,
        multiplier: 2,
        maxIntervalMs: 1000,
        maxTotalSeconds: 3,
      },
    },
  },
};
const TIMER_STARTED = 'EVENT_TYPE_TIMER_STARTED';
/** A pull task on a queue of its scenario's own, so no scenario leases another's task. */
const pullOn = (queue: string) => ({
  taskType: 'fixture.pull',
  callbackUrl: undefined,
  delivery: { mode: 'pull', queue, leaseSeconds: 5 },
});

/** Leases the next task of `queues`, waiting as long as it takes (each call up to 20 s). */
async function leaseIn(ctx: Context, queues: string[]): Promise<string> {
  for (;;) {
    const answer = (await post(ctx, '/api/v1/leases', { queues, waitSeconds: 20 })) as {
      leases: { leaseToken: string }[];
    };
    if (answer.leases[0]) return answer.leases[0].leaseToken;
  }
}

async function settleIn(ctx: Context, verb: 'ack' | 'nack' | 'release', leaseToken: string): Promise<void> {
  await post(ctx, `/api/v1/leases/${verb}`, { leaseToken });
}
const COMPLETED = 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED';
const FAILED = 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED';
const CANCELED = 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED';

async function create(ctx: Context, name: string, body: Record<string, unknown>): Promise<string> {
  const taskId = uniqueId(name);
  await createWithId(ctx, taskId, body);
  return taskId;
}

async function post(ctx: Context, url: string, body?: unknown): Promise<unknown> {
  const { status, body: answer } = await ctx.h.post(url, body);
  if (status >= 300) throw new Error(`POST ${url} answered ${status}: ${JSON.stringify(answer)}`);
  return answer;
}

interface HistoryJson {
  events: Array<{ eventType: string; markerRecordedEventAttributes?: { markerName?: string } }>;
}

/** The history as `temporal workflow show -o json` prints it: the JSON the replayer reads. */
async function show(
  ctx: Context,
  workflowId: string,
  runId?: string,
): Promise<{ json: string; history: HistoryJson }> {
  const args = ['workflow', 'show', '-w', workflowId, '-o', 'json', ...(runId ? ['-r', runId] : [])];
  const json = await cli(ctx, args);
  return { json, history: JSON.parse(json) as HistoryJson };
}

/** An attempt that ended, in either shape: a failed activity (v1) or a local activity's marker (v2). */
const ATTEMPT_ENDED = 'attempt ended';

async function eventTypes(ctx: Context, workflowId: string): Promise<string[]> {
  return (await show(ctx, workflowId)).history.events.map((event) =>
    event.eventType === 'EVENT_TYPE_ACTIVITY_TASK_FAILED' ||
    event.markerRecordedEventAttributes?.markerName === 'core_local_activity'
      ? ATTEMPT_ENDED
      : event.eventType,
  );
}

/** Waits until the task's history holds `count` events of `type` (a timer started, an attempt made). */
async function until(ctx: Context, workflowId: string, type: string, count = 1): Promise<void> {
  await waitFor(async () => (await eventTypes(ctx, workflowId)).filter((t) => t === type).length >= count, {
    timeoutMs: 60_000,
    intervalMs: 100,
    what: `${count} × ${type} in ${workflowId}`,
  });
}

const scenarios: Scenario[] = [
  {
    name: 'scheduled',
    what: 'open: sleeping until its time, 30 days ahead',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'scheduled', { delaySeconds: 30 * DAY_S });
      return { workflowId, lastEvent: TIMER_STARTED };
    },
  },
  {
    name: 'rescheduled-sleeping',
    what: 'open: rescheduled from 1 day to 2 days ahead (update), sleeping again',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'rescheduled-sleeping', { delaySeconds: DAY_S });
      await until(ctx, workflowId, TIMER_STARTED);
      await post(ctx, `/api/v1/tasks/${workflowId}/reschedule`, { delaySeconds: 2 * DAY_S });
      await until(ctx, workflowId, TIMER_STARTED, 2);
      return { workflowId, lastEvent: TIMER_STARTED };
    },
  },
  {
    name: 'rescheduled-succeeded',
    what: 'rescheduled from 1 day ahead to now, called back once with 200',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'rescheduled-succeeded', { delaySeconds: DAY_S });
      await until(ctx, workflowId, TIMER_STARTED);
      await post(ctx, `/api/v1/tasks/${workflowId}/reschedule`, { delaySeconds: 0 });
      return { workflowId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'succeeded',
    what: 'due in 1 s, called back once with 200',
    run: async (ctx) => ({
      workflowId: await create(ctx, 'succeeded', { delaySeconds: 1 }),
      lastEvent: COMPLETED,
    }),
  },
  {
    name: 'retried-succeeded',
    what: '500 (1 s backoff), 503 with Retry-After: 2 (waits 2 s), then 200',
    run: async (ctx) => {
      const taskId = uniqueId('retried-succeeded');
      ctx.h.receiver.script(taskId, [
        { status: 500 },
        { status: 503, headers: { 'retry-after': '2' } },
        { status: 200 },
      ]);
      await createWithId(ctx, taskId, { delaySeconds: 0 });
      return { workflowId: taskId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'pull-waiting',
    what: 'open: a pull task due at once, its attempt scheduled on the pull queue, no worker leasing it',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'pull-waiting', { ...pullOn('fixture.waiting'), delaySeconds: 0 });
      return { workflowId, lastEvent: 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED' };
    },
  },
  {
    name: 'pull-released-nacked-acked',
    what: 'a pull task: its first lease released (no attempt spent), leased again and nacked (1 s backoff), attempt 2 acked',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'pull-acked', { ...pullOn('fixture.acked'), delaySeconds: 0 });
      const queues = ['fixture.acked'];
      await settleIn(ctx, 'release', await leaseIn(ctx, queues));
      await settleIn(ctx, 'nack', await leaseIn(ctx, queues));
      await settleIn(ctx, 'ack', await leaseIn(ctx, queues));
      return { workflowId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'pull-released-often-acked',
    what: 'a pull task released 5 times in a row, each leased again at once (recorded before releases were bounded), then acked',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'pull-often', { ...pullOn('fixture.often'), delaySeconds: 0 });
      const queues = ['fixture.often'];
      for (let i = 0; i < 5; i++) await settleIn(ctx, 'release', await leaseIn(ctx, queues));
      await settleIn(ctx, 'ack', await leaseIn(ctx, queues));
      return { workflowId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'pull-released-bounded-acked',
    what: 'a pull task released 5 times in a row: 3 offered again at once, the 4th after 1 s and the 5th after 2 s (the release-bound patch marker), then acked',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'pull-bounded', { ...pullOn('fixture.bounded'), delaySeconds: 0 });
      const queues = ['fixture.bounded'];
      for (let i = 0; i < 5; i++) await settleIn(ctx, 'release', await leaseIn(ctx, queues));
      await settleIn(ctx, 'ack', await leaseIn(ctx, queues));
      return { workflowId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'retrying',
    what: 'open: 429 with Retry-After: 3600, waiting the 10-minute cap before its second attempt',
    run: async (ctx) => {
      const taskId = uniqueId('retrying');
      ctx.h.receiver.script(taskId, [{ status: 429, headers: { 'retry-after': '3600' } }]);
      await createWithId(ctx, taskId, { delaySeconds: 0 });
      await until(ctx, taskId, ATTEMPT_ENDED);
      return { workflowId: taskId, lastEvent: TIMER_STARTED };
    },
  },
  {
    name: 'cancelled-scheduled-signal',
    what: 'cancelled through the API (cancel signal) while sleeping',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'cancelled-scheduled-signal', { delaySeconds: DAY_S });
      await until(ctx, workflowId, TIMER_STARTED);
      await post(ctx, `/api/v1/tasks/${workflowId}/cancel`);
      return { workflowId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'cancelled-retrying-signal',
    what: 'cancelled through the API while waiting to retry after a 500',
    run: async (ctx) => {
      const taskId = uniqueId('cancelled-retrying-signal');
      ctx.h.receiver.script(taskId, [{ status: 500 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0, maxRetries: 10 });
      await until(ctx, taskId, ATTEMPT_ENDED, 2);
      await until(ctx, taskId, TIMER_STARTED, 3);
      await post(ctx, `/api/v1/tasks/${taskId}/cancel`);
      return { workflowId: taskId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'cancelled-in-flight-signal',
    what: 'cancelled through the API while its callback was in flight (receiver holds the answer)',
    run: async (ctx) => {
      const taskId = uniqueId('cancelled-in-flight-signal');
      ctx.h.receiver.script(taskId, [{ status: 200, delayMs: 8_000 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0, timeoutMs: 15_000 });
      // The history shows the attempt started only once it ends: the receiver sees it in flight.
      await ctx.h.receiver.waitForCalls(taskId, 1);
      await post(ctx, `/api/v1/tasks/${taskId}/cancel`);
      return { workflowId: taskId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'cancelled-scheduled-cli',
    what: '`temporal workflow cancel` while sleeping: the run ends Canceled',
    run: async (ctx) => {
      const workflowId = await create(ctx, 'cancelled-scheduled-cli', { delaySeconds: DAY_S });
      await until(ctx, workflowId, TIMER_STARTED);
      await cli(ctx, ['workflow', 'cancel', '-w', workflowId]);
      return { workflowId, lastEvent: CANCELED };
    },
  },
  {
    name: 'cancelled-retrying-cli',
    what: '`temporal workflow cancel` while waiting to retry after a 502',
    run: async (ctx) => {
      const taskId = uniqueId('cancelled-retrying-cli');
      ctx.h.receiver.script(taskId, [{ status: 502 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0, maxRetries: 10 });
      await until(ctx, taskId, ATTEMPT_ENDED);
      await until(ctx, taskId, TIMER_STARTED, 2);
      await cli(ctx, ['workflow', 'cancel', '-w', taskId]);
      return { workflowId: taskId, lastEvent: CANCELED };
    },
  },
  {
    name: 'failed-permanent',
    what: 'dead letter: 400 is permanent, FAILED after one attempt',
    run: async (ctx) => {
      const taskId = uniqueId('failed-permanent');
      ctx.h.receiver.script(taskId, [{ status: 400 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0 });
      return { workflowId: taskId, lastEvent: FAILED };
    },
  },
  {
    name: 'failed-exhausted',
    what: 'dead letter: 500 on both attempts of maxRetries 1',
    run: async (ctx) => {
      const taskId = uniqueId('failed-exhausted');
      ctx.h.receiver.script(taskId, [{ status: 500 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0, maxRetries: 1 });
      return { workflowId: taskId, lastEvent: FAILED };
    },
  },
  {
    name: 'replayed',
    what: 'the new run of POST /tasks/{id}/replay after a 400 dead letter, with maxRetries and a 1 s delay; 200',
    run: async (ctx) => {
      const taskId = uniqueId('replayed');
      ctx.h.receiver.script(taskId, [{ status: 400 }, { status: 200 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0 });
      await ctx.h.client.workflow
        .getHandle(taskId)
        .result()
        .catch(() => undefined);
      const replayed = (await post(ctx, `/api/v1/tasks/${taskId}/replay`, {
        maxRetries: 2,
        delaySeconds: 1,
      })) as { status: string };
      if (replayed.status !== 'SCHEDULED') throw new Error(`replay answered ${JSON.stringify(replayed)}`);
      const runId = (await ctx.h.client.workflow.getHandle(taskId).describe()).runId;
      return { workflowId: taskId, runId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'upgraded-v1-fired-v2',
    what: 'started by the pre-v2 API (shared queue, no localCallback), fired on v2 code: the shape-v2 patch marker, then 200',
    run: async (ctx) => {
      const taskId = uniqueId('upgraded-v1-fired-v2');
      await startAsV1(ctx.h, 'fixture.record', taskId, { delaySeconds: 1 });
      return { workflowId: taskId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'rate-limited-retried',
    what: 'a type with ratePerSecond: the callback is a regular activity on its queue (localCallback false); 500, then 200',
    run: async (ctx) => {
      const taskId = uniqueId('rate-limited-retried');
      ctx.h.receiver.script(taskId, [{ status: 500 }, { status: 200 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0, taskType: RATED_TYPE });
      return { workflowId: taskId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'immediate-retry-total-time',
    what: 'a type with one immediate retry and maxTotalSeconds 3: 503, 503 at once, then backoff until the total time ends it FAILED',
    run: async (ctx) => {
      const taskId = uniqueId('immediate-retry-total-time');
      ctx.h.receiver.script(taskId, [{ status: 503 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0, maxRetries: 10, taskType: BOUNDED_TYPE });
      return { workflowId: taskId, lastEvent: FAILED };
    },
  },
  {
    name: 'schedule-occurrence',
    what: "an occurrence of a paused schedule, started by POST /schedules/{id}/trigger: the occurrence's ExecuteAt and memo written, then 200",
    run: async (ctx) => {
      const scheduleId = uniqueId('schedule-occurrence');
      const created = await ctx.h.post('/api/v1/schedules', {
        scheduleId,
        cron: '0 0 1 1 *',
        paused: true,
        task: {
          taskType: 'fixture.record',
          payload: { scenario: scheduleId },
          callbackUrl: `${ctx.h.receiver.url}/callbacks`,
        },
      });
      if (created.status !== 201) throw new Error(`create schedule answered ${created.status}`);
      await post(ctx, `/api/v1/schedules/${scheduleId}/trigger`);
      const workflowId = await waitFor(
        async () => {
          const description = await ctx.h.client.schedule.getHandle(scheduleId).describe();
          return description.info.recentActions[0]?.action.workflow.workflowId;
        },
        { timeoutMs: 30_000, intervalMs: 200, what: `the occurrence of ${scheduleId}` },
      );
      await ctx.h.client.schedule.getHandle(scheduleId).delete();
      return { workflowId, lastEvent: COMPLETED };
    },
  },
  {
    name: 'replayed-bulk',
    what: 'the run that POST /tasks/replay (a batch reset to the first workflow task) made of a 400 dead letter; 200',
    run: async (ctx) => {
      const taskType = `fixture.bulk-${uniqueId('r').slice(2)}`;
      const taskId = uniqueId('replayed-bulk');
      ctx.h.receiver.script(taskId, [{ status: 400 }, { status: 200 }]);
      await createWithId(ctx, taskId, { delaySeconds: 0, taskType });
      const first = ctx.h.client.workflow.getHandle(taskId);
      await first.result().catch(() => undefined);
      const failedRun = (await first.describe()).runId;
      // Visibility catches up with the FAILED status shortly after the run closes.
      await waitFor(
        async () => {
          const { body } = await ctx.h.post('/api/v1/tasks/replay', { taskType, status: 'FAILED' });
          return (body as { matched?: number }).matched === 1;
        },
        { timeoutMs: 30_000, intervalMs: 500, what: `bulk replay of ${taskId} to match it` },
      );
      const runId = await waitFor(
        async () => {
          const { runId: latest } = await first.describe();
          return latest !== failedRun && latest;
        },
        { timeoutMs: 30_000, intervalMs: 200, what: `the reset run of ${taskId}` },
      );
      return { workflowId: taskId, runId, lastEvent: COMPLETED };
    },
  },
];

async function createWithId(ctx: Context, taskId: string, body: Record<string, unknown>): Promise<void> {
  const { status, raw } = await ctx.h.create({
    taskId,
    taskType: 'fixture.record',
    callbackUrl: `${ctx.h.receiver.url}/callbacks`,
    payload: { scenario: taskId },
    traceId: `trace-${taskId}`,
    ...body,
  });
  if (status !== 201) throw new Error(`create ${taskId} answered ${status}: ${JSON.stringify(raw)}`);
}

const execFileAsync = promisify(execFile);
async function cli(ctx: Context, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(ctx.server.cliPath, [...args, '--address', ctx.server.address], {
    timeout: 30_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function record(ctx: Context, scenario: Scenario): Promise<string> {
  const { workflowId, runId, lastEvent } = await scenario.run(ctx);
  const { json } = await waitFor(
    async () => {
      const shown = await show(ctx, workflowId, runId);
      return shown.history.events.at(-1)?.eventType === lastEvent && shown;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: `${scenario.name} (${workflowId}) to end with ${lastEvent}` },
  );
  return json.endsWith('\n') ? json : `${json}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { shape: { type: 'string' }, only: { type: 'string' } } });
  const shape = values.shape;
  const only = values.only?.split(',');
  const chosen = only ? scenarios.filter((scenario) => only.includes(scenario.name)) : scenarios;
  if (only && chosen.length !== only.length) throw new Error(`unknown scenario among ${values.only}`);
  if (!shape || !/^v\d+$/.test(shape)) throw new Error('give the shape to record: --shape v1 (v2, ...)');
  quietRuntime();
  const server = await startTestServer();
  const h = await Harness.start({
    server: { address: server.address, workflowBundlePath: await writeWorkflowBundle() },
    policies: POLICIES,
  });
  try {
    const ctx: Context = { h, server };
    // One at a time: on a loaded machine, fifteen at once push the API's calls past their deadline.
    const recorded: Array<{ scenario: Scenario; json: string }> = [];
    for (const scenario of chosen) recorded.push({ scenario, json: await record(ctx, scenario) });
    const dir = shapeDir(shape);
    mkdirSync(dir, { recursive: true });
    // A whole shape is recorded afresh; --only adds or redoes some scenarios and keeps the others.
    if (!only) for (const file of readdirSync(dir)) if (file.endsWith('.json')) rmSync(join(dir, file));
    for (const { scenario, json } of recorded) writeFileSync(join(dir, `${scenario.name}.json`), json);
    const manifest = {
      ...(only && existsSync(join(dir, MANIFEST)) ? manifestOf(shape) : {}),
      ...Object.fromEntries(recorded.map(({ scenario }) => [scenario.name, scenario.what])),
    };
    writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    console.log(`recorded ${recorded.length} histories into ${dir}`);
  } finally {
    await h.stop();
    await server.stop();
  }
}

await main();
