/**
 * The SSRF rules as written in a URL and as resolved: every spelling of a refused address is
 * refused, exceptions open only what they name, metadata addresses stay refused whatever is allowed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { AddressRules, parseCidr } from '../../../src/security/address-rules.js';
import { CallbackGuard, CallbackRefusedError, type Resolver } from '../../../src/security/callback-guard.js';
import { createCallbackDispatcher } from '../../../src/activities/callback.js';

function refusal(guard: CallbackGuard, url: string): string | undefined {
  try {
    guard.checkUrl(url);
    return undefined;
  } catch (err) {
    if (err instanceof CallbackRefusedError) return err.message;
    throw err;
  }
}

describe('CallbackGuard.checkUrl (at create, as written)', () => {
  const guard = new CallbackGuard();
  it.each([
    { url: 'http://169.254.169.254/latest/meta-data', reason: /cloud metadata/ },
    { url: 'http://[fd00:ec2::254]/', reason: /cloud metadata/ },
    { url: 'http://100.100.100.200/', reason: /cloud metadata/ },
    { url: 'http://metadata.google.internal/computeMetadata/v1/', reason: /cloud metadata/ },
    { url: 'http://METADATA.google.internal./', reason: /cloud metadata/ },
    { url: 'http://[::1]:22/', reason: /loopback/ },
    { url: 'http://[::ffff:127.0.0.1]/', reason: /IPv4-mapped/ },
    { url: 'http://[::ffff:a9fe:a9fe]/', reason: /cloud metadata|IPv4-mapped/ },
    { url: 'http://2130706433/', reason: /127\.0\.0\.1 is a loopback/ },
    { url: 'http://0177.0.0.1/', reason: /127\.0\.0\.1 is a loopback/ },
    { url: 'http://0x7f.1/', reason: /127\.0\.0\.1 is a loopback/ },
    { url: 'http://127.1/', reason: /loopback/ },
    { url: 'http://localhost:8080/', reason: /loopback/ },
    { url: 'http://api.localhost/', reason: /loopback/ },
    { url: 'http://10.1.2.3/', reason: /private/ },
    { url: 'http://172.16.0.1/', reason: /private/ },
    { url: 'http://192.168.1.1/', reason: /private/ },
    { url: 'http://[fc00::1]/', reason: /private/ },
    { url: 'http://169.254.1.1/', reason: /link-local/ },
    { url: 'http://[fe80::1]/', reason: /link-local/ },
    { url: 'http://100.64.0.1/', reason: /carrier-grade NAT/ },
    { url: 'http://224.0.0.1/', reason: /multicast/ },
    { url: 'http://[ff02::1]/', reason: /multicast/ },
    { url: 'http://0.0.0.0/', reason: /unspecified/ },
    { url: 'http://[::]/', reason: /unspecified/ },
    { url: 'http://240.0.0.1/', reason: /reserved/ },
    { url: 'http://255.255.255.255/', reason: /reserved/ },
    { url: 'http://192.0.2.1/', reason: /reserved/ },
    { url: 'http://[64:ff9b::7f00:1]/', reason: /loopback/ }, // NAT64 of 127.0.0.1
    { url: 'http://[2002:a00:1::]/', reason: /private/ }, // 6to4 of 10.0.0.1
    { url: 'http://user:pass@x.test/', reason: /credentials.*header secret/ },
    { url: 'http://:pass@x.test/', reason: /credentials/ },
    { url: 'ftp://x.test/', reason: /absolute http\(s\) URL/ },
    { url: 'file:///etc/passwd', reason: /absolute http\(s\) URL/ },
    { url: 'x.test/cb', reason: /absolute http\(s\) URL/ },
  ])('refuses $url', ({ url, reason }) => {
    expect(refusal(guard, url)).toMatch(reason);
  });

  it('never echoes a password it refuses', () => {
    expect(refusal(guard, 'http://user:hunter2-secret@x.test/')).not.toContain('hunter2');
  });

  it.each([
    'https://example.com/cb',
    'http://93.184.215.14/',
    'http://[2606:4700::1111]/',
    'http://orders.internal/x',
  ])('accepts %s', (url) => expect(refusal(guard, url)).toBeUndefined());

  it('refuses http: when https is required', () => {
    const strict = new CallbackGuard({ httpsOnly: true });
    expect(refusal(strict, 'http://example.com/')).toMatch(/https/);
    expect(refusal(strict, 'https://example.com/')).toBeUndefined();
  });
});

describe('exceptions', () => {
  it('CALLBACK_ALLOW_CIDRS opens what it names and nothing else', () => {
    const guard = new CallbackGuard({ allowCidrs: ['127.0.0.0/8', '::1/128', '10.20.0.0/16'] });
    expect(refusal(guard, 'http://127.0.0.1:3000/')).toBeUndefined();
    expect(refusal(guard, 'http://[::1]/')).toBeUndefined();
    expect(refusal(guard, 'http://localhost/')).toBeUndefined();
    expect(refusal(guard, 'http://2130706433/')).toBeUndefined();
    expect(refusal(guard, 'http://10.20.3.4/')).toBeUndefined();
    expect(refusal(guard, 'http://10.21.3.4/')).toMatch(/private/);
    expect(refusal(guard, 'http://192.168.0.1/')).toMatch(/private/);
  });

  it('metadata addresses stay refused whatever the allowlist says', () => {
    const guard = new CallbackGuard({
      allowCidrs: ['0.0.0.0/0', '::/0'],
      allowHosts: ['metadata.google.internal', '*.internal'],
    });
    expect(refusal(guard, 'http://169.254.169.254/')).toMatch(/cloud metadata/);
    expect(refusal(guard, 'http://[fd00:ec2::254]/')).toMatch(/cloud metadata/);
    expect(refusal(guard, 'http://100.100.100.200/')).toMatch(/cloud metadata/);
    expect(refusal(guard, 'http://metadata.google.internal/')).toMatch(/cloud metadata/);
    expect(refusal(guard, 'http://10.0.0.1/')).toBeUndefined();
  });

  it('CALLBACK_ALLOW_HOSTS lets a named host resolve to a private address, not to metadata', async () => {
    const guard = new CallbackGuard({ allowHosts: ['*.svc.internal'] });
    const resolve: Resolver = async (host) =>
      host === 'meta.svc.internal'
        ? [{ address: '169.254.169.254', family: 4 }]
        : [{ address: '10.0.0.7', family: 4 }];
    await expect(
      guard.checkResolved(new URL('http://orders.svc.internal/'), resolve),
    ).resolves.toBeUndefined();
    await expect(guard.checkResolved(new URL('http://orders.elsewhere/'), resolve)).rejects.toThrow(
      /private/,
    );
    await expect(guard.checkResolved(new URL('http://meta.svc.internal/'), resolve)).rejects.toThrow(
      /cloud metadata/,
    );
  });

  it('parses CIDRs strictly', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    for (const bad of ['10.0.0.0/33', '10.0.0/8', 'example.com/8', '10.0.0.0/8/1', '10.0.0.0/x'])
      expect(parseCidr(bad)).toBeUndefined();
    expect(() => new AddressRules({ allowCidrs: ['nope'] })).toThrow(/not a CIDR/);
  });
});

describe('checkResolved (at create, through DNS)', () => {
  const guard = new CallbackGuard();
  it('refuses a name when any address it resolves to is refused', async () => {
    const resolve: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const refused = await guard
      .checkResolved(new URL('http://rebind.test/'), resolve)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CallbackRefusedError);
    // The message (which may reach the task's owner) names the host, not what it resolved to.
    expect((refused as CallbackRefusedError).message).toMatch(
      /^host rebind\.test resolves to a loopback address/,
    );
    expect((refused as CallbackRefusedError).message).not.toContain('127.0.0.1');
    expect((refused as CallbackRefusedError).address).toBe('127.0.0.1');
  });
  it('leaves a name that does not resolve to send time', async () => {
    const resolve: Resolver = async () => Promise.reject(new Error('ENOTFOUND'));
    await expect(guard.checkResolved(new URL('http://nowhere.test/'), resolve)).resolves.toBeUndefined();
  });
});

describe('the connection pool (at send time)', () => {
  it('connects to an allowed address of the name, and refuses the whole name when one address is refused', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const answers: Record<string, string[]> = {
      'good.test': ['127.0.0.1'],
      'mixed.test': ['127.0.0.1', '10.9.9.9'],
    };
    const resolve: Resolver = async (host) =>
      (answers[host] ?? []).map((address) => ({ address, family: 4 }));
    const dispatcher: Agent = createCallbackDispatcher(
      new CallbackGuard({ allowCidrs: ['127.0.0.0/8'] }),
      resolve,
    );
    try {
      const ok = await request(`http://good.test:${port}/`, { dispatcher });
      expect(await ok.body.text()).toBe('ok');
      const refused = await request(`http://mixed.test:${port}/`, { dispatcher }).catch(
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(CallbackRefusedError);
      expect((refused as Error).message).toMatch(/^host mixed\.test resolves to a private address/);
      expect((refused as Error).message).not.toContain('10.9.9.9');
      expect((refused as CallbackRefusedError).address).toBe('10.9.9.9');
      const none = await request(`http://none.test:${port}/`, { dispatcher }).catch((err: unknown) => err);
      expect((none as Error).message).toMatch(/no address/);
    } finally {
      await dispatcher.close();
      server.close();
    }
  });
});
