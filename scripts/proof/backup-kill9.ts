/**
 * kill -9 with backup takes in flight (issue 24 item 5; docs/decisions/0025-backup-concurrency.md): `--vms`
 * (default 4) running VMs named `…slow-backup…` on a simulator whose step is `--step-ms` (default 2000: a take copies
 * for ten steps, 20 s), a take of each asked through the API with `BACKUP_CONCURRENCY_PER_HOST=2` (so some copy and
 * the others wait, queued), the portal killed with SIGKILL while the first copies run, and started again on the
 * same database. Checks what a customer sees through the API afterwards: every take that was being copied at the
 * kill ends failed, "interrupted" (never ready: its copy was half-written), every take that was still queued runs
 * after the restart and ends ready, no backup is ready without its completion time and size, and every VM is still
 * Running. Reports how long after the restart each take was terminal; waits at most `--max-wait` s (default 150).
 */
import pg from 'pg';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { routes } from '@portal/contract/routes';
import { signIn } from './lib/client.ts';
import { createVms, readCatalog, tally, waitForStatus } from './lib/load.ts';
import { ADMIN, sleep, startProofEnv } from './lib/portal.ts';
import { option, saveResult } from './lib/report.ts';

interface BackupRow {
  id: number;
  vm_id: number;
  state: string;
  error: string | null;
  size_bytes: number | null;
  completed_at: Date | null;
}

export async function prove(args: string[]): Promise<boolean> {
  const count = option(args, 'vms', 4);
  const stepMs = option(args, 'step-ms', 2000);
  const maxWaitSeconds = option(args, 'max-wait', 150);
  const perHost = 2;
  const env = await startProofEnv({
    SIMULATOR_STEP_MS: String(stepMs),
    VM_RUNNER_POLL_MS: '200',
    BACKUP_CONCURRENCY_PER_HOST: String(perHost),
    // Verification (decision 0024) is not what is measured here.
    BACKUP_VERIFY: 'off',
  });
  const { portal, smtp, cluster } = env;
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  try {
    const admin = await signIn(portal.api, smtp, ADMIN.email, ADMIN.password);
    const catalog = await readCatalog(admin);
    const vmIds = await createVms(admin, catalog, count, 'bk9-slow-backup');
    await waitForStatus(admin, vmIds, 'Running', 120_000);
    for (const id of vmIds) {
      const res = await admin.call(routes.backups.takeBackup, { params: { id }, body: { name: 'before the kill' } });
      if (res.status !== 200) throw new Error(`take of VM ${id}: ${res.status} ${res.message}`);
    }
    const rows = async () =>
      (
        await db.query<BackupRow>(
          'select id, vm_id, state, error, size_bytes, completed_at from vm_backups where vm_id = any($1) order by id',
          [vmIds],
        )
      ).rows;

    // Kill while the first copies run (a simulated take copies for ten steps) and the others wait their turn.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const now = await rows();
      if (now.filter((r) => r.state === 'creating').length >= Math.min(perHost, count)) break;
      if (Date.now() > deadline)
        throw new Error(`the takes did not begin within 60 s: ${JSON.stringify(tally(now.map((r) => r.state)))}`);
      await sleep(100);
    }
    await sleep(Math.min(2000, stepMs));
    const atKill = await rows();
    console.log(`backup-kill9: ${JSON.stringify(tally(atKill.map((r) => r.state)))} at the kill`);
    await portal.kill9();
    const killedAt = Date.now();
    await sleep(500);
    const restartedAt = Date.now();
    await portal.restart();
    console.log(`backup-kill9: killed; restarted, answering ${((Date.now() - restartedAt) / 1000).toFixed(1)} s later`);

    // Poll what the customer sees; record when each take became terminal.
    const terminalAfter = new Map<number, number>();
    const seenReadyWhileCopyingAtKill: number[] = [];
    const copying = new Set(atKill.filter((r) => r.state === 'creating').map((r) => r.id));
    let lastLog = 0;
    const waitUntil = restartedAt + maxWaitSeconds * 1000;
    while (Date.now() < waitUntil) {
      for (const vmId of vmIds) {
        const res = await admin.call(routes.backups.listBackups, { params: { id: vmId } });
        if (res.status !== 200) continue;
        for (const b of (res.data as { backups: { id: number; state: string }[] }).backups) {
          if (copying.has(b.id) && b.state === 'ready') seenReadyWhileCopyingAtKill.push(b.id);
          if ((b.state === 'ready' || b.state === 'failed') && !terminalAfter.has(b.id))
            terminalAfter.set(b.id, (Date.now() - restartedAt) / 1000);
        }
      }
      if (terminalAfter.size === atKill.length) break;
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        const now = await rows();
        console.log(
          `  ${((Date.now() - restartedAt) / 1000).toFixed(0).padStart(4)} s after the restart: ${JSON.stringify(tally(now.map((r) => r.state)))}`,
        );
      }
      await sleep(250);
    }

    const final = await rows();
    const interrupted = final.filter((r) => copying.has(r.id));
    const queuedAtKill = final.filter((r) => !copying.has(r.id));
    const notInterrupted = interrupted.filter((r) => r.state !== 'failed' || r.error !== BACKUP_TEXT.interrupted);
    const queuedNotReady = queuedAtKill.filter((r) => r.state !== 'ready');
    const readyIncomplete = final.filter((r) => r.state === 'ready' && (!r.completed_at || !r.size_bytes));
    const vms = (
      await db.query<{ id: number; status: string; error_reason: string | null }>(
        'select id, status, error_reason from virtual_machines where id = any($1)',
        [vmIds],
      )
    ).rows;
    const notRunning = vms.filter((v) => v.status !== 'Running');
    const interruptedSeconds = interrupted.map((r) => terminalAfter.get(r.id) ?? null);
    const figures = {
      vms: count,
      stepMs,
      perHost,
      atKill: tally(atKill.map((r) => r.state)),
      downSeconds: (restartedAt - killedAt) / 1000,
      final: tally(final.map((r) => `${r.state}${r.error === BACKUP_TEXT.interrupted ? ' (interrupted)' : ''}`)),
      interruptedTerminalSecondsAfterRestart: interruptedSeconds,
      queuedTerminalSecondsAfterRestart: queuedAtKill.map((r) => terminalAfter.get(r.id) ?? null),
      seenReadyWhileCopyingAtKill,
      vmsNotRunning: notRunning,
    };
    console.log(`backup-kill9: final ${JSON.stringify(figures.final)}`);
    console.log(
      `       interrupted takes terminal after ${JSON.stringify(interruptedSeconds)} s; queued ones after ${JSON.stringify(figures.queuedTerminalSecondsAfterRestart)} s`,
    );
    return saveResult('backup-kill9', figures, [
      {
        name: 'takes being copied at the kill',
        met: copying.size >= 1 && copying.size <= perHost,
        value: `${copying.size} copying, ${atKill.length - copying.size} queued`,
      },
      {
        name: 'every take copying at the kill ends failed "interrupted", never shown ready',
        met: notInterrupted.length === 0 && seenReadyWhileCopyingAtKill.length === 0,
        value: `${interrupted.length - notInterrupted.length} of ${interrupted.length} interrupted; ready seen ${seenReadyWhileCopyingAtKill.length} times`,
      },
      {
        name: 'interrupted takes ended within the lease (15 s) + 15 s of the restart',
        met: interruptedSeconds.every((s) => s !== null && s <= 30),
        value: JSON.stringify(interruptedSeconds),
      },
      {
        name: 'every take queued at the kill runs after the restart and ends ready',
        met: queuedNotReady.length === 0,
        value: `${queuedAtKill.length - queuedNotReady.length} of ${queuedAtKill.length} ready`,
      },
      {
        name: 'no ready backup without its completion time and size',
        met: readyIncomplete.length === 0,
        value: `${readyIncomplete.length}`,
      },
      { name: 'every VM still Running', met: notRunning.length === 0, value: `${notRunning.length} not Running` },
    ]);
  } finally {
    await db.end();
    await env.close();
  }
}
