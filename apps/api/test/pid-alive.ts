/** Whether a process exists (signal 0 checks without signalling). A zombie still counts until it is reaped. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
