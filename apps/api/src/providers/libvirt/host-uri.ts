/**
 * libvirt host URIs as data (issue 21): parsed into their parts, checked against the policy of the host's owner,
 * and rendered back into the one string virsh is given. A reseller's URI is never passed through: libvirt's URI
 * runs programs (`qemu+ext`, `command=`), opens local sockets (`qemu:///`, `socket=`), reads files (`keyfile=`,
 * `pkipath=`) and switches verification off (`no_verify=`); a reseller may name a remote host, nothing else.
 *
 * - reseller policy (the provider row has a reseller): `qemu+ssh://[user@]host[:port]/system`,
 *   `qemu+tls://host[:port]/system`, and `qemu+tcp://host[:port]/system` when the operator allows it
 *   (RESELLER_HOST_TCP). No query at all: what the connection needs (key, known hosts, ssh client) the portal
 *   sets itself when it renders the URI (host-connection.ts).
 * - operator policy (the platform's providers): anything libvirt accepts, as before, but still parsed (one line,
 *   no whitespace or control characters, `scheme://…`).
 */
import net from 'node:net';

export type HostTransport = 'local' | 'ssh' | 'tls' | 'tcp' | 'test' | 'other';

export interface HostUri {
  /** libvirt's driver: `qemu`, `test`, … */
  driver: string;
  /** The `+transport` of the scheme as written (`ssh`, `tls`, `ext`, `unix`, …), or null. */
  transportName: string | null;
  transport: HostTransport;
  user?: string;
  /** A name (lower-cased), an IPv4 literal, or an IPv6 literal without its brackets. */
  host?: string;
  port?: number;
  path: string;
  /** Query parameters in order, decoded (names as written). */
  params: { name: string; value: string }[];
}

export type HostUriPolicy = { owner: 'operator' } | { owner: 'reseller'; allowTcp: boolean };

/** A URI the policy refuses: the message says what to write instead, never what the server found. */
export class HostUriError extends Error {
  override name = 'HostUriError';
}

export const MAX_HOST_URI_LENGTH = 500;

export function hostUriFormText(allowTcp: boolean): string {
  return `Use qemu+ssh://user@host[:port]/system or qemu+tls://host[:port]/system${
    allowTcp ? ' (or qemu+tcp://host[:port]/system)' : ''
  }`;
}

const SCHEME_RE = /^([a-z][a-z0-9]*)(?:\+([a-z][a-z0-9]*))?$/;
/** A login name as useradd accepts it by default (no ':' — no passwords in a URI — no '%', no '@'). */
const USER_RE = /^[a-z_][a-z0-9_-]{0,31}$/;
const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HostUriError('The URI holds a malformed %-escape');
  }
}

/** Splits `scheme://authority/path?query` and the authority into user, host and port: no policy yet. */
function split(uri: string): HostUri & { query: string | null; fragment: boolean } {
  // One line of printable characters: no whitespace, no control characters (C0, DEL, C1).
  // eslint-disable-next-line no-control-regex -- the pattern exists to find control characters
  if (!uri || uri.length > MAX_HOST_URI_LENGTH || /[\s\u0000-\u001f\u007f-\u009f]/u.test(uri))
    throw new HostUriError('A libvirt URI is one line without spaces, such as qemu+ssh://root@host/system');
  const sep = uri.indexOf('://');
  if (sep < 0) throw new HostUriError('A libvirt URI starts with its scheme, such as qemu+ssh://');
  const scheme = SCHEME_RE.exec(uri.slice(0, sep));
  if (!scheme) throw new HostUriError('A libvirt URI starts with its scheme, such as qemu+ssh://');
  let rest = uri.slice(sep + 3);
  const hash = rest.indexOf('#');
  const fragment = hash >= 0;
  if (fragment) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  const query = q >= 0 ? rest.slice(q + 1) : null;
  if (q >= 0) rest = rest.slice(0, q);
  const slash = rest.indexOf('/');
  const authority = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash) : '';

  let user: string | undefined;
  let hostPort = authority;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    user = authority.slice(0, at);
    hostPort = authority.slice(at + 1);
  }
  let host: string | undefined;
  let port: number | undefined;
  let portText: string | undefined;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) throw new HostUriError('An IPv6 address is written in brackets, such as [2001:db8::1]');
    host = hostPort.slice(1, close);
    const after = hostPort.slice(close + 1);
    if (after && !after.startsWith(':')) throw new HostUriError('Write the port after the host as :port');
    if (after) portText = after.slice(1);
  } else {
    const colon = hostPort.lastIndexOf(':');
    host = colon >= 0 ? hostPort.slice(0, colon) : hostPort;
    if (colon >= 0) portText = hostPort.slice(colon + 1);
  }
  if (portText !== undefined) {
    if (!/^[1-9][0-9]{0,4}$/.test(portText) || Number(portText) > 65_535)
      throw new HostUriError('The port is a number from 1 to 65535');
    port = Number(portText);
  }
  const params: { name: string; value: string }[] = [];
  for (const pair of (query ?? '').split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    params.push(
      eq < 0
        ? { name: decode(pair), value: '' }
        : { name: decode(pair.slice(0, eq)), value: decode(pair.slice(eq + 1)) },
    );
  }
  const driver = scheme[1]!;
  const transportName = scheme[2] ?? null;
  return {
    driver,
    transportName,
    transport: transportOf(driver, transportName, host ?? ''),
    ...(user !== undefined && { user }),
    ...(host && { host: host.toLowerCase() }),
    ...(port !== undefined && { port }),
    path,
    params,
    query,
    fragment,
  };
}

function transportOf(driver: string, transportName: string | null, host: string): HostTransport {
  if (driver === 'test') return 'test';
  if (transportName === null) return host ? 'tls' : 'local';
  if (transportName === 'unix') return 'local';
  if (transportName === 'ssh' || transportName === 'tls' || transportName === 'tcp') return transportName;
  return 'other';
}

/** A host name of letters, digits and dashes, or an IP literal; numeric look-alikes (0x7f.1, 2130706433) are not. */
function checkHost(host: string | undefined, rawHost: string): string {
  const message = 'Write the host as a name (kvm1.example.net) or an IP address';
  if (!host) throw new HostUriError(message);
  if (rawHost.startsWith('[')) {
    if (!net.isIPv6(host) || host.includes('%')) throw new HostUriError(message);
    return host;
  }
  if (net.isIPv4(host)) return host;
  if (host.length > 253) throw new HostUriError(message);
  const labels = host.replace(/\.$/, '').split('.');
  if (!labels.every((l) => LABEL_RE.test(l))) throw new HostUriError(message);
  // The last label of a name is never all digits (nor hex): such a "name" is an address in another spelling.
  const last = labels[labels.length - 1]!;
  if (/^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/.test(last)) throw new HostUriError(message);
  return host.replace(/\.$/, '');
}

/** Parses a host URI and checks it against its owner's policy; throws HostUriError with what to fix. */
export function parseHostUri(uri: string, policy: HostUriPolicy): HostUri {
  if (policy.owner === 'reseller') {
    // Printable ASCII only: no look-alike letters, no escapes that decode into something else.
    if (typeof uri !== 'string' || !/^[\x21-\x7e]*$/.test(uri) || uri.includes('%'))
      throw new HostUriError(`${hostUriFormText(policy.allowTcp)}, in plain ASCII without %-escapes`);
  }
  const parts = split(uri);
  const { query, fragment, ...value } = parts;
  if (policy.owner === 'operator') return value;

  const form = hostUriFormText(policy.allowTcp);
  const scheme = `${value.driver}${value.transportName ? `+${value.transportName}` : ''}`;
  const allowed = ['qemu+ssh', 'qemu+tls', ...(policy.allowTcp ? ['qemu+tcp'] : [])];
  if (!allowed.includes(scheme)) throw new HostUriError(form);
  if (query !== null || fragment)
    throw new HostUriError(`Remove the ?… part: the portal sets the connection's options itself. ${form}`);
  if (value.path !== '/system') throw new HostUriError(`The path is /system. ${form}`);
  if (value.user !== undefined) {
    if (value.transport !== 'ssh') throw new HostUriError(`Only qemu+ssh URIs name a user. ${form}`);
    if (!USER_RE.test(value.user))
      throw new HostUriError('The user is a login name (lower-case letters, digits, _ and -), without a password');
  }
  const afterAt = uri.slice(uri.indexOf('://') + 3).split('/')[0]!;
  const rawHost = afterAt.slice(afterAt.lastIndexOf('@') + 1);
  const host = checkHost(value.host, rawHost);
  return { ...value, host };
}

/** The URI string of a parsed value (params encoded; `/` and other safe characters of paths kept as they are). */
export function renderHostUri(v: HostUri): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%2F/g, '/');
  const scheme = `${v.driver}${v.transportName ? `+${v.transportName}` : ''}`;
  const host = v.host ? (v.host.includes(':') ? `[${v.host}]` : v.host) : '';
  const authority = `${v.user !== undefined ? `${enc(v.user)}@` : ''}${host}${v.port !== undefined ? `:${v.port}` : ''}`;
  const query = v.params.map((p) => `${enc(p.name)}=${enc(p.value)}`).join('&');
  return `${scheme}://${authority}${v.path}${query ? `?${query}` : ''}`;
}

/** The policy a host's URI is held to: its provider's owner's. */
export function policyFor(provider: { resellerId?: number | null }, allowTcp: boolean): HostUriPolicy {
  return provider.resellerId == null ? { owner: 'operator' } : { owner: 'reseller', allowTcp };
}
