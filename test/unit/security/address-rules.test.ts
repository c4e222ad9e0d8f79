/**
 * The SSRF allowlist, table-driven: host wildcards match only below their domain (`*.x` is never
 * `evilx`), and entries may pin a port (`host:port`, `cidr:port`), which holds at create (the URL)
 * and at send (the connection pool's lookup, per port), tested against real sockets on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallbackDispatcher } from '../../../src/activities/callback.js';
import { AddressRules, hostMatches, splitPort } from '../../../src/security/address-rules.js';
import { CallbackGuard, CallbackRefusedError } from '../../../src/security/callback-guard.js';

describe('host patterns', () => {
  it.each([
    { host: 'a.x', pattern: '*.x', matches: true },
    { host: 'deep.a.x', pattern: '*.x', matches: true },
    { host: 'evilx', pattern: '*.x', matches: false },
    { host: 'x', pattern: '*.x', matches: false },
    { host: 'a.x.evil', pattern: '*.x', matches: false },
    { host: 'orders.internal', pattern: 'orders.internal', matches: true },
    { host: 'ORDERS.internal.', pattern: 'orders.internal', matches: true },
    { host: 'xorders.internal', pattern: 'orders.internal', matches: false },
  ])('$host against $pattern: $matches', ({ host, pattern, matches }) => {
    expect(hostMatches(host, pattern)).toBe(matches);
  });
});

describe('allowlist entries with a port', () => {
  it.each([
    { entry: '10.0.0.0/8', target: '10.0.0.0/8', port: undefined },
    { entry: '10.0.0.0/8:8443', target: '10.0.0.0/8', port: 8443 },
    { entry: '10.1.2.3:80', target: '10.1.2.3', port: 80 },
    { entry: '[fd00::1]:8443', target: 'fd00::1', port: 8443 },
    { entry: 'fd00::1', target: 'fd00::1', port: undefined },
    { entry: '::1/128:8080', target: '::1/128', port: 8080 },
    { entry: 'orders.internal:8443', target: 'orders.internal', port: 8443 },
    { entry: '*.svc.cluster.local', target: '*.svc.cluster.local', port: undefined },
  ])('$entry', ({ entry, target, port }) => {
    expect(splitPort(entry)).toEqual({ target, port });
  });

  it('refuses a port out of range', () => {
    expect(splitPort('10.0.0.1:70000')).toBeUndefined();
  });

  const rules = new AddressRules({
    allowCidrs: ['10.0.0.0/8:8443', '192.168.1.0/24'],
    allowHosts: ['orders.internal:9000', '*.svc.local'],
  });
  it.each([
    { address: '10.1.1.1', host: undefined, port: 8443, allowed: true },
    { address: '10.1.1.1', host: undefined, port: 8080, allowed: false },
    { address: '10.1.1.1', host: undefined, port: undefined, allowed: false },
    { address: '192.168.1.9', host: undefined, port: 22, allowed: true },
    { address: '172.16.0.9', host: 'orders.internal', port: 9000, allowed: true },
    { address: '172.16.0.9', host: 'orders.internal', port: 9001, allowed: false },
    { address: '172.16.0.9', host: 'a.svc.local', port: 1, allowed: true },
    { address: '169.254.169.254', host: 'orders.internal', port: 9000, allowed: false },
  ])('$address for $host on $port: allowed $allowed', ({ address, host, port, allowed }) => {
    expect(rules.classify(address, host, port) === undefined).toBe(allowed);
  });

  it('holds at create, for the URL as written', () => {
    const guard = new CallbackGuard({ allowCidrs: ['127.0.0.1/32:8443'] });
    expect(() => guard.checkUrl('http://127.0.0.1:8443/cb')).not.toThrow();
    expect(() => guard.checkUrl('http://127.0.0.1:8444/cb')).toThrow(CallbackRefusedError);
    expect(() => guard.checkUrl('http://127.0.0.1/cb')).toThrow(CallbackRefusedError);
  });
});

describe('at send time, the connection pool honours the pinned port', () => {
  const servers: Server[] = [];
  const ports: number[] = [];
  const hits: number[] = [0, 0];

  beforeAll(async () => {
    for (const i of [0, 1]) {
      const server = createServer((_req, res) => {
        hits[i]!++;
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      ports.push((server.address() as AddressInfo).port);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('connects to the allowed port of a name, refuses the other before any byte is sent', async () => {
    const guard = new CallbackGuard({ allowHosts: [`receiver.test:${ports[0]}`] });
    const dispatcher = createCallbackDispatcher(guard, async () => [{ address: '127.0.0.1', family: 4 }]);
    try {
      const ok = await request(`http://receiver.test:${ports[0]}/`, { dispatcher });
      expect(ok.statusCode).toBe(200);
      await ok.body.dump();
      await expect(request(`http://receiver.test:${ports[1]}/`, { dispatcher })).rejects.toMatchObject({
        code: 'ECALLBACKREFUSED',
      });
      expect(hits).toEqual([1, 0]);
    } finally {
      await dispatcher.close();
    }
  });
});
