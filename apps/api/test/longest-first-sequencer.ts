/**
 * The order a Vitest process runs its files in (issue 22 item 7; docs/testing.md "Longest files first"): each
 * project's files together (a worker that runs a project's files one after another imports the app once:
 * `isolate: false`), the project with the least work first, and inside a project the longest files first, by the
 * durations of a whole run kept in file-durations.json (scripts/file-durations/merge.ts writes it). A file with no
 * figure yet counts as longer than any: it runs first, as Vitest's own order does with files it has not timed.
 *
 * Why: Vitest's default order on a fresh clone (no results cache) is by file size, and its projects by name. In the
 * browser tests that put the two `e2e-embedded` files (34 s each) last, the last 34 s with a worker idle, and
 * screens-sweep (131 s) wherever its size fell: the end of a lane ran one or two files on a machine with a core to
 * spare. Longest first, the short files fill the end.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where the figures are kept (scripts/file-durations/merge.ts writes it): `{ note, seconds }`. */
export const DURATIONS_FILE = new URL('./file-durations.json', import.meta.url);

/** Seconds per `project:path` (path from the repository's root), as file-durations.json keeps them. */
export type FileDurations = Record<string, number>;

export function readFileDurations(): FileDurations {
  try {
    return (JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as { seconds: FileDurations }).seconds;
  } catch {
    return {};
  }
}

/** The order described above, for specs given as project name and path from the root. */
export function longestFirst<T extends { project: string; path: string; groupOrder: number }>(
  specs: T[],
  seconds: FileDurations,
): T[] {
  const known = (s: T) => seconds[`${s.project}:${s.path}`];
  const of = (s: T) => known(s) ?? Number.POSITIVE_INFINITY;
  // A project's work counts only the files with a figure: a new file moves to the front of its project, not its
  // project to the back of the run.
  const projectWork = new Map<string, number>();
  for (const s of specs) projectWork.set(s.project, (projectWork.get(s.project) ?? 0) + (known(s) ?? 0));
  return [...specs].sort(
    (a, b) =>
      a.groupOrder - b.groupOrder ||
      projectWork.get(a.project)! - projectWork.get(b.project)! ||
      a.project.localeCompare(b.project) ||
      of(b) - of(a) ||
      a.path.localeCompare(b.path),
  );
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const specs = files.map((spec) => ({
      spec,
      project: spec.project.name,
      path: relative(root, spec.moduleId),
      groupOrder: spec.project.config.sequence.groupOrder,
    }));
    return longestFirst(specs, readFileDurations()).map((s) => s.spec);
  }
}
