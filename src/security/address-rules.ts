/**
 * Which network addresses a callback may reach: the SSRF rules, shared by the API (at create) and
 * the worker's connection pool (at send time). Loopback, private, link-local, CGNAT, multicast,
 * unspecified, reserved and documentation ranges, IPv4-mapped IPv6 and cloud metadata addresses
 * are refused; operators open exceptions with CIDRs and host names, except for metadata addresses,
 * which stay refused whatever the allowlist says.
 */
import { BlockList, isIP } from 'node:net';

/** Why an address is refused; `undefined` from `classify` means it may be reached. */
export type RefusalReason =
  | 'cloud metadata'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'IPv4-mapped IPv6'
  | 'not an IP address';

type Range = readonly [address: string, prefix: number, reason: RefusalReason];

/** Instance metadata services of the major clouds: refused even when an allowlist covers them. */
const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
  '169.254.170.2', // AWS ECS task metadata
  '169.254.169.123', // AWS time sync
  '169.254.0.23', // Tencent Cloud
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud
  'fd00:ec2::254', // AWS over IPv6
  'fd00:ec2::23', // AWS time sync over IPv6
];

/** Host names of metadata services (and the names they are reached by inside each cloud). */
const METADATA_HOSTS: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.azure.internal',
];

const IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // documentation
  ['203.0.113.0', 24, 'reserved'], // documentation
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes 255.255.255.255
];

const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64
  ['100::', 64, 'reserved'], // discard-only
  ['2001::', 23, 'reserved'], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32, 'reserved'], // documentation
  ['3fff::', 20, 'reserved'], // documentation
  ['5f00::', 16, 'reserved'], // segment routing SIDs
  ['fc00::', 7, 'private'], // unique local
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'], // site-local (deprecated)
  ['ff00::', 8, 'multicast'],
];

/** Ranges of IPv6 that carry an IPv4 address: judged by the address they carry. */
const EMBEDDED_IPV4: readonly { prefix: string; bits: number }[] = [
  { prefix: '64:ff9b::', bits: 96 }, // NAT64 well-known prefix: the last 32 bits
  { prefix: '2002::', bits: 16 }, // 6to4: bits 16..48
];

const metadata = new BlockList();
for (const address of METADATA_ADDRESSES) metadata.addAddress(address, family(address));

const denied = new Map<RefusalReason, BlockList>();
for (const [address, prefix, reason] of [...IPV4_RANGES, ...IPV6_RANGES]) {
  let list = denied.get(reason);
  if (!list) denied.set(reason, (list = new BlockList()));
  list.addSubnet(address, prefix, family(address));
}

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

/** A CIDR (`10.0.0.0/8`, `::1/128`) or a single address; undefined when it is neither. */
export function parseCidr(
  value: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, extra] = value.trim().split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** `orders.internal` matches itself; `*.internal` matches any name under internal. */
export function hostMatches(hostname: string, pattern: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const rule = pattern.toLowerCase().replace(/\.$/, '');
  return rule.startsWith('*.') ? host.endsWith(rule.slice(1)) : host === rule;
}

/**
 * An allowlist entry with an optional port: `10.0.0.0/8`, `10.0.0.0/8:8443`, `10.1.2.3:8443`,
 * `[fd00::1]:8443`, `::1/128:8080`; hosts `orders.internal`, `orders.internal:8443`,
 * `*.svc.cluster.local:80`. A port pins the exception to callbacks sent to that port.
 */
export function splitPort(entry: string): { target: string; port: number | undefined } | undefined {
  const value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const [target, portText] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : (/^(.*\/\d{1,3}|[^:]+):(\d{1,5})$/.exec(value)?.slice(1, 3) ?? [value, undefined]);
  if (portText === undefined) return { target: target!, port: undefined };
  const port = Number(portText);
  return port >= 1 && port <= 65_535 ? { target: target!, port } : undefined;
}

/** A CIDR or address allowlist entry, with an optional port; undefined when it is not one. */
export function parseAllowCidr(
  entry: string,
): (NonNullable<ReturnType<typeof parseCidr>> & { port: number | undefined }) | undefined {
  const split = splitPort(entry);
  const cidr = split && parseCidr(split.target);
  return cidr && { ...cidr, port: split.port };
}

export interface AddressRulesOptions {
  /**
   * CIDRs whose addresses may be reached although a rule refuses them (metadata excepted), each
   * optionally pinned to a port (`10.0.0.0/8:8443`).
   */
  allowCidrs?: readonly string[];
  /**
   * Host names (exact or `*.domain`) that may resolve to refused addresses (metadata excepted),
   * each optionally pinned to a port (`orders.internal:8443`).
   */
  allowHosts?: readonly string[];
}

/** The SSRF rules with an operator's exceptions. */
export class AddressRules {
  /** Allowed on any port. */
  private readonly allowed = new BlockList();
  /** Allowed on one port only, by port. */
  private readonly allowedOnPort = new Map<number, BlockList>();
  private readonly allowHosts: readonly { pattern: string; port: number | undefined }[];

  constructor(options: AddressRulesOptions = {}) {
    for (const cidr of options.allowCidrs ?? []) {
      const parsed = parseAllowCidr(cidr);
      if (!parsed) throw new TypeError(`not a CIDR: ${cidr}`);
      let list = this.allowed;
      if (parsed.port !== undefined) {
        list = this.allowedOnPort.get(parsed.port) ?? new BlockList();
        this.allowedOnPort.set(parsed.port, list);
      }
      list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    this.allowHosts = (options.allowHosts ?? []).map((entry) => {
      const split = splitPort(entry);
      if (!split) throw new TypeError(`not a host or host:port: ${entry}`);
      return { pattern: split.target, port: split.port };
    });
  }

  /** Metadata services, by name: refused whatever the allowlist says. */
  static isMetadataHost(hostname: string): boolean {
    return METADATA_HOSTS.some((name) => hostMatches(hostname, name));
  }

  /** Whether the operator allowed this host name whatever it resolves to (metadata excepted). */
  hostAllowed(hostname: string, port?: number): boolean {
    return this.allowHosts.some(
      (entry) => hostMatches(hostname, entry.pattern) && (entry.port === undefined || entry.port === port),
    );
  }

  /**
   * Why `address` (an IP address as text) may not be reached from a callback to `hostname`, or
   * undefined when it may.
   */
  classify(address: string, hostname?: string, port?: number): RefusalReason | undefined {
    const version = isIP(address);
    if (version === 0) return 'not an IP address';
    const type = version === 4 ? 'ipv4' : 'ipv6';
    if (metadata.check(address, type)) return 'cloud metadata';
    if (version === 6) {
      const mapped = /^::ffff:/i.test(new URL(`http://[${address}]/`).hostname.slice(1, -1));
      // Written as IPv6 to slip past IPv4 rules: never needed for a real callback.
      if (mapped) return 'IPv4-mapped IPv6';
      const embedded = embeddedIpv4(address);
      if (embedded) return this.classify(embedded, hostname, port);
    }
    const reason = builtInReason(address, type);
    if (reason === undefined) return undefined;
    if (this.allowed.check(address, type)) return undefined;
    if (port !== undefined && this.allowedOnPort.get(port)?.check(address, type)) return undefined;
    if (hostname !== undefined && this.hostAllowed(hostname, port)) return undefined;
    return reason;
  }
}

function builtInReason(address: string, type: 'ipv4' | 'ipv6'): RefusalReason | undefined {
  for (const [reason, list] of denied) if (list.check(address, type)) return reason;
  return undefined;
}

/** The IPv4 address inside a NAT64 or 6to4 IPv6 address, if it is one. */
function embeddedIpv4(address: string): string | undefined {
  for (const { prefix, bits } of EMBEDDED_IPV4) {
    const list = new BlockList();
    list.addSubnet(prefix, bits, 'ipv6');
    if (!list.check(address, 'ipv6')) continue;
    const groups = expandIpv6(address);
    const [high, low] = bits === 96 ? [groups[6]!, groups[7]!] : [groups[1]!, groups[2]!];
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address. */
function expandIpv6(address: string): number[] {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
