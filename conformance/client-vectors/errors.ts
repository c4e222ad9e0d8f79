/** Vectors of error answers: how each SDK maps a code, a status and a body it does not know. */
import { ok, apiError, noBody, jsonBody } from './common.js';

export const errors = [
  {
    name: 'an unknown error code passes through unchanged',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [
      apiError(422, 'QUOTA_EXCEEDED_FOR_TENANT', 'a code from a newer server', [
        { field: 'tenant', reason: 'over quota' },
      ]),
    ],
    expect: { error: { code: 'QUOTA_EXCEEDED_FOR_TENANT', status: 422, details: [{ field: 'tenant' }] } },
  },
  {
    name: 'a non-JSON error body maps to UNKNOWN with the status',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [
      {
        status: 502,
        headers: { 'content-type': 'text/html' },
        bodyText: '<html><body>Bad Gateway</body></html>',
      },
    ],
    expect: { error: { code: 'UNKNOWN', status: 502 } },
  },
  {
    name: 'a JSON error body without the error envelope maps to UNKNOWN',
    operation: 'status',
    input: { taskId: 't-1' },
    requests: [noBody('GET', '/api/v1/tasks/t-1')],
    responses: [ok({ message: 'not the API' }, 404)],
    expect: { error: { code: 'UNKNOWN', status: 404 } },
  },
  {
    name: 'UNAUTHENTICATED is not retried',
    operation: 'list',
    options: { apiKey: 'dts_k1_wrong' },
    input: {},
    requests: [{ ...noBody('GET', '/api/v1/tasks'), headers: { authorization: 'Bearer dts_k1_wrong' } }],
    responses: [apiError(401, 'UNAUTHENTICATED', 'missing or invalid API key')],
    expect: { error: { code: 'UNAUTHENTICATED', status: 401 } },
  },
  {
    name: 'PERMISSION_DENIED is not retried',
    operation: 'cancel',
    input: { taskId: 't-1' },
    requests: [noBody('POST', '/api/v1/tasks/t-1/cancel')],
    responses: [apiError(403, 'PERMISSION_DENIED', 'not your task')],
    expect: { error: { code: 'PERMISSION_DENIED', status: 403 } },
  },
  {
    name: 'FAILED_PRECONDITION on reschedule keeps its details',
    operation: 'reschedule',
    input: { taskId: 't-1', delaySeconds: { $duration: 10 } },
    requests: [jsonBody('/api/v1/tasks/t-1/reschedule', { delaySeconds: 10 })],
    responses: [
      apiError(409, 'FAILED_PRECONDITION', 'only a SCHEDULED task can be rescheduled', [
        { field: 'status', reason: 'is SUCCEEDED' },
      ]),
    ],
    expect: { error: { code: 'FAILED_PRECONDITION', status: 409, details: [{ field: 'status' }] } },
  },
];
