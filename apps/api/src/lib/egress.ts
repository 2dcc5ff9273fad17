/**
 * The one egress policy for every outbound connection made on a tenant's behalf (libvirt hosts, the
 * billing webhook, future image or backup URLs): by default public unicast addresses only, plus the CIDR
 * ranges the operator allows (EGRESS_ALLOW). Names are judged on every address they resolve to, and
 * `lookup` judges again at connect time, so a DNS answer that changes after a check (rebinding) is refused.
 * Address parsing and special ranges come from ipaddr.js (RFC-maintained tables), not hand-rolled bit math.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { BadRequestError } from './errors.ts';

/** Safe to show a tenant: says what to do, never what the server found on the network. */
export const EGRESS_REFUSED_MESSAGE =
  'This address is not reachable from the portal: use a public address, or ask the operator to allow your network';

/** A refused target (an address, a name or one of its answers). A 400 when it reaches a route. */
export class EgressRefusedError extends BadRequestError {
  readonly code = 'EEGRESS';
  constructor(
    /** For logs only: why (never shown to the tenant). */
    readonly reason: 'address' | 'name' | 'unresolved' = 'address',
  ) {
    super(EGRESS_REFUSED_MESSAGE);
  }
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/** dns.lookup's callback form, as net.connect, http.Agent and undici's `connect.lookup` call it. */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions | number | ((...args: never[]) => void),
  callback?: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export interface EgressPolicy {
  /** Whether a connection to this address (already resolved, no name) may be made. */
  isAllowedAddress(ip: string): boolean;
  /** Every address `host` (a literal or a name) resolves to, when all are allowed; else EgressRefusedError. */
  resolveAllowed(host: string): Promise<string[]>;
  /** A dns.lookup replacement that refuses disallowed answers at connect time. */
  lookup: LookupFunction;
}

export interface EgressPolicyOptions {
  /** CIDR ranges the operator allows besides public unicast (e.g. a reseller's management network). */
  allow?: string[];
  /** The resolver (A and AAAA); tests inject one. Default: the system's (getaddrinfo, as connect would). */
  lookup?: Resolver;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

/** Names that reach the machine itself or a cloud's metadata service, refused whatever they resolve to. */
const REFUSED_NAME_SUFFIXES = ['localhost', 'internal', 'local', 'home.arpa', 'in-addr.arpa', 'ip6.arpa'];

function isRefusedName(name: string): boolean {
  // A single label ("metadata", "db") goes through the resolver's search domains: an internal name.
  if (!name.includes('.')) return true;
  return REFUSED_NAME_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`));
}

/** Parses a CIDR ("10.0.0.0/8", "2001:db8::/32") or a bare address (a /32 or /128). */
export function parseCidr(entry: string): Cidr {
  const trimmed = entry.trim();
  if (!trimmed.includes('/')) {
    const a = ipaddr.parse(trimmed);
    return [a, a.kind() === 'ipv4' ? 32 : 128];
  }
  return ipaddr.parseCIDR(trimmed);
}

/** The IPv4 an embedded IPv6 form carries, when connecting to it reaches (or is translated to) that IPv4. */
function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = a.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (RFC 6145 translated)
  if (a.range() === 'ipv4Mapped' || a.range() === 'rfc6145') return [v4(p[6]!, p[7]!)];
  // NAT64 well-known prefix 64:ff9b::/96
  if (a.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return [v4(p[6]!, p[7]!)];
  // 6to4 2002:AABB:CCDD::/48
  if (a.match(ipaddr.IPv6.parse('2002::'), 16)) return [v4(p[1]!, p[2]!)];
  // Teredo 2001:0:SERVER:flags:port:~CLIENT
  if (a.match(ipaddr.IPv6.parse('2001::'), 32)) return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
  return [];
}

/**
 * A host string as an address, or null for a name. Besides dotted quads this takes the forms
 * inet_aton (and so getaddrinfo) reads as IPv4: "2130706433", "0x7f000001", "127.1", "0177.0.0.1".
 * A name whose last label is numeric but is no such form is refused (as the WHATWG URL parser does).
 */
function literalOf(host: string): Address | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0 || bare.includes(':')) {
    if (!ipaddr.isValid(bare) || bare.includes('%')) throw new EgressRefusedError('address');
    // ipaddr.js reads the deprecated IPv4-compatible "::a.b.c.d" as mapped; a socket would not.
    if (/^::[\d.]+$/.test(bare)) throw new EgressRefusedError('address');
    return ipaddr.parse(bare);
  }
  const lastLabel = bare.replace(/\.$/, '').split('.').pop() ?? '';
  if (/^(\d+|0x[0-9a-f]*)$/i.test(lastLabel)) {
    if (!ipaddr.IPv4.isValid(bare)) throw new EgressRefusedError('address');
    return ipaddr.IPv4.parse(bare);
  }
  return null;
}

export function createEgressPolicy(opts: EgressPolicyOptions = {}): EgressPolicy {
  const allow = (opts.allow ?? []).filter((e) => e.trim() !== '').map(parseCidr);
  const resolve = opts.lookup ?? systemResolver;

  const inAllowList = (a: Address) =>
    allow.some(([net, bits]) => net.kind() === a.kind() && a.match(net as never, bits));

  function allowedParsed(a: Address): boolean {
    if (inAllowList(a)) return true;
    if (a.kind() === 'ipv4') return a.range() === 'unicast';
    const v6 = a as ipaddr.IPv6;
    const embedded = embeddedIPv4(v6);
    if (embedded.length > 0) return embedded.every(allowedParsed);
    // Deprecated IPv4-compatible ::a.b.c.d (and ::/96 in general): never a real destination.
    if (v6.match(ipaddr.IPv6.parse('::'), 96)) return false;
    // Global unicast is 2000::/3; ipaddr.js calls anything it has no name for "unicast".
    return v6.range() === 'unicast' && v6.match(ipaddr.IPv6.parse('2000::'), 3);
  }

  function isAllowedAddress(ip: string): boolean {
    try {
      const a = literalOf(ip.trim());
      return a !== null && allowedParsed(a);
    } catch {
      return false;
    }
  }

  async function resolveAllowed(host: string): Promise<string[]> {
    const name = host.trim().toLowerCase();
    const literal = literalOf(name);
    if (literal) {
      if (!allowedParsed(literal)) throw new EgressRefusedError('address');
      return [literal.toString()];
    }
    const bare = name.replace(/\.$/, '');
    if (bare === '' || isRefusedName(bare)) throw new EgressRefusedError('name');
    let answers: { address: string }[];
    try {
      answers = await resolve(bare);
    } catch {
      throw new EgressRefusedError('unresolved');
    }
    if (answers.length === 0) throw new EgressRefusedError('unresolved');
    // Every answer, not only the first: a client may try the others (happy eyeballs, retries).
    if (!answers.every((r) => isAllowedAddress(r.address))) throw new EgressRefusedError('address');
    return answers.map((r) => ipaddr.process(r.address).toString());
  }

  const lookup: LookupFunction = (hostname, options, callback) => {
    const cb = (typeof options === 'function' ? options : callback) as NonNullable<typeof callback>;
    const o: LookupOptions =
      typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    resolveAllowed(hostname).then(
      (addresses) => {
        const family = o.family === 'IPv4' ? 4 : o.family === 'IPv6' ? 6 : Number(o.family ?? 0);
        const list = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((r) => family === 0 || r.family === family);
        if (list.length === 0) {
          const err: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: 'ENOTFOUND',
          });
          cb(err, o.all ? [] : '', 0);
        } else if (o.all) cb(null, list);
        else cb(null, list[0]!.address, list[0]!.family);
      },
      (err: unknown) => cb(err as NodeJS.ErrnoException, o.all ? [] : '', 0),
    );
  };

  return { isAllowedAddress, resolveAllowed, lookup };
}
