import { describe, expect, it } from 'vitest';
import { parseBrokers } from '../../../src/config/brokers.js';
import { ApiError } from '../../../src/errors/catalog.js';
import { checkBrokerDelivery } from '../../../src/tasks/broker-target.js';

const brokers = parseBrokers(
  JSON.stringify({
    brokers: {
      events: { kind: 'redis-streams', url: 'redis://h:6379', owners: { orders: ['orders.*'] } },
      bus: { kind: 'rabbitmq', url: 'amqp://h', owners: { orders: ['orders'] } },
      log: { kind: 'kafka', url: 'kafka://h:9092', owners: { billing: ['billing.*'] } },
    },
  }),
  {},
);

const check = (delivery: Record<string, unknown>, owner = 'orders', body: Record<string, unknown> = {}) =>
  checkBrokerDelivery(body, { mode: 'broker', broker: 'events', ...delivery } as never, owner, brokers);

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.details?.[0]?.field;
    throw err;
  }
  return undefined;
}

describe('checkBrokerDelivery', () => {
  it('keeps the target and adds the declared kind', () => {
    expect(check({ stream: 'orders.due', maxLen: 10 })).toEqual({
      mode: 'broker',
      broker: 'events',
      kind: 'redis-streams',
      stream: 'orders.due',
      maxLen: 10,
    });
    expect(check({ broker: 'bus', exchange: 'orders', routingKey: 'r' })).toMatchObject({ kind: 'rabbitmq' });
    expect(check({ broker: 'log', topic: 'billing.t', key: 'id' }, 'billing')).toMatchObject({
      kind: 'kafka',
    });
  });

  it.each([
    {
      name: 'an undeclared broker',
      delivery: { broker: 'none', stream: 'orders.x' },
      field: 'delivery.broker',
    },
    {
      name: "another owner's broker",
      delivery: { broker: 'log', topic: 'billing.t' },
      field: 'delivery.broker',
    },
    { name: 'a disallowed stream', delivery: { stream: 'billing.x' }, field: 'delivery.stream' },
    { name: 'no stream', delivery: {}, field: 'delivery.stream' },
    { name: 'a Kafka field on Redis', delivery: { stream: 'orders.x', key: 'k' }, field: 'delivery.key' },
    { name: 'no exchange', delivery: { broker: 'bus' }, field: 'delivery.exchange' },
    {
      name: 'a callbackUrl too',
      delivery: { stream: 'orders.x' },
      field: 'delivery',
      body: { callbackUrl: 'https://x' },
    },
  ])('refuses $name naming $field', ({ delivery, field, body }) => {
    expect(fieldOf(() => check(delivery, 'orders', body))).toBe(field);
  });
});
