/**
 * The reseller area's catalog and hosts (issue 13, docs/decisions/0014-reseller-catalog.md): the sizes a reseller
 * offers and at what price, the regions and images its providers serve, and its providers' libvirt hosts.
 * Staff only; owners change, support reads.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, idSchema, route, timestampSchema } from './common.ts';
import { BACKUPS, SNAPSHOTS } from './constants.ts';
import { VALIDATION } from './messages.ts';
import { formIdSchema, SINGLE_LINE_PATTERN } from './validation.ts';
import { IMAGE_TEXT, imageDescriptionSchema, imageNameSchema } from './images.ts';

export const CATALOG_TEXT = {
  sizeSaved: 'Size saved',
  sizeNotFound: 'Size not found',
  hostNotFound: 'Host not found',
  providerNotFound: 'Provider not found',
  regionNotFound: 'Region not found',
  hostSaved: 'Host saved',
  hostRegistered: 'Host registered',
  hostNameTaken: 'A host of that name is already registered',
  noChange: 'Nothing to change',
  monthlyPrice: 'The monthly price must be a positive amount below 10000000000 with at most 2 decimals (e.g. 12.50)',
  hourlyPrice: 'The hourly price must be a positive amount below 10000000 with at most 5 decimals (e.g. 0.01712)',
  storagePricesSaved: 'Storage prices saved',
  gbMonthPrice:
    'The price per GB-month must be a positive amount below 10000000 with at most 5 decimals (e.g. 0.05000), or empty for no price',
  snapshotLimit: `The snapshot limit must be a whole number from 0 to ${SNAPSHOTS.limitMax}, or empty for the default (${SNAPSHOTS.defaultPerVm})`,
  backupLimit: `The backup limit must be a whole number from 0 to ${BACKUPS.limitMax}, or empty for the default (${BACKUPS.defaultPerVm})`,
  overcommit: `Overcommit must be between 0.1 and 64`,
  backupConcurrency: "Backups at once must be a whole number from 1 to 16, or empty for the portal's default",
  cpus: 'CPUs must be a whole number from 1 to 100000',
  ramGb: 'RAM must be a positive number of GB (at most 1000000)',
  diskGb: 'Disk must be a positive number of GB (at most 100000000)',
  hostName: 'The host name may hold letters, digits, dot, dash and underscore (at most 63)',
  hostUri: 'A libvirt URI such as qemu+ssh://root@host/system',
  /** The customer portal: a size the reseller does not offer (any more). */
  sizeNotOffered: 'This size is not offered',
  /** The customer portal: an image not in the region's pools, or one the reseller withdrew there. */
  imageNotOffered: 'The image is not offered in this region',
  providerCreated: 'Provider created',
  providerSaved: 'Provider saved',
  providerName: 'The provider name must be 1 to 100 characters on one line',
  providerDriver: 'The driver must be libvirt or simulator',
  providerNameTaken: 'You already have a provider of that name',
  driverLocked: 'The driver of a provider with hosts or virtual machines cannot change',
  regionsSaved: 'Regions saved',
  regionIds: 'Choose the regions by their ids, each once',
  imageNotFound: 'Image not found in this region',
  imageOffered: 'Image offered',
  imageWithdrawn: 'Image withdrawn',
  hostRemoved: 'Host removed',
  hostChecked: 'Host checked: compare the fingerprint with the host before you register it',
  hostKeyFingerprint: 'Check the host first: registering a qemu+ssh host needs the fingerprint of its key (SHA256:…)',
  hostKeyChanged: "The host's key changed since you checked it: check again",
  hostChecksLimited: 'Too many host checks and registrations: wait a minute and try again',
  hostNoSshAnswer:
    'The host did not answer over SSH: check the address and port, and that sshd runs and accepts connections from the portal',
  settingsSaved: 'Settings saved',
  settingsLibvirtOnly: 'Only a libvirt provider has host settings: this one runs on the simulator',
  poolName:
    'The storage pool name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit',
  networkName:
    'The network name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit',
  publicNetworkName:
    'The public network name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit (or none)',
  volumeName:
    'The volume name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit (e.g. ubuntu-24.04.qcow2)',
  publicNat: 'NAT for public addresses is on or off (true or false)',
  settingsInUse:
    "The storage pool and networks of a provider with virtual machines cannot change: its machines' disks and addresses are there",
  providerImageAdded: 'Image added',
  providerImageRemoved: 'Image removed',
  providerImageNotFound: 'This provider has no image of that name',
  providerImagesLimit: 'A provider maps at most 200 images',
} as const;

/** A host that still runs VMs is not removed (409). */
export const hostInUseText = (vms: number) =>
  `This host still runs ${vms} virtual machine${vms === 1 ? '' : 's'}: drain it and delete ${vms === 1 ? 'it' : 'them'} first`;

/** A region a provider should stop serving while VMs still run there on it (409). */
export const regionInUseText = (region: string, provider: string, vms: number) =>
  `${region} still has ${vms} virtual machine${vms === 1 ? '' : 's'} on ${provider}: delete ${vms === 1 ? 'it' : 'them'} before ${provider} stops serving ${region}`;

/** The drivers a reseller's provider may run on (keys of the server's driver registry). */
export const PROVIDER_DRIVERS = ['libvirt', 'simulator'] as const;
export const providerDriverSchema = z.enum(PROVIDER_DRIVERS, { error: CATALOG_TEXT.providerDriver });
export type ProviderDriverKind = z.infer<typeof providerDriverSchema>;

/** Limits shared by the server's checks and the portal's forms. */
export const HOST_LIMITS = {
  overcommitMin: 0.1,
  overcommitMax: 64,
  cpusMax: 100_000,
  ramGbMax: 1_000_000,
  diskGbMax: 100_000_000,
  /** Backup takes at once on one host (decision 0027); null on a host: the portal's BACKUP_CONCURRENCY_PER_HOST. */
  backupConcurrencyMax: 16,
};

/**
 * Money as a decimal string (never a float), as its column holds it: numeric(12,2) monthly and numeric(12,5) hourly
 * leave 10 and 7 integer digits (an 8-digit hourly price was a numeric overflow, a 500: issue 21).
 */
const price = (precision: number, scale: number, message: string) =>
  z
    .string({ error: message })
    .trim()
    .regex(new RegExp(`^\\d{1,${precision - scale}}(\\.\\d{1,${scale}})?$`), message)
    .refine((v) => Number(v) > 0, message);
export const monthlyPriceSchema = price(12, 2, CATALOG_TEXT.monthlyPrice);
export const hourlyPriceSchema = price(12, 5, CATALOG_TEXT.hourlyPrice);

/**
 * How many snapshots a VM of the size may keep (decision 0019): 0 to SNAPSHOTS.limitMax (0: none), null for the
 * default (SNAPSHOTS.defaultPerVm).
 */
export const snapshotLimitSchema = z
  .number({ error: CATALOG_TEXT.snapshotLimit })
  .int(CATALOG_TEXT.snapshotLimit)
  .min(0, CATALOG_TEXT.snapshotLimit)
  .max(SNAPSHOTS.limitMax, CATALOG_TEXT.snapshotLimit)
  .nullable();

/**
 * How many backups a VM of the size may keep (decision 0021): 0 to BACKUPS.limitMax (0: none), null for the default
 * (BACKUPS.defaultPerVm).
 */
export const backupLimitSchema = z
  .number({ error: CATALOG_TEXT.backupLimit })
  .int(CATALOG_TEXT.backupLimit)
  .min(0, CATALOG_TEXT.backupLimit)
  .max(BACKUPS.limitMax, CATALOG_TEXT.backupLimit)
  .nullable();

/** A size's prices and offer; `snapshotLimit` or `backupLimit` left out keeps the one set (a new price row: the default). */
export const sizeOfferSchema = z
  .object({
    monthlyPrice: monthlyPriceSchema,
    hourlyPrice: hourlyPriceSchema,
    offered: z.boolean(),
    snapshotLimit: snapshotLimitSchema.optional(),
    backupLimit: backupLimitSchema.optional(),
  })
  .strict();
export type SizeOffer = z.infer<typeof sizeOfferSchema>;

export const resellerSizeSchema = z.object({
  id: z.number().int(),
  key: z.string(),
  name: z.string(),
  cpu: z.number().int(),
  ram: z.number().int(),
  disk: z.number().int(),
  /** Whether customers may create VMs of this size (every size while the reseller has set no prices). */
  offered: z.boolean(),
  monthlyPrice: z.string().nullable(),
  hourlyPrice: z.string().nullable(),
  /** How many snapshots a VM of this size may keep as the reseller set it; null: SNAPSHOTS.defaultPerVm. */
  snapshotLimit: z.number().int().nullable(),
  /** How many backups a VM of this size may keep as the reseller set it; null: BACKUPS.defaultPerVm. */
  backupLimit: z.number().int().nullable(),
});
export type ResellerSize = z.infer<typeof resellerSizeSchema>;
export const resellerSizesSchema = z.object({
  currency: z.string(),
  /** False while the reseller has priced no size: its customers then see every size (the fallback of 0012). */
  pricesSet: z.boolean(),
  sizes: z.array(resellerSizeSchema),
});

/** A price per GB-month of kept storage (numeric(12,5), like the hourly price). */
export const gbMonthPriceSchema = price(12, 5, CATALOG_TEXT.gbMonthPrice);

/**
 * The reseller's prices of storage per GB-month (issue 24 item 4): what its customers pay for their VMs' snapshots
 * and backups (GB = 1024³ bytes, prorated by the second; docs/billing-webhook.md "Storage"). null: no price (the
 * usage still shows, with no amount).
 */
export const storagePricesBodySchema = z
  .object({
    snapshot: gbMonthPriceSchema.nullable(),
    backup: gbMonthPriceSchema.nullable(),
  })
  .strict();
export type StoragePricesBody = z.infer<typeof storagePricesBodySchema>;
export const storagePricesSchema = z.object({
  currency: z.string(),
  snapshot: z.string().nullable(),
  backup: z.string().nullable(),
});
export type StoragePrices = z.infer<typeof storagePricesSchema>;

export const resellerRegionSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  country: z.string(),
  /** The providers serving it for this reseller (its own, or the platform's while it has none). */
  providers: z.array(z.string()),
  /** Every image of the region's pools (platform data). */
  images: z.array(z.string()),
  /** Those of `images` the reseller withdrew: its customers do not see them. */
  withdrawnImages: z.array(z.string()),
  hosts: z.number().int(),
});
/** An image's descriptions (by name, every region alike): the platform's, the reseller's own (which its customers see). */
export const resellerImageDescriptionSchema = z.object({
  image: z.string(),
  platform: imageDescriptionSchema.nullable(),
  own: imageDescriptionSchema.nullable(),
});
export type ResellerImageDescription = z.infer<typeof resellerImageDescriptionSchema>;
export const resellerRegionsSchema = z.object({
  /** Whether the reseller runs its own providers; if not, its customers use the platform's. */
  ownProviders: z.boolean(),
  regions: z.array(resellerRegionSchema),
  /** One per image name of `regions` (docs/decisions/0018-image-descriptions.md). */
  descriptions: z.array(resellerImageDescriptionSchema),
});

export const hostHealthSchema = z.enum(['healthy', 'unreachable', 'not seen']);
export type HostHealth = z.infer<typeof hostHealthSchema>;

export const resellerHostSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  uri: z.string(),
  provider: z.string(),
  providerId: z.number().int(),
  region: z.string(),
  regionId: z.number().int(),
  cpus: z.number().int(),
  ramGb: z.number(),
  diskGb: z.number(),
  cpuOvercommit: z.number(),
  ramOvercommit: z.number(),
  diskOvercommit: z.number(),
  /** What the live VMs placed on it take. */
  used: z.object({ vms: z.number().int(), cpu: z.number().int(), ram: z.number().int(), disk: z.number().int() }),
  enabled: z.boolean(),
  draining: z.boolean(),
  /** How many backups are taken at once on it; null: the portal's default (decision 0027). */
  backupConcurrency: z.number().int().nullable(),
  health: hostHealthSchema,
  lastSeenAt: timestampSchema.nullable(),
  lastError: z.string().nullable(),
  /** The fingerprint of the SSH host key pinned at registration (qemu+ssh hosts), e.g. `SHA256:…`. */
  hostKeyFingerprint: z.string().nullable(),
});
export type ResellerHost = z.infer<typeof resellerHostSchema>;
export const resellerHostsSchema = z.object({
  hosts: z.array(resellerHostSchema),
  /** The portal's SSH public key for this reseller: its qemu+ssh hosts accept it (the user's authorized_keys). */
  publicKey: z.string(),
  /** What a new host may be registered under: the reseller's libvirt providers, and the regions. */
  providers: z.array(z.object({ id: z.number().int(), name: z.string() })),
  regions: z.array(z.object({ id: z.number().int(), name: z.string() })),
});

const overcommit = z
  .number({ error: CATALOG_TEXT.overcommit })
  .min(HOST_LIMITS.overcommitMin, CATALOG_TEXT.overcommit)
  .max(HOST_LIMITS.overcommitMax, CATALOG_TEXT.overcommit);
const capacityFields = {
  cpus: z
    .number({ error: CATALOG_TEXT.cpus })
    .int(CATALOG_TEXT.cpus)
    .min(1, CATALOG_TEXT.cpus)
    .max(HOST_LIMITS.cpusMax, CATALOG_TEXT.cpus),
  ramGb: z
    .number({ error: CATALOG_TEXT.ramGb })
    .positive(CATALOG_TEXT.ramGb)
    .max(HOST_LIMITS.ramGbMax, CATALOG_TEXT.ramGb),
  diskGb: z
    .number({ error: CATALOG_TEXT.diskGb })
    .positive(CATALOG_TEXT.diskGb)
    .max(HOST_LIMITS.diskGbMax, CATALOG_TEXT.diskGb),
  cpuOvercommit: overcommit,
  ramOvercommit: overcommit,
  diskOvercommit: overcommit,
};

/** Backup takes at once on a host: 1..16, or null for the portal's default (decision 0027). */
export const backupConcurrencySchema = z
  .number({ error: CATALOG_TEXT.backupConcurrency })
  .int(CATALOG_TEXT.backupConcurrency)
  .min(1, CATALOG_TEXT.backupConcurrency)
  .max(HOST_LIMITS.backupConcurrencyMax, CATALOG_TEXT.backupConcurrency)
  .nullable();

/** A change to a host: capacity, overcommit, whether it takes new VMs, backups at once. Only the fields given change. */
export const hostUpdateSchema = z
  .object({
    ...capacityFields,
    enabled: z.boolean(),
    draining: z.boolean(),
    backupConcurrency: backupConcurrencySchema,
  })
  .partial()
  .strict();
export type HostUpdate = z.infer<typeof hostUpdateSchema>;

/** A new host of one of the reseller's libvirt providers; capacity not given is read from the host. */
export const hostRegistrationSchema = z
  .object({
    name: z.string({ error: CATALOG_TEXT.hostName }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, CATALOG_TEXT.hostName),
    uri: z
      .string({ error: CATALOG_TEXT.hostUri })
      .max(500, CATALOG_TEXT.hostUri)
      .regex(/^[a-z0-9+]+:\/\/[^\s]*$/, CATALOG_TEXT.hostUri)
      .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters),
    providerId: idSchema,
    regionId: idSchema,
    /** qemu+ssh: the fingerprint the check showed (and the reseller compared); the key is pinned only if it matches. */
    hostKeyFingerprint: z
      .string({ error: CATALOG_TEXT.hostKeyFingerprint })
      .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, CATALOG_TEXT.hostKeyFingerprint)
      .optional(),
    cpus: capacityFields.cpus.optional(),
    ramGb: capacityFields.ramGb.optional(),
    diskGb: capacityFields.diskGb.optional(),
    cpuOvercommit: overcommit.optional(),
    ramOvercommit: overcommit.optional(),
    diskOvercommit: overcommit.optional(),
  })
  .strict();
export type HostRegistration = z.infer<typeof hostRegistrationSchema>;

/** A host to check before registering it: its URI is validated and, over qemu+ssh, its host key read. */
export const hostCheckSchema = hostRegistrationSchema.pick({ uri: true }).strict();
export type HostCheck = z.infer<typeof hostCheckSchema>;
export const hostCheckResultSchema = z.object({
  /** The portal's public key for this reseller: put it in the user's authorized_keys on the host. */
  publicKey: z.string(),
  /** qemu+ssh: the host's key as it answered (`ssh-ed25519 AAAA…`) and its fingerprint; null for qemu+tls/tcp. */
  hostKey: z.string().nullable(),
  fingerprint: z.string().nullable(),
});
export type HostCheckResult = z.infer<typeof hostCheckResultSchema>;

/** A reseller's own provider (a "cloud"): its driver, whether it takes new VMs, the regions it serves. */
export const resellerProviderSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  driver: z.string(),
  enabled: z.boolean(),
  regionIds: z.array(z.number().int()),
  hosts: z.number().int(),
  /** Its live (not deleted) VMs. */
  vms: z.number().int(),
});
export type ResellerProvider = z.infer<typeof resellerProviderSchema>;
export const resellerProvidersSchema = z.object({
  providers: z.array(resellerProviderSchema),
  /** Every platform region a provider may serve. */
  regions: z.array(z.object({ id: z.number().int(), name: z.string(), country: z.string() })),
});

export const providerInputSchema = z
  .object({
    name: z
      .string({ error: CATALOG_TEXT.providerName })
      .trim()
      .min(1, CATALOG_TEXT.providerName)
      .max(100, CATALOG_TEXT.providerName)
      .regex(SINGLE_LINE_PATTERN, CATALOG_TEXT.providerName),
    driver: providerDriverSchema,
    enabled: z.boolean(),
  })
  .strict();
export type ProviderInput = z.infer<typeof providerInputSchema>;
/** A change to a provider: only the fields given change. */
export const providerUpdateSchema = providerInputSchema.partial().strict();
export type ProviderUpdate = z.infer<typeof providerUpdateSchema>;

/** The regions a provider serves, all of them (it then offers every size there). */
export const providerRegionsSchema = z
  .object({
    regionIds: z
      .array(formIdSchema, { error: CATALOG_TEXT.regionIds })
      .max(1000, CATALOG_TEXT.regionIds)
      .refine((ids) => new Set(ids).size === ids.length, CATALOG_TEXT.regionIds),
  })
  .strict();
export type ProviderRegions = z.infer<typeof providerRegionsSchema>;

/** Offers or withdraws one image of a region's pools to the reseller's customers. */
export const imageOfferSchema = z
  .object({
    regionId: formIdSchema,
    image: z.string().min(1).max(200).regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters),
    offered: z.boolean(),
  })
  .strict();
export type ImageOffer = z.infer<typeof imageOfferSchema>;

/** The reseller's own description of an image of its regions; null removes it (its customers see the platform's). */
export const imageDescribeSchema = z
  .object({ image: imageNameSchema, description: imageDescriptionSchema.nullable() })
  .strict();
export type ImageDescribe = z.infer<typeof imageDescribeSchema>;

/**
 * A libvirt object's name on the host, by the driver's own rule (providers/libvirt/libvirt.ts `name`): the pool, the
 * networks, a base volume.
 */
const HOST_OBJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const hostObjectName = (message: string) => z.string({ error: message }).regex(HOST_OBJECT_NAME, message);
/** How many images one provider's map may hold. */
export const PROVIDER_IMAGES_MAX = 200;

/**
 * The settings of a reseller's libvirt provider that the reseller manages (issue 23 item 2): the names of the pool and
 * networks on its hosts, the public addresses' way, and the images map. Never the server's own programs or paths
 * (virshBinary, guestImageCacheDir), nor a URI (each host has its own, held to its owner's policy: decision 0015).
 */
export const providerSettingsSchema = z.object({
  /** The directory pool on each host that holds the base volumes and the machines' disks. */
  poolName: z.string(),
  /** The machines' private network (a NAT network the driver makes when missing). */
  networkName: z.string(),
  /** A network the reseller defined over its public block; null: public addresses are NATed 1:1 or only shown. */
  publicNetworkName: z.string().nullable(),
  /** Without a public network: the host's hook maps each public address to its VM's private one. */
  publicNat: z.boolean(),
  /**
   * The catalog's image names and the base volume in the pool each is made from, by name; `regions`: those the
   * provider serves that list the image now (a name appears once a host's pool holds its volume; the hosts are
   * looked at every few seconds).
   */
  images: z.array(z.object({ image: z.string(), volume: z.string(), regions: z.array(z.string()) })),
});
export type ProviderSettings = z.infer<typeof providerSettingsSchema>;

/** A change to those settings: only the fields given change (the images: providerImageSchema, one at a time). */
export const providerSettingsUpdateSchema = z
  .object({
    poolName: hostObjectName(CATALOG_TEXT.poolName),
    networkName: hostObjectName(CATALOG_TEXT.networkName),
    publicNetworkName: hostObjectName(CATALOG_TEXT.publicNetworkName).nullable(),
    publicNat: z.boolean({ error: CATALOG_TEXT.publicNat }),
  })
  .partial()
  .strict();
export type ProviderSettingsUpdate = z.infer<typeof providerSettingsUpdateSchema>;

/** Adds (or repoints) one image of a provider's map: the catalog's name, the base volume; `volume: null` removes it. */
export const providerImageSchema = z
  .object({
    // A map key: "__proto__" would be an object's prototype, not an image, wherever the map is read.
    image: imageNameSchema.refine((v) => v !== '__proto__', IMAGE_TEXT.imageName),
    volume: hostObjectName(CATALOG_TEXT.volumeName).nullable(),
  })
  .strict();
export type ProviderImage = z.infer<typeof providerImageSchema>;

const base = { tag: 'Reseller catalog', access: 'staff' } as const;
const P = '/reseller';

export const resellerCatalogRoutes = {
  listSizes: route({
    ...base,
    method: 'GET',
    path: `${P}/catalog/sizes`,
    summary: "Every platform size with the reseller's prices and whether it is offered",
    data: resellerSizesSchema,
  }),
  saveSize: route({
    ...base,
    method: 'PUT',
    path: `${P}/catalog/sizes/:id`,
    summary:
      'Sets the prices of a size, whether it is offered (false withdraws it; the price stays for billing) and its per-VM snapshot limit',
    params: idParamsSchema,
    body: sizeOfferSchema,
    data: resellerSizeSchema,
  }),
  storagePrices: route({
    ...base,
    method: 'GET',
    path: `${P}/catalog/storagePrices`,
    summary: "The reseller's prices per GB-month of its customers' snapshots and backups (null: no price)",
    data: storagePricesSchema,
  }),
  saveStoragePrices: route({
    ...base,
    method: 'PUT',
    path: `${P}/catalog/storagePrices`,
    summary: 'Sets the prices per GB-month of snapshots and backups (owner); null removes a price',
    body: storagePricesBodySchema,
    data: storagePricesSchema,
  }),
  listRegions: route({
    ...base,
    method: 'GET',
    path: `${P}/catalog/regions`,
    summary: "The regions the reseller's providers serve, with their images",
    data: resellerRegionsSchema,
  }),
  saveImage: route({
    ...base,
    method: 'PUT',
    path: `${P}/catalog/images`,
    summary: "Offers or withdraws an image of a region's pools to the reseller's customers",
    body: imageOfferSchema,
    data: resellerRegionsSchema,
  }),
  describeImage: route({
    ...base,
    method: 'PUT',
    path: `${P}/catalog/images/description`,
    summary:
      "Describes an image of the reseller's regions (OS, version, default user, minimum disk) for its customers, or removes its description",
    body: imageDescribeSchema,
    data: resellerRegionsSchema,
  }),
  listProviders: route({
    ...base,
    method: 'GET',
    path: `${P}/providers`,
    summary: "The reseller's own providers with the regions they serve, and every region",
    data: resellerProvidersSchema,
  }),
  createProvider: route({
    ...base,
    method: 'POST',
    path: `${P}/providers`,
    summary: 'Creates a provider of the reseller (serving no region yet)',
    body: providerInputSchema,
    data: resellerProviderSchema,
  }),
  updateProvider: route({
    ...base,
    method: 'PUT',
    path: `${P}/providers/:id`,
    summary: 'Renames a provider, enables or disables it, or changes its driver (while it has no hosts or VMs)',
    params: idParamsSchema,
    body: providerUpdateSchema,
    data: resellerProviderSchema,
  }),
  setProviderRegions: route({
    ...base,
    method: 'PUT',
    path: `${P}/providers/:id/regions`,
    summary: 'Sets the regions a provider serves (every size in each); refuses dropping a region with live VMs',
    params: idParamsSchema,
    body: providerRegionsSchema,
    data: resellerProviderSchema,
  }),
  getProviderSettings: route({
    ...base,
    method: 'GET',
    path: `${P}/providers/:id/settings`,
    summary: "A libvirt provider's settings the reseller manages: pool and network names, public addresses, images",
    params: idParamsSchema,
    data: providerSettingsSchema,
  }),
  saveProviderSettings: route({
    ...base,
    method: 'PUT',
    path: `${P}/providers/:id/settings`,
    summary:
      "Changes a libvirt provider's pool and network names (not while it has VMs) or public addresses' way; applied without a restart",
    params: idParamsSchema,
    body: providerSettingsUpdateSchema,
    data: providerSettingsSchema,
  }),
  saveProviderImage: route({
    ...base,
    method: 'PUT',
    path: `${P}/providers/:id/images`,
    summary:
      "Adds an image to a libvirt provider's map (catalog name → base volume in its hosts' pool), repoints it, or removes it (volume null)",
    params: idParamsSchema,
    body: providerImageSchema,
    data: providerSettingsSchema,
  }),
  listHosts: route({
    ...base,
    method: 'GET',
    path: `${P}/hosts`,
    summary: "The hosts of the reseller's providers: capacity, allocation, health",
    data: resellerHostsSchema,
  }),
  registerHost: route({
    ...base,
    method: 'POST',
    path: `${P}/hosts`,
    summary: "Registers a libvirt host of one of the reseller's providers",
    body: hostRegistrationSchema,
    data: resellerHostSchema,
  }),
  updateHost: route({
    ...base,
    method: 'PUT',
    path: `${P}/hosts/:id`,
    summary: "Changes a host's capacity, overcommit, enabled, draining or backups at once",
    params: idParamsSchema,
    body: hostUpdateSchema,
    data: resellerHostSchema,
  }),
  checkHost: route({
    ...base,
    method: 'POST',
    path: `${P}/hosts/check`,
    summary: "Validates a host URI and reads a qemu+ssh host's key (to confirm its fingerprint before registering it)",
    body: hostCheckSchema,
    data: hostCheckResultSchema,
  }),
  deleteHost: route({
    ...base,
    method: 'DELETE',
    path: `${P}/hosts/:id`,
    summary: "Removes a host of one of the reseller's providers (refused while it has live VMs)",
    params: idParamsSchema,
    data: z.object({ id: z.number().int() }),
  }),
} as const;
