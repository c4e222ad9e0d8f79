/** Pull delivery as a test's consumer speaks it: lease, ack, nack, extend, release through the API. */
import type { Lease } from '../../src/contract/leases.js';
import type { Harness } from './harness.js';

export interface LeaseCall {
  queues: string[];
  max?: number;
  waitSeconds?: number;
  workerIdentity?: string;
}

/** One lease call; `key` an API key when authentication is on. */
export async function lease(
  h: Harness,
  body: LeaseCall,
  key?: string,
): Promise<{ status: number; leases: Lease[]; body: any }> {
  const { status, body: answer } = await h.call('POST', '/api/v1/leases', {
    payload: body,
    ...(key ? { key } : {}),
  });
  return { status, leases: (answer as { leases?: Lease[] }).leases ?? [], body: answer };
}

/** Leases until a task comes (each call long-polls up to `waitSeconds`), or fails after `tries`. */
export async function leaseOne(h: Harness, body: LeaseCall, key?: string, tries = 3): Promise<Lease> {
  for (let i = 0; i < tries; i++) {
    const { status, leases, body: answer } = await lease(h, { waitSeconds: 10, ...body }, key);
    if (status !== 200) throw new Error(`lease answered ${status}: ${JSON.stringify(answer)}`);
    if (leases[0]) return leases[0];
  }
  throw new Error(`no task leased from ${body.queues.join(', ')}`);
}

/** ack, nack, extend or release a lease. */
export async function settle(
  h: Harness,
  verb: 'ack' | 'nack' | 'extend' | 'release',
  body: Record<string, unknown>,
  key?: string,
): Promise<{ status: number; body: any }> {
  const { status, body: answer } = await h.call('POST', `/api/v1/leases/${verb}`, {
    payload: body,
    ...(key ? { key } : {}),
  });
  return { status, body: answer };
}

/** A pull task due now on `queue` (default: its type). */
export function pullTask(taskType: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { taskType, payload: { n: 1 }, delaySeconds: 0, delivery: { mode: 'pull' }, ...fields };
}
