/**
 * RFC 3339 times at the edges of the four-digit year (issue 38 item 8): a year below 100 must not
 * become 19xx (a two-digit year reading, `strftime('%Y')` writing `99`), and each SDK sends and
 * reads years 0001-9999 exactly. Year 0000 is left out: Python's `datetime` cannot hold it.
 */
import { baseInput, createRequest, noBody, ok, task } from './common.js';

const edges = [
  { time: '0001-01-01T00:00:01.000Z', why: "year 1 (a second in: Go's zero time.Time means unset)" },
  { time: '0099-12-31T23:59:59.999Z', why: 'year 99 stays 0099, not 1999' },
  { time: '0100-01-01T00:00:00.000Z', why: 'year 100' },
  { time: '1969-12-31T23:59:59.999Z', why: 'the millisecond before the Unix epoch' },
  { time: '9999-12-31T23:59:59.999Z', why: 'the last millisecond of year 9999' },
];

export const times = [
  ...edges.map(({ time, why }) => ({
    name: `executeAt ${time} is sent with its four-digit year (${why})`,
    operation: 'create',
    input: { ...baseInput, taskId: 't-1', executeAt: { $time: time } },
    requests: [createRequest({ ...baseInput, taskId: 't-1', executeAt: time })],
    responses: [ok(task({ executeAt: time }), 201)],
    expect: { result: { created: true, task: { executeAt: time } } },
  })),
  {
    name: 'an offset that moves the time into year 99 is sent as 0099 in UTC',
    operation: 'create',
    input: { ...baseInput, taskId: 't-1', executeAt: { $time: '0100-01-01T00:30:00+01:00' } },
    requests: [createRequest({ ...baseInput, taskId: 't-1', executeAt: '0099-12-31T23:30:00.000Z' })],
    responses: [ok(task({ executeAt: '0099-12-31T23:30:00.000Z' }), 201)],
    expect: { result: { created: true, task: { executeAt: '0099-12-31T23:30:00.000Z' } } },
  },
  {
    name: 'times read from an answer keep years below 100 (executeAt, createdAt, completedAt)',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [
      ok(
        task({
          executeAt: '0099-01-01T00:00:00.000Z',
          createdAt: '0001-01-01T00:00:00.000Z',
          completedAt: '0050-06-15T12:00:00.000+02:00',
        }),
      ),
    ],
    expect: {
      result: {
        executeAt: '0099-01-01T00:00:00.000Z',
        createdAt: '0001-01-01T00:00:00.000Z',
        completedAt: '0050-06-15T10:00:00.000Z',
      },
    },
  },
  {
    name: 'a list filter below year 100 is sent with its four-digit year',
    operation: 'list',
    input: { dueAfter: { $time: '0099-01-01T00:00:00Z' }, dueBefore: { $time: '0100-01-01T00:00:00Z' } },
    requests: [
      noBody('GET', '/api/v1/tasks', {
        dueAfter: '0099-01-01T00:00:00.000Z',
        dueBefore: '0100-01-01T00:00:00.000Z',
      }),
    ],
    responses: [ok({ tasks: [], nextPageToken: null })],
    expect: { result: { tasks: [], nextPageToken: null } },
  },
];
