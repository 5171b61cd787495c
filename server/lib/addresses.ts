import { isIPv4, isIPv6 } from 'node:net';

/** What kind of network an IP address belongs to; only `public` may be reached by a push (decision 125). */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved' | 'invalid';

/** IPv4 ranges that are not the public internet, as [first address, prefix length, class]. */
const IPV4_RANGES: [string, number, Exclude<AddressClass, 'public' | 'invalid'>][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  // Carrier-grade NAT: a provider's internal network.
  ['100.64.0.0', 10, 'private'],
  ['169.254.0.0', 16, 'link-local'],
  // Multicast, and the reserved block with the broadcast address.
  ['224.0.0.0', 4, 'reserved'],
  ['240.0.0.0', 4, 'reserved'],
];

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function classifyIPv4(value: number): AddressClass {
  for (const [first, bits, kind] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    const start = ipv4ToNumber(first);
    if (value >= start && value < start + size) return kind;
  }
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part becomes the last two). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToNumber(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const before = parse(head);
  const after = parse(tail);
  const missing = tail === undefined ? 0 : 8 - before.length - after.length;
  return [...before, ...Array<number>(missing).fill(0), ...after];
}

/** The IPv4 address held in groups 6 and 7 (IPv4-mapped and NAT64 addresses). */
const embeddedIPv4 = (groups: number[]) => groups[6] * 65536 + groups[7];

function classifyIPv6(groups: number[]): AddressClass {
  const firstSix = groups.slice(0, 6);
  if (groups.every((group) => group === 0)) return 'unspecified';
  if (firstSix.every((group) => group === 0) && groups[6] === 0 && groups[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d reaches the IPv4 address a.b.c.d; 64:ff9b::a.b.c.d does through a NAT64 gateway.
  if (firstSix.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff)
    return classifyIPv4(embeddedIPv4(groups));
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return classifyIPv4(embeddedIPv4(groups));
  // 6to4 (2002::/16) carries an IPv4 address in groups 1 and 2.
  if (groups[0] === 0x2002) return classifyIPv4(groups[1] * 65536 + groups[2]);
  // The rest of ::/96: deprecated IPv4-compatible addresses.
  if (firstSix.every((group) => group === 0)) return 'reserved';
  if ((groups[0] & 0xfe00) === 0xfc00) return 'private';
  if ((groups[0] & 0xffc0) === 0xfe80) return 'link-local';
  // Site-local (deprecated), a private range in practice.
  if ((groups[0] & 0xffc0) === 0xfec0) return 'private';
  if ((groups[0] & 0xff00) === 0xff00) return 'reserved';
  return 'public';
}

/** The kind of network an IPv4 or IPv6 address (with or without brackets or a zone) belongs to. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return classifyIPv4(ipv4ToNumber(bare));
  if (isIPv6(bare)) return classifyIPv6(ipv6Groups(bare.toLowerCase()));
  return 'invalid';
}
