import { describe, expect, it } from 'vitest';
import { longestFirst, readFileDurations } from './longest-first-sequencer.ts';

const spec = (project: string, path: string, groupOrder = 0) => ({ project, path, groupOrder });
const order = (specs: ReturnType<typeof spec>[], seconds: Record<string, number>) =>
  longestFirst(specs, seconds).map((s) => `${s.project}:${s.path}`);

describe('the order a Vitest process runs its files in', () => {
  it('keeps each project together, the one with the least work first, its longest files first', () => {
    const seconds = { 'e2e:a': 10, 'e2e:sweep': 131, 'e2e:b': 30, 'e2e-embedded:auth': 34, 'e2e-embedded:vms': 33 };
    expect(
      order(
        [
          spec('e2e', 'a'),
          spec('e2e-embedded', 'vms'),
          spec('e2e', 'sweep'),
          spec('e2e', 'b'),
          spec('e2e-embedded', 'auth'),
        ],
        seconds,
      ),
    ).toEqual(['e2e-embedded:auth', 'e2e-embedded:vms', 'e2e:sweep', 'e2e:b', 'e2e:a']);
  });

  it('runs a file without a figure first, and a lower groupOrder before everything', () => {
    const seconds = { 'p:a': 50, 'p:b': 5, 'q:c': 1 };
    expect(order([spec('p', 'b'), spec('p', 'new'), spec('p', 'a'), spec('q', 'c', 1)], seconds)).toEqual([
      'p:new',
      'p:a',
      'p:b',
      'q:c',
    ]);
  });

  it('counts a project by the files it has figures for: a new file does not send its project to the back', () => {
    const seconds = { 'p:a': 50, 'q:b': 10 };
    expect(order([spec('p', 'a'), spec('q', 'b'), spec('q', 'new')], seconds)).toEqual(['q:new', 'q:b', 'p:a']);
  });

  it('reads the committed figures: every browser file has one', () => {
    const seconds = readFileDurations();
    expect(seconds['e2e:e2e/screens-sweep.e2e.ts']).toBeGreaterThan(0);
  });
});
