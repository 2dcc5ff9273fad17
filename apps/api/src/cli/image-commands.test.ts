/**
 * Image descriptions from the operator command line (issue 23 item 2, decision 0018): `images describe` writes the
 * platform's description (all four fields for a new one, any for a change), refuses bad values naming them and
 * writes nothing, `images list` shows them (a reseller's own for that reseller), `images undescribe` removes one.
 * Audited. Both engines (api-pglite and api-postgres).
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { IMAGE_TEXT } from '@portal/contract/images';
import { auditLog, imageDescriptions, resellers } from '../db/schema.ts';
import { saveDescription } from '../db/image-descriptions.ts';
import { seedDemoTenant, seedReferenceData } from '../seed/seed.ts';
import { createScratchDatabase, type ScratchDatabase } from '../../test/scratch-database.ts';
import { loadConfig } from '../config.ts';
import type { Database } from '../db/client.ts';
import { runOperatorOn } from './operator.ts';

const REGIONS = ['Frankfurt', 'Singapore', 'US East', 'US West'];
/** One line per seeded region (each lists the built image). */
const everyRegion = (rest: string) => REGIONS.map((r) => `${r}\t${rest}`);

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
const platformRows = async () =>
  (await opened()).db
    .select({
      image: imageDescriptions.image,
      osFamily: imageDescriptions.osFamily,
      version: imageDescriptions.version,
      defaultUser: imageDescriptions.defaultUser,
      minDiskGb: imageDescriptions.minDiskGb,
    })
    .from(imageDescriptions)
    .where(isNull(imageDescriptions.resellerId))
    .orderBy(imageDescriptions.image);

it('lists the built image as the seed describes it, describes a new image and changes one field of another', async () => {
  expect((await operator('images', 'list')).output.split('\n')).toEqual(
    everyRegion('Debian 12\tdebian 12\troot\t2 GB'),
  );
  expect(
    await operator(
      'images',
      'describe',
      'Ubuntu 24.04',
      '--os',
      'ubuntu',
      '--version',
      '24.04',
      '--user',
      'ubuntu',
      '--min-disk',
      '10',
    ),
  ).toEqual({
    exitCode: 0,
    output:
      'Described Ubuntu 24.04: Ubuntu 24.04, user ubuntu, at least 10 GB of disk. No region lists it yet: the host monitor adds it once a pool holds its volume (providers set <provider> images.Ubuntu 24.04=<volume>).',
  });
  expect(await operator('images', 'describe', 'Debian 12', '--min-disk', '3')).toEqual({
    exitCode: 0,
    output:
      "Described Debian 12: Debian 12, user root, at least 3 GB of disk. New machines of it log in as root; a reseller's own description wins for its customers.",
  });
  expect(await platformRows()).toEqual([
    { image: 'Debian 12', osFamily: 'debian', version: '12', defaultUser: 'root', minDiskGb: 3 },
    { image: 'Ubuntu 24.04', osFamily: 'ubuntu', version: '24.04', defaultUser: 'ubuntu', minDiskGb: 10 },
  ]);
  expect((await operator('images', 'list')).output.split('\n')).toEqual([
    ...everyRegion('Debian 12\tdebian 12\troot\t3 GB'),
    '(no region)\tUbuntu 24.04\tubuntu 24.04\tubuntu\t10 GB',
  ]);
  const audit = await (
    await opened()
  ).db
    .select({ targetId: auditLog.targetId, before: auditLog.before, after: auditLog.after })
    .from(auditLog)
    .where(eq(auditLog.action, 'image.describe'))
    .orderBy(auditLog.id);
  expect(audit).toEqual([
    {
      targetId: 'Ubuntu 24.04',
      before: null,
      after: { osFamily: 'ubuntu', version: '24.04', defaultUser: 'ubuntu', minDiskGb: 10, by: 'operator command' },
    },
    {
      targetId: 'Debian 12',
      before: { osFamily: 'debian', version: '12', defaultUser: 'root', minDiskGb: 2 },
      after: { osFamily: 'debian', version: '12', defaultUser: 'root', minDiskGb: 3, by: 'operator command' },
    },
  ]);
});

it('refuses bad values and incomplete new descriptions, naming what to fix, and writes nothing', async () => {
  const before = await platformRows();
  const refused: [string[], string][] = [
    [['Debian 12', '--os', 'windows'], `Not described: ${IMAGE_TEXT.osFamily}.`],
    [['Debian 12', '--min-disk', '0'], `Not described: ${IMAGE_TEXT.minDisk}.`],
    [['Debian 12', '--min-disk', '65537'], `Not described: ${IMAGE_TEXT.minDisk}.`],
    [['Debian 12', '--min-disk', '2.5'], `Not described: ${IMAGE_TEXT.minDisk}.`],
    [['Debian 12', '--user', 'Root'], `Not described: ${IMAGE_TEXT.defaultUser}.`],
    [['Debian 12', '--user', 'root;reboot'], `Not described: ${IMAGE_TEXT.defaultUser}.`],
    [['Debian 12', '--version', '12 bookworm'], `Not described: ${IMAGE_TEXT.version}.`],
    [['Rocky 9', '--os', 'rocky', '--version', '9'], 'Not described: a new description needs --user, --min-disk.'],
    [['Bad\tname', '--os', 'rocky'], `Not described: ${IMAGE_TEXT.imageName}.`],
  ];
  for (const [args, message] of refused)
    await expect(operator('images', 'describe', ...args), args.join(' ')).rejects.toThrow(message);
  await expect(operator('images', 'describe', 'Debian 12')).rejects.toThrow(/^Usage: images list/);
  await expect(operator('images', 'describe', 'Debian 12', '--colour', 'blue')).rejects.toThrow(/^Usage: images list/);
  await expect(operator('images', 'describe', 'Debian 12', '--os')).rejects.toThrow(/^Usage: images list/);
  expect(await platformRows()).toEqual(before);
});

it('undescribes an image, and a reseller sees its own description in its list', async () => {
  const { db } = await opened();
  await seedDemoTenant(db, { adminEmail: 'owner@example.com', adminPassword: 'Owner-Password-1!' });
  const [reseller] = await db.select({ id: resellers.id, name: resellers.name }).from(resellers);
  await db.transaction((tx) =>
    saveDescription(tx, reseller!.id, 'Debian 12', {
      osFamily: 'debian',
      version: '12.8',
      defaultUser: 'debian',
      minDiskGb: 5,
    }),
  );
  expect((await operator('images', 'list', `#${reseller!.id}`)).output.split('\n')).toEqual(
    everyRegion(`Debian 12\tdebian 12.8\tdebian\t5 GB\toffered by ${reseller!.name}`),
  );
  // The platform's list is the platform's description.
  expect((await operator('images', 'list')).output.split('\n')).toEqual(
    everyRegion('Debian 12\tdebian 12\troot\t2 GB'),
  );
  expect(await operator('images', 'undescribe', 'Debian 12')).toEqual({
    exitCode: 0,
    output:
      'Debian 12 is no longer described (it was Debian 12); new machines of it log in as root unless a reseller describes it.',
  });
  expect((await operator('images', 'list')).output.split('\n')).toEqual(everyRegion('Debian 12\t-\t-\t-'));
  expect(await operator('images', 'undescribe', 'Debian 12')).toEqual({
    exitCode: 1,
    output: 'Debian 12 has no platform description; nothing changed.',
  });
  // The reseller's own stays.
  expect(
    await db
      .select({ v: imageDescriptions.version })
      .from(imageDescriptions)
      .where(and(eq(imageDescriptions.resellerId, reseller!.id), eq(imageDescriptions.image, 'Debian 12'))),
  ).toEqual([{ v: '12.8' }]);
});
