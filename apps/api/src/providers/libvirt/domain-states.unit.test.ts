/**
 * All of a host's machine states in one call: `virsh domstats --state` read into the portal's states, against
 * libvirt's own test driver (a `test:///<file>` node holding 200 of our domains and some of others), counting the
 * virsh processes through a wrapper of the binary. No daemon: the test driver runs inside virsh.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MachineState } from '../provider.ts';
import { machineStateOf, parseDomainStates } from './domain-states.ts';
import { createLibvirtDriver } from './libvirt.ts';
import { refForKey } from './names.ts';

/** virDomainState numbers the test driver takes as <test:runstate>, and what the portal makes of each. */
const RUNSTATES: [number, string, MachineState][] = [
  [1, 'running', 'running'],
  [2, 'idle', 'running'],
  [3, 'paused', 'stopped'],
  [4, 'in shutdown', 'running'],
  [5, 'shut off', 'stopped'],
  [6, 'crashed', 'stopped'],
  [7, 'pmsuspended', 'stopped'],
];

const domain = (name: string, runstate: number) => `
  <domain type='test' xmlns:test='http://libvirt.org/schemas/domain/test/1.0'>
    <name>${name}</name><memory>65536</memory><os><type>hvm</type></os>
    <test:runstate>${runstate}</test:runstate>
  </domain>`;

let dir: string;
let uri: string;
let wrapper: string;
let calls: string;
/** The commands written to a session's virsh (its stdin, through tee), the framing's marker lines left out. */
let sessionInput: string;
/** ref → the state the portal should see, for the 200 domains of ours in the node. */
const expected = new Map<string, MachineState>();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'domain-states-'));
  const domains: string[] = [];
  for (let i = 0; i < 200; i++) {
    const [runstate, , state] = RUNSTATES[i % RUNSTATES.length]!;
    const ref = refForKey(`vm-${i}`);
    expected.set(ref, state);
    domains.push(domain(ref, runstate));
  }
  // Others' domains on the same host: not the portal's, never in the answer (one looks like ours but is not).
  domains.push(domain('ubuntu-desktop', 1), domain("it's 'quoted'", 1), domain('irontech-not-a-ref', 1));
  const file = path.join(dir, 'node.xml');
  await writeFile(file, `<node>${domains.join('')}</node>`);
  uri = `test://${file}`;
  calls = path.join(dir, 'calls');
  sessionInput = path.join(dir, 'session-input');
  wrapper = path.join(dir, 'virsh');
  const virsh = execFileSync('sh', ['-c', 'command -v virsh'], { encoding: 'utf8' }).trim();
  // A session is `virsh -q -c <uri>` alone: what it is fed is recorded too.
  await writeFile(
    wrapper,
    `#!/bin/sh\necho "$*" >> '${calls}'\n[ $# -gt 3 ] && exec '${virsh}' "$@"\ntee -a '${sessionInput}' | '${virsh}' "$@"\n`,
    { mode: 0o700 },
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const processes = async () => (await readFile(calls, 'utf8').catch(() => '')).split('\n').filter(Boolean);
const sessionCommands = async () =>
  (await readFile(sessionInput, 'utf8').catch(() => ''))
    .split('\n')
    .filter((l) => l && !/^(echo ')?irontech[0-9a-f]/.test(l));

it("reads every domain's state of a 200-domain host in one virsh process, the same states status() gives", async () => {
  await writeFile(calls, '');
  const driver = createLibvirtDriver({ uri, virshBinary: wrapper, session: false });
  const started = process.hrtime.bigint();
  const states = await driver.statusAll();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  expect(await processes()).toEqual([`-q -c ${uri} domstats --state`]);
  expect(states).toEqual(expected);
  console.info(`statusAll over 200 domains: 1 virsh process, ${ms.toFixed(0)} ms`);

  // One domain of each state asked alone (virsh domstate) answers as the batch does.
  for (let i = 0; i < RUNSTATES.length; i++) {
    const ref = refForKey(`vm-${i}`);
    expect(await driver.status(ref)).toBe(states.get(ref));
  }
  expect(await processes()).toHaveLength(1 + RUNSTATES.length);
});

it("with the host's session (the default): the pass's call and later reads are commands to one long-lived virsh", async () => {
  await writeFile(calls, '');
  const driver = createLibvirtDriver({ uri, virshBinary: wrapper });
  try {
    const states = await driver.statusAll();
    expect(states).toEqual(expected);
    expect(await processes()).toEqual([`-q -c ${uri}`]);
    expect(await sessionCommands()).toEqual(['domstats --state']);
    for (let i = 0; i < RUNSTATES.length; i++) {
      const ref = refForKey(`vm-${i}`);
      expect(await driver.status(ref)).toBe(states.get(ref));
    }
    expect(await driver.statusAll()).toEqual(expected);
    expect(await processes()).toHaveLength(1);
    expect(await sessionCommands()).toHaveLength(2 + RUNSTATES.length);
  } finally {
    driver.close?.();
  }
});

it('maps the words virsh prints as status() does, and refuses an answer it cannot read whole', () => {
  for (const [, word, state] of RUNSTATES) expect(machineStateOf(word)).toBe(state);
  const ours = refForKey('vm-x');
  const other = refForKey('vm-y');
  const out = [
    `Domain: '${ours}'`,
    '  state.state=1',
    '  state.reason=0',
    '',
    "Domain: 'web 'prod''",
    '  state.state=5',
    '',
    `Domain: '${other}'`,
    '  state.state=42',
    '',
  ].join('\n');
  // An unknown number is not running, as status() treats a word it does not know.
  expect(parseDomainStates(out)).toEqual(
    new Map([
      [ours, 'running'],
      [other, 'stopped'],
    ]),
  );
  expect(parseDomainStates('')).toEqual(new Map());
  // Ours listed without a state: not taken for gone, the whole answer fails (the host is skipped this pass).
  expect(() => parseDomainStates(`Domain: '${ours}'\n  state.reason=0\n`)).toThrow(/no state for irontech-/);
});
