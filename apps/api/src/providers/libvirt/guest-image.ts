/**
 * The Irontech guest images, built from Debian packages and cached by their inputs (docs/guest-image.md):
 * - `debian-12` (scripts/guest-image/build-debian.sh): a real Debian 12 with systemd, cloud-init, OpenSSH and the
 *   guest agent, kernel and SYSLINUX inside; what the catalog's "Debian 12" is on a host that has no image of its own.
 * - `test-fixture` (scripts/guest-image/build.sh): a busybox initramfs guest that boots in seconds under TCG, for
 *   tests of the console and driver plumbing only. It is never what an operator's host offers by default.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export type GuestImageKind = 'debian-12' | 'test-fixture';

export const GUEST_IMAGE_SCRIPTS: Record<GuestImageKind, string> = {
  'debian-12': fileURLToPath(new URL('../../../../../scripts/guest-image/build-debian.sh', import.meta.url)),
  'test-fixture': fileURLToPath(new URL('../../../../../scripts/guest-image/build.sh', import.meta.url)),
};

/**
 * Builds the image when its cache has none for the current inputs and returns its path: the Debian image takes a
 * few minutes the first time (mmdebstrap downloads and installs its packages), the fixture a few seconds.
 */
export async function ensureGuestImage(opts: { cacheDir?: string; kind?: GuestImageKind } = {}): Promise<string> {
  const env = { ...process.env, ...(opts.cacheDir ? { IRONTECH_GUEST_CACHE: opts.cacheDir } : {}) };
  const script = GUEST_IMAGE_SCRIPTS[opts.kind ?? 'debian-12'];
  try {
    const { stdout } = await execFileP('bash', [script], { env, timeout: 1_200_000, maxBuffer: 16 * 1024 * 1024 });
    const file = stdout.trim().split('\n').at(-1);
    if (!file) throw new Error('the guest image build printed no path');
    return file;
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(`building the guest image failed: ${(err.stderr ?? err.message).trim().slice(-1000)}`, {
      cause: e,
    });
  }
}
