/**
 * The demo VM catalog, seeded when the catalog is empty. It shows every case of the create chain:
 *  - US East: one provider for most sizes (auto-selected), two for Medium and Large (a dropdown);
 *  - Singapore: no provider for Extra Large ("Chosen configuration has no possible provider").
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { VM_SIZES } from '@portal/contract/constants';
import type { ImageDescription } from '@portal/contract/images';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import {
  cities,
  configurations,
  countries,
  hosts,
  imageDescriptions,
  images,
  providerOfferings,
  providers,
  regions,
} from '../db/schema.ts';
import { libvirtSettingsSchema } from '../providers/libvirt/libvirt.ts';

/** The simulated catalog's images (names only: the simulator boots nothing). */
const SIMULATED_IMAGES = ['Ubuntu 24.04 LTS', 'Debian 12', 'Rocky Linux 9', 'Windows Server 2022'];

/**
 * What the seeded images are (decision 0018), platform-wide. "Debian 12" is the built guest image
 * (scripts/guest-image/build-debian.sh): its login is root, and its 1.3 GiB virtual size rounds up to 2 GB (migration
 * 0021 describes it the same way on installs older than descriptions). The simulated vendors' images take their
 * cloud images' logins; Windows stays undescribed (a VM of an undescribed image logs in as root).
 */
export const SEEDED_IMAGE_DESCRIPTIONS: Record<string, ImageDescription> = {
  'Debian 12': { osFamily: 'debian', version: '12', defaultUser: 'root', minDiskGb: 2 },
  'Ubuntu 24.04 LTS': { osFamily: 'ubuntu', version: '24.04', defaultUser: 'ubuntu', minDiskGb: 4 },
  'Rocky Linux 9': { osFamily: 'rocky', version: '9', defaultUser: 'rocky', minDiskGb: 10 },
};

/**
 * `VM_PROVIDER=libvirt`: both demo providers run on this host's libvirtd (`LIBVIRT_DEMO_URI`, default
 * `qemu:///system`; pool and NAT network `irontech`) with the driver's defaults. A guest gets exactly its size
 * (issue 23 item 3); what this machine can hold is its demo hosts' capacity below, checked at placement.
 */
const DEMO_LIBVIRT_SETTINGS = {};

/**
 * The images a libvirt demo region lists: only the names the built Irontech guest serves (`guestImages`), so
 * the catalog offers nothing that does not exist. The host monitor then keeps US East's list to its pool's.
 */
export const DEMO_LIBVIRT_IMAGES = libvirtSettingsSchema.parse(DEMO_LIBVIRT_SETTINGS).guestImages;

/**
 * `driver`: what runs the demo providers' machines (the simulator, or real guests on a libvirtd, by default this
 * host's; `libvirtUri` names another).
 */
export async function seedCatalog(
  db: Db,
  driver: Config['VM_PROVIDER'] = 'simulator',
  opts: { libvirtUri?: string } = {},
): Promise<void> {
  const libvirtUri = opts.libvirtUri ?? 'qemu:///system';
  const libvirtSettings = { ...DEMO_LIBVIRT_SETTINGS, uri: libvirtUri };
  const imageNames = driver === 'simulator' ? SIMULATED_IMAGES : DEMO_LIBVIRT_IMAGES;
  const [{ n } = { n: 0 }] = await db.select({ n: sql<number>`count(*)::int` }).from(configurations);
  if (n > 0) return;
  await db.transaction(async (tx) => {
    const sizes = await tx
      .insert(configurations)
      .values(VM_SIZES.map((s) => ({ key: s.key, name: s.name, cpu: s.cpu, ram: s.ram, disk: s.disk })))
      .returning();
    const sizeId = (key: string) => sizes.find((s) => s.key === key)!.id;
    const [primary, secondary] = await tx
      .insert(providers)
      .values([
        {
          name: 'Northwind Cloud',
          driver,
          settings: driver === 'simulator' ? { site: 'nw-1' } : libvirtSettings,
        },
        { name: 'Irontech Metal', driver, settings: driver === 'simulator' ? { site: 'it-1' } : libvirtSettings },
      ])
      .returning();
    const [us, de, sg] = await tx
      .insert(countries)
      .values([{ name: 'United States' }, { name: 'Germany' }, { name: 'Singapore' }])
      .returning();
    const [usEast, usWest, frankfurt, singapore] = await tx
      .insert(regions)
      .values([
        { countryId: us!.id, name: 'US East' },
        { countryId: us!.id, name: 'US West' },
        { countryId: de!.id, name: 'Frankfurt' },
        { countryId: sg!.id, name: 'Singapore' },
      ])
      .returning();
    await tx.insert(cities).values([
      { regionId: usEast!.id, name: 'Ashburn' },
      { regionId: usEast!.id, name: 'New York' },
      { regionId: usWest!.id, name: 'San Jose' },
      { regionId: frankfurt!.id, name: 'Frankfurt am Main' },
      { regionId: singapore!.id, name: 'Singapore' },
    ]);
    for (const region of [usEast!, usWest!, frankfurt!, singapore!]) {
      await tx.insert(images).values(
        imageNames
          .filter((i) => region !== singapore || !i.startsWith('Windows'))
          .map((name) => ({
            regionId: region.id,
            name,
          })),
      );
    }
    await tx
      .insert(imageDescriptions)
      .values(
        imageNames.flatMap((image) => {
          const description = SEEDED_IMAGE_DESCRIPTIONS[image];
          return description ? [{ resellerId: null, image, ...description }] : [];
        }),
      )
      .onConflictDoNothing();
    const offerings: { providerId: number; regionId: number; configurationId: number }[] = [];
    for (const region of [usEast!, usWest!, frankfurt!, singapore!]) {
      for (const size of VM_SIZES) {
        if (region === singapore && size.key === 'extraLarge') continue;
        offerings.push({ providerId: primary!.id, regionId: region.id, configurationId: sizeId(size.key) });
      }
    }
    for (const key of ['medium', 'large'])
      offerings.push({ providerId: secondary!.id, regionId: usEast!.id, configurationId: sizeId(key) });
    await tx.insert(providerOfferings).values(offerings);
    if (driver === 'libvirt') {
      // This machine's libvirtd (or LIBVIRT_DEMO_URI's) is the demo host of US East for both providers (other
      // regions reach it through the providers' settings). Its size is this machine's; the host monitor sees it at
      // start-up (and uploads the built guest image into its pool), after which creates are placed on it.
      const local = {
        uri: libvirtUri,
        regionId: usEast!.id,
        cpus: os.cpus().length,
        ramGb: Math.floor(os.totalmem() / 1024 ** 3) || 1,
        diskGb: 100,
      };
      await tx.insert(hosts).values([
        { ...local, name: 'local', providerId: primary!.id },
        { ...local, name: 'local-metal', providerId: secondary!.id },
      ]);
    }
  });
}
