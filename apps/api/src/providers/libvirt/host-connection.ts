/**
 * The URI virsh gets for a host, made anew before every connection (issue 21). An operator's URI is used as written
 * (parsed once). A reseller's URI is only a place: before each connection its host is resolved through the egress
 * policy, and the portal renders the connection itself:
 *
 * - qemu+ssh: to the checked IP literal (a DNS answer that changes later cannot move it), as the user the reseller
 *   gave (root by default), with the reseller's portal key and an ssh client of the portal's (`command=`): a wrapper
 *   that runs ssh with no user config, that key only, and a known_hosts file holding only the host's pinned key
 *   (under a fixed alias, whatever the address or port). libvirt's ssh transport (it runs the `ssh` binary) has no
 *   known_hosts parameter of its own: `known_hosts=` is read by its libssh/libssh2 transports only.
 * - qemu+tcp (where the operator allows it): to the checked IP literal.
 * - qemu+tls: to the name (the certificate is checked against it), after the name's every address was checked; the
 *   client certificate is the operator's (libvirt's default pki paths).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TransientProviderError } from '../provider.ts';
import { parseHostUri, policyFor, renderHostUri, type HostUri } from './host-uri.ts';

/** What the portal needs to reach reseller hosts: the egress rule, whether TCP is allowed, the resellers' keys. */
export interface HostAccess {
  egress: { resolveAllowed(host: string): Promise<string[]> };
  allowTcp: boolean;
  resellerKey(resellerId: number): Promise<{ privateKey: string }>;
}

/** A host (or a provider without one) the portal will not connect to: its stored URI fails its owner's policy. */
export class HostRefusedError extends Error {
  override name = 'HostRefusedError';
}

/** The message a host whose stored URI no longer passes shows (hosts.last_error, runner, reseller area). */
export const URI_REFUSED = 'URI refused: re-register the host with a qemu+ssh or qemu+tls URI';
export const HOST_KEY_MISSING = 'No pinned host key: check the host and register it again';

/** known_hosts names the host by this alias (ssh's HostKeyAlias), so the pin holds whatever address or port. */
const ALIAS = 'irontech-pinned-host';

export interface HostTarget {
  /** The stored URI (for messages and logs; never the rendered one, which names the portal's files). */
  label: string;
  connect(): Promise<string>;
}

export interface HostToConnect {
  uri: string;
  hostKey?: string | null;
}

/** Parses the stored URI by its owner's policy (throws HostRefusedError) and answers how to connect to it. */
export function hostTarget(
  provider: { resellerId?: number | null },
  host: HostToConnect,
  access: HostAccess | null,
): HostTarget {
  const policy = policyFor(provider, access?.allowTcp ?? false);
  let parsed: HostUri;
  try {
    parsed = parseHostUri(host.uri, policy);
  } catch {
    throw new HostRefusedError(URI_REFUSED);
  }
  if (policy.owner === 'operator') {
    const uri = host.uri;
    return { label: uri, connect: () => Promise.resolve(uri) };
  }
  if (!access) throw new HostRefusedError(URI_REFUSED);
  const resellerId = provider.resellerId!;
  if (parsed.transport === 'ssh' && !host.hostKey) throw new HostRefusedError(HOST_KEY_MISSING);

  let files: Promise<{ key: string; ssh: string }> | null = null;
  /** The key, known_hosts and ssh wrapper in a private directory of their own (0700, files 0600/0700). */
  const sshFiles = () => {
    files ??= (async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-host-'));
      const key = path.join(dir, 'id');
      const knownHosts = path.join(dir, 'known_hosts');
      const ssh = path.join(dir, 'ssh');
      const { privateKey } = await access.resellerKey(resellerId);
      await writeFile(key, privateKey, { mode: 0o600 });
      await writeFile(knownHosts, `${ALIAS} ${host.hostKey!.trim()}\n`, { mode: 0o600 });
      // The portal's ssh client: options given first win over any later -o, so nothing can loosen them.
      const options = [
        ['IdentitiesOnly', 'yes'],
        ['IdentityFile', key],
        ['UserKnownHostsFile', knownHosts],
        ['GlobalKnownHostsFile', '/dev/null'],
        ['StrictHostKeyChecking', 'yes'],
        ['HostKeyAlias', ALIAS],
        ['CheckHostIP', 'no'],
        ['BatchMode', 'yes'],
        ['ConnectTimeout', '10'],
        ['ProxyCommand', 'none'],
        ['ControlMaster', 'no'],
        ['PermitLocalCommand', 'no'],
      ];
      await writeFile(
        ssh,
        `#!/bin/sh\nexec ssh -F /dev/null ${options.map(([k, v]) => `-o ${k}=${v}`).join(' ')} "$@"\n`,
        {
          mode: 0o700,
        },
      );
      return { key, ssh };
    })();
    files.catch(() => (files = null));
    return files;
  };

  return {
    label: host.uri,
    async connect() {
      // Throws the egress policy's refusal (a message safe for the tenant) for a disallowed name or address.
      const [address] = await access.egress.resolveAllowed(parsed.host!);
      if (!address) throw new TransientProviderError('the host has no address');
      if (parsed.transport === 'tls') return renderHostUri({ ...parsed, params: [] });
      if (parsed.transport === 'tcp') return renderHostUri({ ...parsed, host: address, params: [] });
      const { key, ssh } = await sshFiles();
      return renderHostUri({
        ...parsed,
        user: parsed.user ?? 'root',
        host: address,
        params: [
          { name: 'keyfile', value: key },
          { name: 'no_tty', value: '1' },
          { name: 'command', value: ssh },
        ],
      });
    },
  };
}

/**
 * What a reseller is told when its host did not answer: what to check, by transport. Never virsh's or ssh's words
 * ("Connection refused" against "End of file" told open ports from closed ones); the caller logs those.
 */
export function hostErrorForTenant(err: unknown, uri: string): string {
  if (err instanceof HostRefusedError) return err.message;
  // The egress policy's refusal (lib/egress.ts) is written for tenants.
  if (err instanceof Error && (err as { code?: unknown }).code === 'EEGRESS') return err.message;
  if (/^qemu\+ssh:/i.test(uri))
    return "The host did not answer over SSH with the portal's key: check the address and port, that sshd and libvirtd run, and that the portal's public key is in the user's authorized_keys";
  return "The host did not answer over libvirt's TLS or TCP port: check the address and port, that libvirtd listens there, and its certificates";
}
