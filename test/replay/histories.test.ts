/**
 * Every recorded history of every workflow shape replays against today's workflow code: a change of
 * the workflow's commands that is not behind `patched()` would break tasks already sleeping or
 * retrying, and fails here with the SDK's nondeterminism error. Each replays twice: as the worker
 * runs by default, and with tracing on (Temporal's OpenTelemetry workflow interceptors bundled in,
 * src/observability/tracing.ts), so turning tracing on changes no command of a task already started.
 */
import { join } from 'node:path';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { quietRuntime } from '../helpers/harness.js';
import { bundleTaskWorkflows, workflowsPath } from '../../src/worker/workers.js';
import { loadConfig } from '../../src/config/environment.js';
import { startTracing, withWorkerTracing } from '../../src/observability/tracing.js';
import { historyFromCliJson } from './history-json.js';
import { historyFiles, loadFixture, manifestOf, recordedShapes, type HistoryFixture } from './fixtures.js';

const fixtures: HistoryFixture[] = recordedShapes().flatMap((shape) =>
  historyFiles(shape).map((scenario) => loadFixture(shape, scenario)),
);

/** What replaying each fixture ended with, by mode and fixture: undefined when it replayed cleanly. */
const outcomes = new Map<string, Error | undefined>();
const key = (fixture: HistoryFixture) => `${fixture.shape}/${fixture.scenario}`;
const MODES = ['tracing off', 'tracing on'] as const;
let controlOutcome: Error | undefined;

beforeAll(async () => {
  quietRuntime();
  // The worker's own wiring, from the variables an operator sets (console: nothing leaves the test).
  const tracing = await startTracing(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).tracing, 'worker');
  expect(tracing?.workflowInterceptorModules.length).toBeGreaterThan(0);
  for (const mode of MODES) {
    const traced = mode === 'tracing on' ? tracing : undefined;
    const options: ReplayWorkerOptions = withWorkerTracing(
      {
        workflowBundle: await bundleTaskWorkflows(workflowsPath(), traced?.workflowInterceptorModules),
        // The workflow reports finished tasks to this sink; replay must find it, and it never runs in replay.
        sinks: { taskMetrics: { finished: { fn: () => undefined, callDuringReplay: false } } },
        replayName: `history-fixtures-${mode.replace(' ', '-')}`,
      },
      traced,
    );
    const histories = fixtures.map((fixture) => ({
      workflowId: key(fixture),
      history: historyFromCliJson(fixture.history),
    }));
    for await (const result of Worker.runReplayHistories(options, histories)) {
      outcomes.set(`${mode}: ${result.workflowId}`, result.error);
    }
  }
  await tracing?.shutdown();
  // The control: an interceptor that adds a command is caught by the same replay.
  const control = fixtures.find((f) => f.shape === 'v2' && f.scenario === 'succeeded')!;
  controlOutcome = await Worker.runReplayHistory(
    {
      workflowBundle: await bundleTaskWorkflows(workflowsPath(), [
        join(import.meta.dirname, 'command-adding-interceptor.ts'),
      ]),
      sinks: { taskMetrics: { finished: { fn: () => undefined, callDuringReplay: false } } },
    },
    historyFromCliJson(control.history),
  ).then(
    () => undefined,
    (err: unknown) => err as Error,
  );
}, 300_000);

describe('recorded workflow histories', () => {
  it.each([
    ['v1', 'the shape before any patch'],
    ['v2', 'local callbacks, no visibility write before a retry'],
  ])('%s, %s, covers every state a task can be in, open ones included', (shape) => {
    const manifest = manifestOf(shape);
    expect(historyFiles(shape)).toEqual(Object.keys(manifest).sort());
    expect(Object.keys(manifest)).toEqual(
      expect.arrayContaining([
        'scheduled',
        'rescheduled-sleeping',
        'rescheduled-succeeded',
        'succeeded',
        'retried-succeeded',
        'retrying',
        'cancelled-scheduled-signal',
        'cancelled-retrying-signal',
        'cancelled-in-flight-signal',
        'cancelled-scheduled-cli',
        'cancelled-retrying-cli',
        'failed-permanent',
        'failed-exhausted',
        'replayed',
        'replayed-bulk',
      ]),
    );
    const open = fixtures.filter((f) => f.shape === shape && f.open).map((f) => f.scenario);
    // v2 also pins a pull task waiting on its pull queue for a worker (the delivery seam's pull target).
    const pull = shape === 'v2' ? ['pull-waiting'] : [];
    expect(open.sort()).toEqual([...pull, 'rescheduled-sleeping', 'retrying', 'scheduled']);
  });

  it.each([
    [
      'upgraded-v1-fired-v2',
      'the shape-v2 patch marker (a task started before v2 fires as v2)',
      /MARKER_RECORDED\(core_patch\)/,
    ],
    ['rate-limited-retried', 'a regular callback activity (a rate-limited type)', /ACTIVITY_TASK_SCHEDULED/],
    [
      'immediate-retry-total-time',
      'an immediate retry: two attempts with no timer between them',
      /MARKER_RECORDED\(core_local_activity\) (\S+ )*?MARKER_RECORDED\(core_local_activity\)(?! TIMER)/,
    ],
  ])('v2 keeps %s, whose history takes %s', (scenario, _what, shape) => {
    const fixture = fixtures.find((f) => f.shape === 'v2' && f.scenario === scenario);
    expect(fixture, scenario).toBeDefined();
    const events = fixture!.history.events
      .map((event) => {
        const marker = (event as { markerRecordedEventAttributes?: { markerName?: string } })
          .markerRecordedEventAttributes?.markerName;
        return `${event.eventType.replace('EVENT_TYPE_', '')}${marker ? `(${marker})` : ''}`;
      })
      .join(' ');
    expect(events).toMatch(shape);
  });

  it('an interceptor that adds a command fails the replay (the tracing-on replay can fail)', () => {
    expect(controlOutcome?.name).toBe('DeterminismViolationError');
  });

  it('every shape has a manifest naming each of its histories', () => {
    for (const shape of recordedShapes()) {
      expect(historyFiles(shape), shape).toEqual(Object.keys(manifestOf(shape)).sort());
    }
  });

  it.each(MODES.flatMap((mode) => fixtures.map((fixture) => [key(fixture), mode] as const)))(
    '%s replays on the current workflow code, %s',
    (fixture, mode) => {
      const name = `${mode}: ${fixture}`;
      expect(outcomes.has(name), `${name} was not replayed`).toBe(true);
      const error = outcomes.get(name);
      expect(error, error && `${error.name}: ${error.message}`).toBeUndefined();
    },
  );
});
