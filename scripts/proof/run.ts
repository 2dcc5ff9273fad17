/**
 * The proof runs of issue #9, against the portal as its own process on loopback:
 *   npm run proof -- matrix|fuzz|kill9|backup-kill9|tenant|reseller-matrix|outage|soak|all [options]
 * Each prints its figures, saves bench/results/proof-<run>-<time>.json and exits non-zero when a goal is
 * missed. Each run is bounded in time and stops what it started (also on Ctrl-C).
 */
import { openEnvs } from './lib/portal.ts';

type Prove = (args: string[]) => Promise<boolean>;
const RUNS: Record<string, { load: () => Promise<Prove>; limitSeconds: (args: string[]) => number }> = {
  matrix: { load: async () => (await import('./matrix.ts')).prove, limitSeconds: () => 20 * 60 },
  fuzz: { load: async () => (await import('./fuzz.ts')).prove, limitSeconds: () => 40 * 60 },
  kill9: { load: async () => (await import('./kill9.ts')).prove, limitSeconds: () => 15 * 60 },
  'backup-kill9': { load: async () => (await import('./backup-kill9.ts')).prove, limitSeconds: () => 10 * 60 },
  tenant: { load: async () => (await import('./tenant-input.ts')).prove, limitSeconds: () => 10 * 60 },
  'reseller-matrix': {
    load: async () => (await import('./reseller-matrix.ts')).prove,
    limitSeconds: () => 15 * 60,
  },
  outage: { load: async () => (await import('./outage.ts')).prove, limitSeconds: () => 10 * 60 },
  soak: {
    load: async () => (await import('./soak.ts')).prove,
    limitSeconds: (args) => {
      const i = args.indexOf('--seconds');
      return (i >= 0 ? Number(args[i + 1]) || 600 : 600) + 5 * 60;
    },
  },
};

async function closeAll(): Promise<void> {
  for (const env of [...openEnvs]) await env.close().catch((err: unknown) => console.error('cleanup failed:', err));
}

async function runOne(name: string, args: string[]): Promise<boolean> {
  const entry = RUNS[name];
  if (!entry) throw new Error(`unknown run ${name}`);
  const limit = entry.limitSeconds(args);
  console.log(`\n=== proof: ${name} (stops itself after ${limit} s at most) ===`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} passed its time limit of ${limit} s`)), limit * 1000);
  });
  try {
    return await Promise.race([(await entry.load())(args), timeout]);
  } catch (err) {
    console.error(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return false;
  } finally {
    clearTimeout(timer);
    await closeAll();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping what the run started`);
    void closeAll().finally(() => process.exit(130));
  });
}

const [which = '', ...args] = process.argv.slice(2);
const names = which === 'all' ? Object.keys(RUNS) : [which];
if (!names.every((n) => n in RUNS)) {
  console.error(`Usage: npm run proof -- ${Object.keys(RUNS).join('|')}|all [--seconds N] [--requests N]`);
  process.exit(2);
}
const outcomes: Record<string, boolean> = {};
for (const name of names) outcomes[name] = await runOne(name, args);
console.log(
  `\nproof: ${Object.entries(outcomes)
    .map(([n, ok]) => `${n} ${ok ? 'met its goals' : 'MISSED a goal'}`)
    .join(', ')}`,
);
process.exit(Object.values(outcomes).every(Boolean) ? 0 : 1);
