/**
 * Which client a failed authentication counts against. IPv4: the address. IPv6: its /64, the
 * smallest block one subscriber or host is handed, so walking through the addresses of one prefix
 * does not multiply the attempts. An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
import { isIPv4, isIPv6 } from 'node:net';

export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, each as a lower-case number without leading zeros. */
function expandIPv6(ip: string): string[] {
  const address = ip.split('%')[0]!; // zone id
  const [head, tail] = address.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  // An embedded IPv4 tail (::1.2.3.4) is two groups.
  const last = right.length > 0 ? right : left;
  if (last.length > 0 && last[last.length - 1]!.includes('.')) {
    const v4 = last.pop()!.split('.').map(Number);
    last.push(((v4[0]! << 8) | v4[1]!).toString(16), ((v4[2]! << 8) | v4[3]!).toString(16));
  }
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => parseInt(g, 16).toString(16));
}
