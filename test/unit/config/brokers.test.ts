import { describe, expect, it } from 'vitest';
import { BrokerConfigError, destinationAllowed, parseBrokers } from '../../../src/config/brokers.js';

const valid = { kind: 'redis-streams', url: 'redis://10.0.0.5:6379', owners: { orders: ['orders.*'] } };
const parse = (broker: Record<string, unknown>, env: Record<string, string> = {}) =>
  parseBrokers(JSON.stringify({ brokers: { events: broker } }), env);

describe('parseBrokers', () => {
  it('reads a declaration, its password from the environment, frozen', () => {
    const brokers = parse({ ...valid, username: 'u', passwordEnv: 'PW' }, { PW: 'secret' });
    const events = brokers.get('events')!;
    expect(events).toMatchObject({
      name: 'events',
      kind: 'redis-streams',
      username: 'u',
      password: 'secret',
    });
    expect(Object.isFrozen(events)).toBe(true);
  });

  it.each([
    {
      name: 'an unknown kind',
      broker: { ...valid, kind: 'nats' },
      message: /brokers\.events\.kind must be one of/,
    },
    {
      name: "another kind's scheme",
      broker: { ...valid, url: 'amqp://h' },
      message: /url must start with redis:/,
    },
    {
      name: 'credentials in the URL',
      broker: { ...valid, url: 'redis://u:p@h:6379' },
      message: /must not carry credentials/,
    },
    {
      name: 'an unset password variable',
      broker: { ...valid, passwordEnv: 'NOPE' },
      message: /names NOPE, which is not set/,
    },
    {
      name: 'both password sources',
      broker: { ...valid, passwordFile: '/f', passwordEnv: 'PW' },
      message: /cannot be combined/,
    },
    { name: 'no owners', broker: { ...valid, owners: {} }, message: /owners must name at least one owner/ },
    {
      name: 'an empty destination list',
      broker: { ...valid, owners: { orders: [] } },
      message: /owners\.orders must be/,
    },
    { name: 'an unknown field', broker: { ...valid, host: 'h' }, message: /host is not a known field/ },
    {
      name: 'TLS on a plain URL',
      broker: { ...valid, tls: { caFile: '/ca' } },
      message: /tls needs a TLS URL/,
    },
    {
      name: 'a certificate without its key',
      broker: { ...valid, url: 'rediss://h', tls: { certFile: '/c' } },
      message: /keyFile and certFile go together/,
    },
  ])('refuses $name, naming the field', ({ broker, message }) => {
    expect(() => parse(broker, { PW: 'x' })).toThrow(BrokerConfigError);
    expect(() => parse(broker, { PW: 'x' })).toThrow(message);
  });

  it('gives an owner only what its declaration lists: nothing inherited from Object.prototype', () => {
    const { owners } = parse(valid).get('events')!;
    // `constructor` is a valid owner name (OWNER_PATTERN): it must find no destinations here.
    expect(owners.constructor).toBeUndefined();
    expect(owners.orders).toEqual(['orders.*']);
  });

  it('refuses a file that is not {"brokers": {...}}', () => {
    expect(() => parseBrokers('[]', {})).toThrow(/expected \{"brokers"/);
    expect(() => parseBrokers('{', {})).toThrow(/is not JSON/);
  });
});

describe('destinationAllowed', () => {
  it.each([
    { destination: 'orders.due', allowed: ['orders.due'], expected: true },
    { destination: 'orders.due2', allowed: ['orders.due'], expected: false },
    { destination: 'orders.x', allowed: ['orders.*'], expected: true },
    { destination: 'ordersx', allowed: ['orders.*'], expected: false },
    { destination: 'billing.x', allowed: ['orders.*', 'billing.x'], expected: true },
  ])('$destination against $allowed is $expected', ({ destination, allowed, expected }) => {
    expect(destinationAllowed(destination, allowed)).toBe(expected);
  });
});
