/** The benchmark's broker systems: what they declare in BROKERS_FILE, as the service reads it, and their create request. */
import { describe, expect, it } from 'vitest';
import { brokerDeclaration, type BrokerServer } from '../../../bench/infra/local-brokers.js';
import { deliveryRequest } from '../../../bench/systems/consumer-system.js';
import { destinationAllowed, parseBrokers } from '../../../src/config/brokers.js';

/** URLs as scripts/local-server.sh prints them. */
const CASES: { server: BrokerServer; url: string; kind: string; declaredUrl: string }[] = [
  {
    server: 'redis',
    url: 'redis://127.0.0.1:6390',
    kind: 'redis-streams',
    declaredUrl: 'redis://127.0.0.1:6390',
  },
  {
    server: 'rabbitmq',
    url: 'amqp://guest:guest@127.0.0.1:5679',
    kind: 'rabbitmq',
    declaredUrl: 'amqp://127.0.0.1:5679',
  },
  { server: 'kafka', url: 'kafka://127.0.0.1:9099', kind: 'kafka', declaredUrl: 'kafka://127.0.0.1:9099' },
];

describe('brokerDeclaration', () => {
  it.each(CASES)('declares $server as the service accepts it, allowing the consumers’ destinations', (c) => {
    const text = JSON.stringify({ brokers: { [c.server]: brokerDeclaration(c.server, c.url) } });
    const declared = parseBrokers(text, { BENCH_RABBITMQ_PASSWORD: 'guest' }).get(c.server)!;
    expect(declared).toMatchObject({ kind: c.kind, url: c.declaredUrl });
    expect(declared.url).not.toContain('guest');
    expect(destinationAllowed(`bench.ours-${c.server}.m1abc`, declared.owners.default!)).toBe(true);
    expect(destinationAllowed('orders.due', declared.owners.default!)).toBe(false);
  });
});

describe('deliveryRequest', () => {
  it('replaces the callback URL with the delivery', () => {
    const request = deliveryRequest(
      {
        taskId: 't-2',
        taskType: 'bench.herd',
        executeAtMs: Date.UTC(2026, 11, 7, 16, 0, 0),
        callbackUrl: 'http://127.0.0.1:1/run',
        maxRetries: 3,
        payload: { i: 2 },
      },
      { mode: 'broker', broker: 'kafka', topic: 'bench.ours-kafka.x' },
    );
    expect(request).not.toHaveProperty('callbackUrl');
    expect(request).toMatchObject({
      taskId: 't-2',
      executeAt: '2026-12-07T16:00:00.000Z',
      delivery: { mode: 'broker', broker: 'kafka', topic: 'bench.ours-kafka.x' },
    });
  });
});
