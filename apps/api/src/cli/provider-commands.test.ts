/**
 * Providers' settings and images from the operator command line (issue 23 item 2): shown, set and unset without SQL, every
 * change checked with the driver's own schema first (a bad value or an unknown setting is refused naming it, and
 * nothing is written), audited. Both engines (api-pglite and api-postgres).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { auditLog, imageWithdrawals, providers, resellers } from '../db/schema.ts';
import { seedDemoTenant, seedReferenceData } from '../seed/seed.ts';
import { createScratchDatabase, type ScratchDatabase } from '../../test/scratch-database.ts';
import { loadConfig } from '../config.ts';
import type { Database } from '../db/client.ts';
import { runOperatorOn } from './operator.ts';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./operator.ts', import.meta.url));

let scratch: ScratchDatabase;
let database: Database | null = null;
const opened = async () => (database ??= await scratch.open());
beforeEach(async () => {
  scratch = await createScratchDatabase();
  const { db } = await opened();
  await seedReferenceData(db, { driver: 'libvirt', libvirtUri: 'qemu+tcp://127.0.0.1:1/system' });
});
afterEach(async () => {
  await database?.close();
  database = null;
  await scratch.drop();
});

const operator = async (...argv: string[]) => runOperatorOn(await opened(), loadConfig(scratch.env), argv);
const settingsOf = async (id: number) =>
  (await (await opened()).db.select({ s: providers.settings }).from(providers).where(eq(providers.id, id)))[0]?.s;

it('lists providers, shows settings with the defaults, sets a timeout, the images map and the public network, and unsets', async () => {
  expect(await operator('providers', 'list')).toEqual({
    exitCode: 0,
    output: '#1\tNorthwind Cloud\tlibvirt\tplatform\tenabled\n#2\tIrontech Metal\tlibvirt\tplatform\tenabled',
  });
  const shown = await operator('providers', 'show', 'northwind cloud');
  expect(shown.exitCode).toBe(0);
  expect(shown.output).toMatch(/^#1 Northwind Cloud \(libvirt, platform, enabled\)\nSettings:\n\{/);
  expect(shown.output).toContain(`With the driver's defaults:`);
  expect(shown.output).toContain('"guestUser": "root"');
  const before = await settingsOf(1);

  expect(
    await operator(
      'providers',
      'set',
      '#1',
      'bootTimeoutMs=300000',
      'publicNetwork.name=public',
      'images.Ubuntu 24.04=ubuntu-24.04.qcow2',
    ),
  ).toEqual({
    exitCode: 0,
    output:
      'Provider #1 Northwind Cloud: set bootTimeoutMs, publicNetwork.name, images.Ubuntu 24.04. A running portal applies it at its next use of the provider, without a restart.',
  });
  expect(await settingsOf(1)).toEqual({
    ...(before as object),
    bootTimeoutMs: 300000,
    publicNetwork: { name: 'public' },
    images: { 'Ubuntu 24.04': 'ubuntu-24.04.qcow2' },
  });
  const audit = await (
    await opened()
  ).db
    .select()
    .from(auditLog)
    .where(eq(auditLog.action, 'provider.settings.update'));
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ targetType: 'provider', targetId: '1', before });

  // show lists the fields the reseller area manages, as `set` names them.
  const after = (await operator('providers', 'show', '#1')).output;
  expect(after).toContain(
    'Also in the reseller area (Catalog, Providers, Settings): pool.name=irontech network.name=irontech publicNetwork.name=public publicNat=true',
  );
  expect(after).toContain('  images: Ubuntu 24.04 -> ubuntu-24.04.qcow2');
  expect(await operator('providers', 'set', '#1', 'bootTimeoutMs=300000')).toEqual({
    exitCode: 1,
    output: 'Provider #1 Northwind Cloud: the settings are already so; nothing changed.',
  });
  expect((await operator('providers', 'unset', 'Northwind Cloud', 'bootTimeoutMs', 'publicNetwork')).exitCode).toBe(0);
  // The driver's default timeout applies again.
  expect(await settingsOf(1)).toEqual({ ...(before as object), images: { 'Ubuntu 24.04': 'ubuntu-24.04.qcow2' } });
});

it('refuses bad values, unknown settings and unknown providers, naming them, and writes nothing', async () => {
  const before = await settingsOf(1);
  await expect(operator('providers', 'set', '#1', 'bootTimeoutMs=12')).rejects.toThrow(
    'Not changed: bootTimeoutMs: Too small: expected number to be >=1000.',
  );
  await expect(operator('providers', 'set', '#1', 'bootTimeoutMs=lots')).rejects.toThrow(
    'Not changed: bootTimeoutMs: Invalid input: expected number, received string.',
  );
  await expect(operator('providers', 'set', '#1', 'maxRam=4096')).rejects.toThrow(
    /^libvirt has no setting "maxRam"\. Its settings: uri, /,
  );
  await expect(operator('providers', 'set', '#1', 'images.Bad=../etc/passwd')).rejects.toThrow(
    /^Not changed: images\.Bad: /,
  );
  await expect(operator('providers', 'set', '#1', 'bootTimeoutMs')).rejects.toThrow(
    '"bootTimeoutMs" is not <key>=<value> (e.g. bootTimeoutMs=300000).',
  );
  expect(await operator('providers', 'show', '#99')).toEqual({
    exitCode: 1,
    output: 'No provider #99. See: providers list',
  });
  expect(await settingsOf(1)).toEqual(before);

  // As a process: the message on stderr, exit status 1.
  await database?.close();
  database = null;
  const failed = await run(process.execPath, ['--import', 'tsx', cli, 'providers', 'set', '#1', 'domainType=xen'], {
    env: { ...process.env, ...scratch.env },
  }).catch((e: { code: number; stderr: string }) => e);
  expect(failed).toMatchObject({
    code: 1,
    stderr: `Not changed: domainType: Invalid option: expected one of "qemu"|"kvm".\n`,
  });
});

it('refuses the retired caps by name, says so in show, and drops stored ones at the next change (issue 23 item 3)', async () => {
  const { db } = await opened();
  const why =
    'a guest gets exactly its configuration\'s vCPUs, memory and disk, and a host too small for a size is refused it at placement (docs/operator-guide.md, "Sizes")';
  // What every libvirt demo provider stored before the caps went.
  const old = { uri: 'qemu+tcp://127.0.0.1:1/system', maxCpus: 2, maxRamMb: 512, maxDiskGb: 10, ramMbPerGb: 64 };
  await db.update(providers).set({ settings: old }).where(eq(providers.id, 1));

  const shown = await operator('providers', 'show', '#1');
  expect(shown.output).toContain(
    `Retired and ignored: maxCpus, maxRamMb, maxDiskGb, ramMbPerGb (${why}); the next set or unset drops them.`,
  );
  const defaults = JSON.parse(shown.output.split(`With the driver's defaults:\n`)[1]!.split('\nRetired')[0]!);
  expect(defaults).not.toHaveProperty('maxRamMb');

  await expect(operator('providers', 'set', '#1', 'maxRamMb=4096')).rejects.toThrow(
    `"maxRamMb" is no longer a setting: ${why}. Nothing changed.`,
  );
  await expect(operator('providers', 'set', '#1', 'vcpusPerCpu=0.5', 'stopTimeoutMs=1000')).rejects.toThrow(
    `"vcpusPerCpu" is no longer a setting: ${why}. Nothing changed.`,
  );
  expect(await settingsOf(1)).toEqual(old);

  expect(await operator('providers', 'set', '#1', 'stopTimeoutMs=30000')).toEqual({
    exitCode: 0,
    output: `Provider #1 Northwind Cloud: set stopTimeoutMs. Dropped the retired maxCpus, maxRamMb, maxDiskGb, ramMbPerGb: ${why}. A running portal applies it at its next use of the provider, without a restart.`,
  });
  expect(await settingsOf(1)).toEqual({ uri: old.uri, stopTimeoutMs: 30000 });
  expect((await operator('providers', 'show', '#1')).output).not.toContain('Retired');
});

it('lists the regions\u2019 images, and withdraws and offers one for a reseller as its catalog screen does', async () => {
  const { db } = await opened();
  await seedDemoTenant(db, { adminEmail: 'owner@example.com', adminPassword: 'Owner-Password-1!' });
  const [reseller] = await db.select({ id: resellers.id, name: resellers.name }).from(resellers);
  const list = await operator('images', 'list', `#${reseller!.id}`);
  expect(list.output.split('\n')).toContain(`US East\tDebian 12\tdebian 12\troot\t2 GB\toffered by ${reseller!.name}`);
  expect(await operator('images', 'withdraw', `#${reseller!.id}`, 'us east', 'Debian 12')).toEqual({
    exitCode: 0,
    output: `${reseller!.name} no longer offers Debian 12 in US East.`,
  });
  expect(
    await db
      .select({ image: imageWithdrawals.image })
      .from(imageWithdrawals)
      .where(eq(imageWithdrawals.resellerId, reseller!.id)),
  ).toEqual([{ image: 'Debian 12' }]);
  expect((await operator('images', 'list', reseller!.name)).output.split('\n')).toContain(
    `US East\tDebian 12\tdebian 12\troot\t2 GB\twithdrawn by ${reseller!.name}`,
  );
  expect(await operator('images', 'withdraw', `#${reseller!.id}`, 'US East', 'Debian 12')).toEqual({
    exitCode: 1,
    output: `${reseller!.name} already withdrew Debian 12 in US East; nothing changed.`,
  });
  expect(await operator('images', 'offer', `#${reseller!.id}`, 'US East', 'Debian 12')).toMatchObject({ exitCode: 0 });
  expect(await operator('images', 'offer', `#${reseller!.id}`, 'US East', 'Windows 95')).toEqual({
    exitCode: 1,
    output: 'US East has no image "Windows 95". See: images list',
  });
  expect(await operator('images', 'offer', '#999', 'US East', 'Debian 12')).toEqual({
    exitCode: 1,
    output: 'No reseller #999.',
  });
  await expect(operator('images', 'offer', 'only-two', 'args')).rejects.toThrow(/^Usage: images list/);
});
