/** The Irontech guest image (scripts/guest-image/build.sh): built from Debian packages, cached by its inputs. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export const GUEST_IMAGE_SCRIPT = fileURLToPath(
  new URL('../../../../../scripts/guest-image/build.sh', import.meta.url),
);

/** Builds the image when its cache has none for the current inputs (a few seconds) and returns its path. */
export async function ensureGuestImage(opts: { cacheDir?: string } = {}): Promise<string> {
  const env = { ...process.env, ...(opts.cacheDir ? { IRONTECH_GUEST_CACHE: opts.cacheDir } : {}) };
  try {
    const { stdout } = await execFileP('bash', [GUEST_IMAGE_SCRIPT], { env, timeout: 300_000 });
    const file = stdout.trim().split('\n').at(-1);
    if (!file) throw new Error('the guest image build printed no path');
    return file;
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(`building the guest image failed: ${(err.stderr ?? err.message).trim().slice(0, 1000)}`, {
      cause: e,
    });
  }
}
