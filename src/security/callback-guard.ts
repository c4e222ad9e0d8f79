/**
 * The SSRF guard of callback URLs. At create, the API checks the URL as written (scheme, no
 * credentials, IP literals and well-known names) and the addresses its host resolves to now. At
 * send time, the worker's connection pool resolves the host itself and connects only to addresses
 * that pass the same rules (`guardedLookup`), since DNS may have changed or been rebound since.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { AddressRules, hostMatches, type AddressRulesOptions, type RefusalReason } from './address-rules.js';

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    ),
  );

export interface CallbackGuardOptions extends AddressRulesOptions {
  /** Refuse `http:` callback URLs. @defaultValue false */
  httpsOnly?: boolean;
}

/**
 * A callback URL or address the rules refuse. The message says which rule refused and may reach the
 * task's owner (a create's answer, a task's `lastError`): it never names the address a host name
 * resolved to, which is our network's to know; `address` carries it for the logs.
 */
export class CallbackRefusedError extends Error {
  override name = 'CallbackRefusedError';
  /** Like a Node network error, so that it survives the socket layer and reads the same in logs. */
  readonly code = 'ECALLBACKREFUSED';

  constructor(
    message: string,
    /** The refused address a host name resolved to (for the log only); absent for an IP literal. */
    readonly address?: string,
  ) {
    super(message);
  }
}

/** Names every machine resolves to itself, whatever DNS says. */
const LOOPBACK_NAMES = ['localhost', '*.localhost', 'localhost.localdomain'];

export class CallbackGuard {
  readonly rules: AddressRules;
  private readonly httpsOnly: boolean;

  constructor(options: CallbackGuardOptions = {}) {
    this.rules = new AddressRules(options);
    this.httpsOnly = options.httpsOnly ?? false;
  }

  /**
   * Checks a URL as written, without DNS: scheme, credentials, an IP literal, a loopback or metadata
   * name. Returns the parsed URL; throws CallbackRefusedError with a reason a caller can act on.
   */
  checkUrl(value: string): URL {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new CallbackRefusedError('must be an absolute http(s) URL');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      throw new CallbackRefusedError('must be an absolute http(s) URL');
    }
    if (this.httpsOnly && url.protocol !== 'https:') {
      throw new CallbackRefusedError('must be an https URL (CALLBACK_HTTPS_ONLY is on)');
    }
    if (url.username !== '' || url.password !== '') {
      throw new CallbackRefusedError(
        'must not carry credentials (user:pass@): give the receiver a header secret in the task-type policy instead (headers)',
      );
    }
    const host = bareHost(url.hostname);
    if (AddressRules.isMetadataHost(host)) {
      throw new CallbackRefusedError(`host ${host} is a cloud metadata service`);
    }
    const port = portOf(url);
    if (isIP(host) !== 0) {
      this.checkAddress(host, host, port);
    } else if (LOOPBACK_NAMES.some((name) => hostMatches(host, name))) {
      // Resolves to loopback on every machine: judged as 127.0.0.1 and ::1 both.
      for (const address of ['127.0.0.1', '::1']) this.checkAddress(address, host, port);
    }
    return url;
  }

  /** Throws when `address` (reached for `hostname` on `port`) may not be called. */
  checkAddress(address: string, hostname: string, port?: number): void {
    const reason = this.rules.classify(address, hostname, port);
    if (reason === undefined) return;
    const named = hostname !== address;
    throw new CallbackRefusedError(refusal(hostname, address, reason), named ? address : undefined);
  }

  /** Checks every address `hostname` resolves to; a name that does not resolve passes (send time decides). */
  async checkResolved(url: URL, resolve: Resolver): Promise<void> {
    const host = bareHost(url.hostname);
    if (isIP(host) !== 0) return;
    let addresses: LookupAddress[];
    try {
      addresses = await resolve(host);
    } catch {
      return;
    }
    for (const { address } of addresses) this.checkAddress(address, host, portOf(url));
  }

  /**
   * A `lookup` for net.connect / undici's `connect` option: resolves with `resolve`, refuses the
   * connection unless every address passes (for `port`: allowlist entries may pin one), and
   * connects only to those.
   */
  lookup(resolve: Resolver = systemResolver, port?: number): LookupFunction {
    return (hostname, options, callback) => {
      resolve(hostname).then(
        (addresses) => {
          try {
            const host = bareHost(hostname);
            if (addresses.length === 0) throw new CallbackRefusedError(`host ${host} has no address`);
            for (const { address } of addresses) this.checkAddress(address, host, port);
          } catch (err) {
            callback(err as NodeJS.ErrnoException, '', 0);
            return;
          }
          const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
          const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
          if (options.all) {
            (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, usable);
          } else {
            const first = usable[0];
            if (!first) {
              const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
                code: 'ENOTFOUND',
              });
              callback(err, '', 0);
            } else callback(null, first.address, first.family);
          }
        },
        (err: NodeJS.ErrnoException) => callback(err, '', 0),
      );
    };
  }
}

/** Why an address is refused, naming the host as written: a resolved address is never named. */
function refusal(hostname: string, address: string, reason: RefusalReason): string {
  const literal = hostname === address;
  const target = literal ? `address ${address}` : `host ${hostname}`;
  const is = literal ? 'is' : 'resolves to';
  if (reason === 'cloud metadata')
    return `${target} ${is} a cloud metadata service; callbacks never reach it`;
  if (reason === 'IPv4-mapped IPv6' || reason === 'not an IP address')
    return `${target} ${is} ${literal ? 'refused' : 'an address refused'} (${reason}); write the address as IPv4`;
  return `${target} ${is} a ${reason} address; callbacks may not reach it unless CALLBACK_ALLOW_CIDRS or CALLBACK_ALLOW_HOSTS allows it`;
}

/** The port a URL is sent to: its own, or the scheme's. */
export function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** `[::1]` as URL.hostname gives it, without the brackets. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}
