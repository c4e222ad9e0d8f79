/**
 * The receiving side's vectors: `verify` (signature check then parse, one fault per case) and
 * `receiver` (the whole endpoint: verify, route by task type, deduplicate by the signed `webhook-id`
 * (never the unsigned `Idempotency-Key` header), and the answer each outcome gets, status and body,
 * identical in every SDK). Signatures come from the published `standardwebhooks` package, not from
 * any SDK here.
 */
import { Webhook } from 'standardwebhooks';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD_SECRET = 'whsec_bm90IGEgcmVhbCBzZWNyZXQsIGp1c3QgdGhlIG9sZCBvbmU=';
const OTHER_SECRET = 'whsec_c29tZSBvdGhlciBzZXJ2aWNlJ3Mgc2VjcmV0IGtleQ==';
const NOW = 1764756000; // 2025-12-03T10:00:00Z
const MSG_ID = 'msg_2tZ1v0Xk9Yq';
/** A second task (B) of the same receiver: its own task id and `webhook-id`. */
const TASK_B = 'order-10024-close';
const MSG_ID_B = 'msg_7pQ4s8Wm2Rb';

const expectedCallback = {
  taskId: 'order-10023-close',
  taskType: 'order.close',
  payload: { orderId: '10023', amount: 12.5 },
  payloadVersion: 1,
  executeAt: '2025-12-03T10:00:00.000Z',
  attempt: 1,
  traceId: null,
};
const callbackBody = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ ...expectedCallback, ...overrides });

function sign(secret: string, id: string, timestamp: number, body: string): string {
  return new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
}

function headers(signature: string, timestamp = NOW, id = MSG_ID): Record<string, string> {
  return {
    'content-type': 'application/json',
    'idempotency-key': 'order-10023-close',
    'x-task-id': 'order-10023-close',
    'x-task-type': 'order.close',
    'x-task-attempt': '1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  };
}

function signedCase(
  name: string,
  opts: {
    secrets?: string[];
    timestamp?: number;
    body?: string;
    signer?: string;
    expect: unknown;
    tolerance?: number;
  },
) {
  const timestamp = opts.timestamp ?? NOW;
  const body = opts.body ?? callbackBody();
  return {
    name,
    secrets: opts.secrets ?? [SECRET],
    now: NOW,
    toleranceSeconds: opts.tolerance ?? 300,
    headers: headers(sign(opts.signer ?? SECRET, MSG_ID, timestamp, body), timestamp),
    body,
    expect: opts.expect,
  };
}

const valid = { callback: expectedCallback };
const goodSignature = sign(SECRET, MSG_ID, NOW, callbackBody());
const withoutHeader = (name: string) => {
  const all = headers(goodSignature);
  delete all[name];
  return {
    name: `missing ${name}`,
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: all,
    body: callbackBody(),
    expect: { error: 'missing_header' },
  };
};

export const verifyCases = [
  signedCase('valid signature', { expect: valid }),
  signedCase('valid with a trace id and a later attempt', {
    body: callbackBody({ traceId: 'trace-1', attempt: 3, payloadVersion: 2 }),
    expect: { callback: { ...expectedCallback, traceId: 'trace-1', attempt: 3, payloadVersion: 2 } },
  }),
  signedCase("a one-shot task's callback has no schedule", {
    expect: { callback: { ...expectedCallback, schedule: null } },
  }),
  signedCase("an occurrence's callback names its schedule and nominal time", {
    body: callbackBody({
      taskId: 'daily-report-2025-12-03T10:00:00Z',
      taskType: 'report.generate',
      schedule: { scheduleId: 'daily-report', scheduledAt: '2025-12-03T10:00:00.000Z' },
    }),
    expect: {
      callback: {
        ...expectedCallback,
        taskId: 'daily-report-2025-12-03T10:00:00Z',
        taskType: 'report.generate',
        schedule: { scheduleId: 'daily-report', scheduledAt: '2025-12-03T10:00:00.000Z' },
      },
    },
  }),
  signedCase('a schedule field that is not an object (signed)', {
    body: callbackBody({ schedule: 'daily-report' }),
    expect: { error: 'invalid_body' },
  }),
  signedCase('rotation: two secrets, signed by the old one', {
    secrets: [SECRET, OLD_SECRET],
    signer: OLD_SECRET,
    expect: valid,
  }),
  {
    name: 'rotation: header with two signatures, the second one valid',
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: headers(`${sign(OTHER_SECRET, MSG_ID, NOW, callbackBody())} ${goodSignature}`),
    body: callbackBody(),
    expect: valid,
  },
  signedCase('signed by another secret', {
    signer: OTHER_SECRET,
    expect: { error: 'no_matching_signature' },
  }),
  {
    name: 'tampered body',
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: headers(goodSignature),
    body: callbackBody({ payload: { orderId: '10024', amount: 12.5 } }),
    expect: { error: 'no_matching_signature' },
  },
  {
    name: 'tampered timestamp (within tolerance)',
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: headers(goodSignature, NOW + 1),
    body: callbackBody(),
    expect: { error: 'no_matching_signature' },
  },
  {
    name: 'tampered webhook-id',
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: headers(goodSignature, NOW, 'msg_other'),
    body: callbackBody(),
    expect: { error: 'no_matching_signature' },
  },
  signedCase('timestamp exactly the tolerance old passes', { timestamp: NOW - 300, expect: valid }),
  signedCase('timestamp too old', { timestamp: NOW - 301, expect: { error: 'timestamp_too_old' } }),
  signedCase('timestamp exactly the tolerance ahead passes', { timestamp: NOW + 300, expect: valid }),
  signedCase('timestamp too new', { timestamp: NOW + 301, expect: { error: 'timestamp_too_new' } }),
  signedCase('custom tolerance of 10 s', {
    timestamp: NOW - 11,
    tolerance: 10,
    expect: { error: 'timestamp_too_old' },
  }),
  {
    name: 'timestamp not an integer',
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: headers(goodSignature, 'soon' as unknown as number),
    body: callbackBody(),
    expect: { error: 'invalid_timestamp' },
  },
  withoutHeader('webhook-id'),
  withoutHeader('webhook-timestamp'),
  withoutHeader('webhook-signature'),
  signedCase('secret without the whsec_ prefix', {
    secrets: [SECRET.slice('whsec_'.length)],
    expect: { error: 'invalid_secret' },
  }),
  signedCase('secret with a wrong prefix', {
    secrets: [`wh_${SECRET.slice('whsec_'.length)}`],
    expect: { error: 'invalid_secret' },
  }),
  signedCase('secret not base64', { secrets: ['whsec_not base64!'], expect: { error: 'invalid_secret' } }),
  {
    name: 'a non-v1 signature is ignored',
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: headers(goodSignature.replace(/^v1,/, 'v2,')),
    body: callbackBody(),
    expect: { error: 'no_matching_signature' },
  },
  {
    name: 'a non-v1 entry next to a valid v1 one',
    secrets: [SECRET],
    now: NOW,
    toleranceSeconds: 300,
    headers: headers(`v1a,${goodSignature.slice(3)} ${goodSignature}`),
    body: callbackBody(),
    expect: valid,
  },
  signedCase('invalid JSON body (signed)', {
    body: '{"taskId": "order-10023-close",',
    expect: { error: 'invalid_body' },
  }),
  signedCase('JSON body not an object (signed)', { body: '[1,2,3]', expect: { error: 'invalid_body' } }),
  // Years below 100 (issue 38 item 8): read as written, never as 19xx; a time that is not RFC 3339
  // (a loose date parser reads "1/1/99" as 1999) is refused.
  signedCase('executeAt in year 99 is read as 0099, not 1999', {
    body: callbackBody({ executeAt: '0099-01-01T00:00:00.000Z' }),
    expect: { callback: { ...expectedCallback, executeAt: '0099-01-01T00:00:00.000Z' } },
  }),
  signedCase('executeAt that is not an RFC 3339 time is invalid_body', {
    body: callbackBody({ executeAt: '1/1/99' }),
    expect: { error: 'invalid_body' },
  }),
  signedCase('executeAt with a two-digit year is invalid_body', {
    body: callbackBody({ executeAt: '99-01-01T00:00:00Z' }),
    expect: { error: 'invalid_body' },
  }),
  signedCase('big integer in the payload kept exact', {
    // JSON.stringify cannot write a 20-digit integer: put its digits in place of a marker.
    body: callbackBody({ payload: { orderId: 'BIG', ratio: 0.1 } }).replace('"BIG"', '12345678901234567890'),
    expect: {
      callback: { ...expectedCallback, payload: { orderId: { $int: '12345678901234567890' }, ratio: 0.1 } },
    },
  }),
  signedCase('unicode body signed over its UTF-8 bytes', {
    body: callbackBody({ payload: { note: 'café ✓ 日本' } }),
    expect: { callback: { ...expectedCallback, payload: { note: 'café ✓ 日本' } } },
  }),
];

// ---------------------------------------------------------------- receiver vectors

/** What the test handler of a task type does: the runner maps each to its SDK's native way. */
type Behaviour = 'handle' | 'retry' | 'fail' | 'throw';
const RETRY_AFTER_SECONDS = 30;

interface Delivery {
  headers: Record<string, string>;
  body: string;
  expect: {
    status: number;
    body: Record<string, string>;
    headers?: Record<string, string>;
    handlerCalls: number;
  };
}

function delivery(
  expect: Delivery['expect'],
  opts: {
    attempt?: number;
    id?: string;
    taskId?: string;
    body?: string;
    timestamp?: number;
    signer?: string;
    unsigned?: boolean;
    /** The `Idempotency-Key` header as sent (`null`: removed); the task id by default. */
    idempotencyKey?: string | null;
  } = {},
): Delivery {
  const timestamp = opts.timestamp ?? NOW;
  const taskId = opts.taskId ?? expectedCallback.taskId;
  const body = opts.body ?? callbackBody({ taskId, attempt: opts.attempt ?? 1 });
  const id = opts.id ?? MSG_ID;
  const all = headers(sign(opts.signer ?? SECRET, id, timestamp, body), timestamp, id);
  all['x-task-id'] = taskId;
  all['x-task-attempt'] = String(opts.attempt ?? 1);
  all['idempotency-key'] = taskId;
  if (opts.idempotencyKey === null) delete all['idempotency-key'];
  else if (opts.idempotencyKey !== undefined) all['idempotency-key'] = opts.idempotencyKey;
  if (opts.unsigned) {
    delete all['webhook-id'];
    delete all['webhook-timestamp'];
    delete all['webhook-signature'];
  }
  return { headers: all, body, expect };
}

/** The service's retry of a task: the same `webhook-id`, a later timestamp and attempt. */
const retry = { attempt: 2, timestamp: NOW + 60 };

/**
 * Within the tolerance, someone who captured a signed delivery sends it again with the unsigned
 * `Idempotency-Key` header removed or changed: it is the same task (same signed `webhook-id`), so
 * a duplicate; and it never makes another task's genuine delivery a duplicate.
 */
const tamperedKeyCases = () => [
  receiverCase('a captured callback replayed without its Idempotency-Key is a duplicate', [
    delivery(handled(1)),
    delivery(duplicate(1), { idempotencyKey: null }),
  ]),
  receiverCase('a captured callback replayed with a changed Idempotency-Key is a duplicate', [
    delivery(handled(1)),
    delivery(duplicate(1), { idempotencyKey: 'replayed-1' }),
  ]),
  receiverCase("a captured callback replayed under another task's Idempotency-Key: that task still runs", [
    delivery(handled(1)),
    delivery(duplicate(1), { idempotencyKey: TASK_B }),
    delivery(handled(2), { taskId: TASK_B, id: MSG_ID_B }),
    delivery(duplicate(2), { taskId: TASK_B, id: MSG_ID_B, ...retry }),
  ]),
  receiverCase("a forged callback with another task's webhook-id is refused: that task still runs", [
    delivery(refusedWith('no_matching_signature'), { taskId: TASK_B, id: MSG_ID_B, signer: OTHER_SECRET }),
    delivery(handled(1), { taskId: TASK_B, id: MSG_ID_B }),
  ]),
  receiverCase(
    "unsigned (no secrets, allowUnsigned): keyed by the body's taskId, not the Idempotency-Key header",
    [
      delivery(handled(1), { unsigned: true }),
      delivery(duplicate(1), { unsigned: true, idempotencyKey: 'replayed-1' }),
      delivery(handled(2), { unsigned: true, taskId: TASK_B, idempotencyKey: expectedCallback.taskId }),
    ],
    { secrets: [], allowUnsigned: true },
  ),
];

function receiverCase(
  name: string,
  deliveries: Delivery[],
  receiver: { secrets?: string[]; allowUnsigned?: boolean; handlers?: Record<string, Behaviour> } = {},
) {
  return {
    name,
    receiver: {
      secrets: receiver.secrets ?? [SECRET],
      ...(receiver.allowUnsigned === undefined ? {} : { allowUnsigned: receiver.allowUnsigned }),
      now: NOW,
      toleranceSeconds: 300,
      handlers: receiver.handlers ?? { 'order.close': 'handle' },
    },
    deliveries,
  };
}

const handled = (handlerCalls: number) => ({ status: 200, body: { status: 'handled' }, handlerCalls });
const duplicate = (handlerCalls: number) => ({ status: 200, body: { status: 'duplicate' }, handlerCalls });
const refusedWith = (reason: string, status = 401) => ({
  status,
  body: { status: 'refused', reason },
  handlerCalls: 0,
});

export const receiverCases = [
  receiverCase('a signed callback is handled', [delivery(handled(1))]),
  receiverCase('a retry (the same signed webhook-id) is a duplicate: the handler runs once', [
    delivery(handled(1)),
    delivery(duplicate(1), retry),
  ]),
  receiverCase('two tasks, each with its own webhook-id: both run', [
    delivery(handled(1)),
    delivery(handled(2), { taskId: TASK_B, id: MSG_ID_B }),
  ]),
  ...tamperedKeyCases(),
  receiverCase('no signature headers: refused, handler not called', [
    delivery(refusedWith('missing_header'), { unsigned: true }),
  ]),
  receiverCase('signed with another secret: refused', [
    delivery(refusedWith('no_matching_signature'), { signer: OTHER_SECRET }),
  ]),
  receiverCase('timestamp beyond the tolerance: refused', [
    delivery(refusedWith('timestamp_too_old'), { timestamp: NOW - 301 }),
  ]),
  receiverCase('a signed body that is not JSON: refused as 400', [
    delivery(refusedWith('invalid_body', 400), { body: '{"taskId": "order-10023-close",' }),
  ]),
  receiverCase(
    'the handler asks to be retried: 503 with Retry-After, and the next delivery runs it again',
    [
      delivery({
        status: 503,
        body: { status: 'retry' },
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
        handlerCalls: 1,
      }),
      delivery(
        {
          status: 503,
          body: { status: 'retry' },
          headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
          handlerCalls: 2,
        },
        retry,
      ),
    ],
    { handlers: { 'order.close': 'retry' } },
  ),
  receiverCase(
    'the handler fails permanently: 422',
    [delivery({ status: 422, body: { status: 'failed' }, handlerCalls: 1 })],
    {
      handlers: { 'order.close': 'fail' },
    },
  ),
  receiverCase(
    'no handler for the task type: 422 with the reason',
    [
      delivery({
        status: 422,
        body: { status: 'failed', reason: 'no handler for task type' },
        handlerCalls: 0,
      }),
    ],
    { handlers: { 'other.type': 'handle' } },
  ),
  receiverCase(
    'the handler throws: 500 without its message, and the next delivery runs it again',
    [
      delivery({ status: 500, body: { status: 'error' }, handlerCalls: 1 }),
      delivery({ status: 500, body: { status: 'error' }, handlerCalls: 2 }, retry),
    ],
    { handlers: { 'order.close': 'throw' } },
  ),
  receiverCase(
    'allowUnsigned never weakens a configured secret: an unsigned callback is refused',
    [delivery(refusedWith('missing_header'), { unsigned: true })],
    { allowUnsigned: true },
  ),
  receiverCase(
    'no secrets with allowUnsigned: an unsigned callback is handled',
    [delivery(handled(1), { unsigned: true })],
    { secrets: [], allowUnsigned: true },
  ),
  {
    ...receiverCase('no secrets and allowUnsigned not set: the receiver refuses to be built', [], {
      secrets: [],
    }),
    expect: { refusedToBuild: true },
  },
];
