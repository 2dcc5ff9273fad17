import { readFile } from 'node:fs/promises';

/** Whether a process exists (signal 0 checks without signalling). A zombie still counts until it is reaped. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The live process a pid file names, or null (no file, not a pid, or gone). */
export async function readPid(file: string): Promise<number | null> {
  try {
    const pid = Number.parseInt((await readFile(file, 'utf8')).trim(), 10);
    return Number.isInteger(pid) && pid > 1 && pidAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}
