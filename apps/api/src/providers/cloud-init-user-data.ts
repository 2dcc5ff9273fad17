/**
 * One cloud-init user-data from the portal's own `#cloud-config` (default user, password, keys: what the portal must
 * be able to rely on) and the customer's user-data given at create (issue 23 item 5), for any driver's NoCloud seed.
 *
 * Without customer user-data it is the portal's cloud-config as it is. With it, a MIME multipart (cloud-init's
 * "mime multi part archive"): the customer's part first (text/cloud-config, or text/x-shellscript for a `#!` script,
 * which cloud-init runs once at the end of the first boot), then the portal's cloud-config merged into it with
 * `list(append)+dict(no_replace,recurse_list)+str()`: lists (users, ssh_authorized_keys, runcmd, write_files) are
 * joined, and where both set the same single value the customer's wins. So the customer's own `users:` or `runcmd:`
 * do not drop the portal's user and keys, and the portal's do not drop theirs.
 */
import { randomBytes } from 'node:crypto';

/** cloud-init's merge rule for the portal's part (cloudinit/mergers: list, dict and str mergers with their options). */
export const PORTAL_PART_MERGE = 'list(append)+dict(no_replace,recurse_list)+str()';

/**
 * One part, its body in base64 (as cloud-init's own make-mime writes UTF-8 parts): an 8bit part with non-ASCII text
 * reaches cloud-init's handlers mangled (Python's email package re-encodes it), and a cloud-config it cannot decode
 * is dropped with only a warning in its log.
 */
function part(contentType: string, filename: string, body: string, extra: string[] = []): string {
  return [
    `Content-Type: ${contentType}; charset="utf-8"`,
    'MIME-Version: 1.0',
    'Content-Transfer-Encoding: base64',
    `Content-Disposition: attachment; filename="${filename}"`,
    ...extra,
    '',
    ...(Buffer.from(body, 'utf8')
      .toString('base64')
      .match(/.{1,76}/g) ?? []),
  ].join('\n');
}

/**
 * The seed's user-data. `portalCloudConfig` starts with `#cloud-config`; `customer` is the create's user-data as the
 * contract accepted it (`#cloud-config` or `#!`, at most 16 KiB) or null.
 */
export function combineUserData(portalCloudConfig: string, customer: string | null | undefined): string {
  if (!customer) return portalCloudConfig;
  // Bodies are base64, which never holds '-': no boundary can occur in them.
  const boundary = `irontech-${randomBytes(12).toString('hex')}`;
  const customerPart = customer.startsWith('#cloud-config')
    ? part('text/cloud-config', 'customer-user-data.cfg', customer)
    : part('text/x-shellscript', 'customer-user-data.sh', customer);
  const portalPart = part('text/cloud-config', 'portal.cfg', portalCloudConfig, [`Merge-Type: ${PORTAL_PART_MERGE}`]);
  return [
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    'MIME-Version: 1.0',
    '',
    `--${boundary}`,
    customerPart,
    `--${boundary}`,
    portalPart,
    `--${boundary}--`,
    '',
  ].join('\n');
}
