/**
 * Notes how long each file took, for the order files run in (longest-first-sequencer.ts): with
 * IRONTECH_FILE_DURATIONS_DIR set (scripts/test.sh sets it to test-results/file-durations), each Vitest process writes
 * `<pid>.json` there at the end of its run; scripts/file-durations/merge.ts turns a whole run's into
 * file-durations.json. Without the variable it does nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class FileDurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const dir = process.env.IRONTECH_FILE_DURATIONS_DIR;
    if (!dir) return;
    const seconds: Record<string, number> = {};
    for (const m of modules) {
      const d = m.diagnostic();
      // The file's own time: importing it and running its tests and hooks.
      const ms = d.collectDuration + d.duration;
      if (ms > 0) seconds[`${m.project.name}:${relative(process.cwd(), m.moduleId)}`] = Math.round(ms) / 1000;
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(seconds, null, 2));
  }
}
