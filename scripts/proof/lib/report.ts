/** How every proof run ends: its figures printed, saved as JSON under bench/results/, and its exit code. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './portal.ts';

export interface Goal {
  name: string;
  met: boolean;
  /** What was seen, in words. */
  value: string;
}

export function saveResult(run: string, result: Record<string, unknown>, goals: Goal[]): boolean {
  const dir = join(REPO_ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(dir, `proof-${run}-${stamp}.json`);
  const allMet = goals.every((g) => g.met);
  writeFileSync(
    file,
    `${JSON.stringify({ run, date: new Date().toISOString(), goalsMet: allMet, goals, ...result }, null, 2)}\n`,
  );
  console.log(`\n${run}: goals`);
  for (const g of goals) console.log(`  ${g.met ? 'MET   ' : 'MISSED'} ${g.name}: ${g.value}`);
  console.log(`saved ${file}`);
  return allMet;
}

/** Parses `--name value` options. */
export function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

export const fmtBytes = (n: number | null | undefined) => (n == null ? 'n/a' : `${(n / 1024 / 1024).toFixed(1)} MiB`);
