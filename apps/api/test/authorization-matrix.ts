/**
 * The authorisation matrix runner shared by the matrix tests: every call × every kind of caller, an
 * allowed cell answers 200 (and passes its check), a denied one answers the expected status and changes
 * nothing (the snapshot before and after are equal). Prints how many cells it checked.
 *
 * Two sets of callers: the customer portal's (ACTORS: the teams and VM matrices) and the reseller area's
 * (RESELLER_ACTORS: two customers of reseller A, A's owner and support staff, and reseller B's owner).
 */
import type { CallResult, TestClient } from './harness.ts';

export const ACTORS = ['companyAdmin', 'teamAdmin', 'operator', 'viewer', 'nonMember', 'otherCompany'] as const;
export type Actor = (typeof ACTORS)[number];
export const STAFF_ACTORS = ['staffOwnerA', 'staffSupportA', 'staffOwnerB'] as const;
export type StaffActor = (typeof STAFF_ACTORS)[number];
/** The reseller area's callers: reseller A's company administrator and a plain user of it, then staff. */
export const RESELLER_ACTORS = ['companyAdmin', 'nonMember', ...STAFF_ACTORS] as const;
export type ResellerActor = (typeof RESELLER_ACTORS)[number];
/** allow, or the denial status expected. */
export type Outcome = 'allow' | 403 | 404;

export const A = 'allow' as const;
export const all = (o: Outcome): Record<Actor, Outcome> => ({
  companyAdmin: o,
  teamAdmin: o,
  operator: o,
  viewer: o,
  nonMember: o,
  otherCompany: o,
});

export interface Cell<X extends string = Actor> {
  call: string;
  expect: Record<X, Outcome>;
  /** Creates or picks what the call acts on; runs before the "nothing changed" snapshot. */
  prepare?: () => Promise<number>;
  run: (client: TestClient, prepared: number) => Promise<CallResult>;
  /** Checks an allowed answer and its effect (after `settle`). */
  check?: (res: CallResult, actor: X, prepared: number) => void | Promise<void>;
}

export interface MatrixRun {
  checked: number;
  failures: string[];
}

/**
 * A whole matrix's time limit: ~230 cells, each with a snapshot of the tables before and after and the runner settled
 * in between, took 24-32 s on a loaded two-core machine (the default 30 s cut the reseller matrix off in a whole run,
 * ci21); the VM matrix gives its own 180 s.
 */
export const MATRIX_TIMEOUT_MS = 120_000;

export async function runMatrix<X extends string = Actor>(opts: {
  cells: Cell<X>[];
  clients: Record<X, TestClient>;
  /** The callers, in order; ACTORS unless given. */
  actors?: readonly X[];
  /** A fingerprint of everything a denied call must leave alone. */
  snapshot: () => Promise<string>;
  /** Waits for background work a call started (VM operations) before checks and snapshots. */
  settle?: () => Promise<void>;
}): Promise<MatrixRun> {
  let checked = 0;
  const failures: string[] = [];
  for (const cell of opts.cells) {
    for (const actor of opts.actors ?? (ACTORS as readonly string[] as readonly X[])) {
      const want = cell.expect[actor];
      const prepared = cell.prepare ? await cell.prepare() : 0;
      const before = await opts.snapshot();
      const res = await cell.run(opts.clients[actor], prepared);
      const ok = want === 'allow' ? res.status === 200 : res.status === want;
      if (!ok) failures.push(`${cell.call} as ${actor}: expected ${want}, got ${res.status} ${res.message}`);
      await opts.settle?.();
      if (want === 'allow' && res.status === 200 && cell.check) {
        try {
          await cell.check(res, actor, prepared);
        } catch (err) {
          failures.push(`${cell.call} as ${actor}: allowed but ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      if (want !== 'allow' && (await opts.snapshot()) !== before)
        failures.push(`${cell.call} as ${actor}: denied but changed data`);
      checked++;
    }
  }
  return { checked, failures };
}
