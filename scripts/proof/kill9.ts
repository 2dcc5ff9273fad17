/**
 * kill -9 with VM operations in flight: `--vms` (default 100) VMs are created through the API on a slow
 * simulator (`--step-ms`, default 30000, so every create is still running), the portal is killed with
 * SIGKILL once all are claimed, and started again on the same database (`--restart-step-ms`, default 1000:
 * the simulator's own slowness is not what is measured). Reports how long after the restart every operation
 * was terminal (goal: within 30 s), and checks that none was lost or duplicated: one create per VM, each
 * succeeded once, every VM Running with a machine, no extra VM rows. Waits at most `--max-wait` s
 * (default 120, well past the runner's 15 s lease) so a miss is measured, not guessed.
 */
import pg from 'pg';
import { routes } from '@portal/contract/routes';
import { signIn } from './lib/client.ts';
import { createVms, readCatalog, tally } from './lib/load.ts';
import { ADMIN, sleep, startProofEnv } from './lib/portal.ts';
import { option, saveResult } from './lib/report.ts';

interface OpRow {
  id: number;
  vm_id: number;
  kind: string;
  status: string;
  attempts: number;
}

export async function prove(args: string[]): Promise<boolean> {
  const count = option(args, 'vms', 100);
  const stepMs = option(args, 'step-ms', 30_000);
  const restartStepMs = option(args, 'restart-step-ms', 1000);
  const maxWaitSeconds = option(args, 'max-wait', 120);
  const env = await startProofEnv({ SIMULATOR_STEP_MS: String(stepMs), VM_RUNNER_POLL_MS: '200' });
  const { portal, smtp, cluster } = env;
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  try {
    const admin = await signIn(portal.api, smtp, ADMIN.email, ADMIN.password);
    const catalog = await readCatalog(admin);
    const vmIds = await createVms(admin, catalog, count, 'kill9');
    const ops = async () =>
      (
        await db.query<OpRow>(
          'select id, vm_id, kind, status, attempts from operations where vm_id = any($1) order by id',
          [vmIds],
        )
      ).rows;

    // Kill once every create is claimed (none pending) and at work at the slow provider.
    const claimDeadline = Date.now() + 60_000;
    for (;;) {
      const rows = await ops();
      if (rows.length === count && rows.every((o) => o.status !== 'pending')) break;
      if (Date.now() > claimDeadline)
        throw new Error(
          `the operations were not all claimed within 60 s: ${JSON.stringify(tally(rows.map((o) => o.status)))}`,
        );
      await sleep(100);
    }
    await sleep(500);
    const atKill = await ops();
    console.log(
      `kill9: ${atKill.length} operations for ${count} VMs, ${JSON.stringify(tally(atKill.map((o) => o.status)))} at the kill`,
    );
    await portal.kill9();
    const killedAt = Date.now();
    await sleep(500);
    const restartedAt = Date.now();
    await portal.restart({ SIMULATOR_STEP_MS: String(restartStepMs) });
    const answeringAt = Date.now();
    console.log(
      `kill9: killed; restarted, answering ${((answeringAt - restartedAt) / 1000).toFixed(1)} s after the restart`,
    );

    let terminalAt: number | null = null;
    let lastLog = 0;
    const deadline = restartedAt + maxWaitSeconds * 1000;
    while (Date.now() < deadline) {
      const rows = await ops();
      const open = rows.filter((o) => o.status === 'pending' || o.status === 'running').length;
      if (open === 0) {
        terminalAt = Date.now();
        break;
      }
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        console.log(
          `  ${((Date.now() - restartedAt) / 1000).toFixed(0).padStart(4)} s after the restart: ${JSON.stringify(tally(rows.map((o) => o.status)))}`,
        );
      }
      await sleep(250);
    }

    const final = await ops();
    const perVm = new Map<number, OpRow[]>();
    for (const o of final) perVm.set(o.vm_id, [...(perVm.get(o.vm_id) ?? []), o]);
    const lost = vmIds.filter((id) => !perVm.has(id));
    const duplicated = [...perVm.entries()].filter(([, list]) => list.length !== 1).map(([id]) => id);
    const vms = (
      await db.query<{ id: number; status: string; provider_ref: string | null; deleted_at: Date | null }>(
        'select id, status, provider_ref, deleted_at from virtual_machines where id = any($1)',
        [vmIds],
      )
    ).rows;
    const notRunning = vms.filter((v) => v.status !== 'Running' || !v.provider_ref || v.deleted_at);
    // No VM rows beyond the ones asked for: every VM named after this run is one of the ids the API returned.
    const named = (
      await db.query<{ n: number }>("select count(*)::int as n from virtual_machines where name like 'kill9-%'")
    ).rows[0]!.n;
    const listed = await admin
      .call(routes.vms.list, { query: { search: 'kill9', rowsPerPage: 100 } })
      .catch(() => null);
    const secondsAfterRestart = terminalAt === null ? null : (terminalAt - restartedAt) / 1000;
    const figures = {
      vms: count,
      stepMs,
      restartStepMs,
      operationsAtKill: tally(atKill.map((o) => o.status)),
      downSeconds: (restartedAt - killedAt) / 1000,
      answeringSecondsAfterRestart: (answeringAt - restartedAt) / 1000,
      allTerminalSecondsAfterRestart: secondsAfterRestart,
      finalOperations: tally(final.map((o) => o.status)),
      attempts: tally(final.map((o) => o.attempts)),
      lostVms: lost,
      vmsWithOtherThanOneOperation: duplicated,
      vmsNotRunning: notRunning.map((v) => ({ id: v.id, status: v.status, providerRef: v.provider_ref })),
      vmRowsNamedForThisRun: named,
      listedThroughApi: listed?.status === 200 ? (listed.data as { data: unknown[] }).data.length : null,
    };
    console.log(
      `kill9: all ${final.length} operations terminal ${secondsAfterRestart === null ? `NOT within ${maxWaitSeconds} s` : `${secondsAfterRestart.toFixed(1)} s`} after the restart: ${JSON.stringify(figures.finalOperations)}, attempts ${JSON.stringify(figures.attempts)}`,
    );
    console.log(
      `       lost ${lost.length}, duplicated ${duplicated.length}, VMs not Running ${notRunning.length}, VM rows ${named} for ${count} asked`,
    );
    const failed = final.filter((o) => o.status === 'failed').length;
    const inFlight = atKill.filter((o) => o.status === 'running').length;
    return saveResult('kill9', figures, [
      {
        name: 'operations in flight at the kill',
        met: inFlight >= count * 0.9,
        value: `${inFlight} of ${count} running`,
      },
      {
        name: 'all operations terminal within 30 s of the restart',
        met: secondsAfterRestart !== null && secondsAfterRestart <= 30,
        value: secondsAfterRestart === null ? `not within ${maxWaitSeconds} s` : `${secondsAfterRestart.toFixed(1)} s`,
      },
      {
        name: 'none lost',
        met: lost.length === 0 && final.length === count,
        value: `${lost.length} VMs without an operation; ${final.length} operations for ${count} VMs`,
      },
      {
        name: 'none duplicated',
        met: duplicated.length === 0 && named === count,
        value: `${duplicated.length} VMs with other than one operation; ${named} VM rows for ${count}`,
      },
      {
        name: 'every VM Running, no operation failed',
        met: notRunning.length === 0 && failed === 0,
        value: `${notRunning.length} VMs not Running, ${failed} operations failed`,
      },
    ]);
  } finally {
    await db.end();
    await env.close();
  }
}
