import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, idSchema, pageQueryFields, pagedSchema, route, timestampSchema } from './common.ts';
import { SSH_KEYS, VM_SIZE_KEYS, VM_STATUSES } from './constants.ts';
import { SSH_KEY_TEXT, VALIDATION } from './messages.ts';
import { permissionKeySchema } from './permissions.ts';
import { userDataSchema } from './ssh-keys.ts';
import { imageDetailsSchema } from './images.ts';
import { OPERATION_KINDS } from './vm-lifecycle.ts';
import { SINGLE_LINE_PATTERN, instanceCountSchema, vmNameSchema } from './validation.ts';

/** An image name as the catalog lists it. */
const imageSchema = z.string().trim().min(1).max(100).regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters);

export const vmStatusSchema = z.enum(VM_STATUSES);

export const configurationSchema = z.object({
  id: z.number().int(),
  key: z.enum(VM_SIZE_KEYS),
  name: z.string(),
  cpu: z.number().int(),
  ram: z.number().int(),
  disk: z.number().int(),
});
export type Configuration = z.infer<typeof configurationSchema>;

/**
 * A size as the create form offers it in a region (issue 25 item 3): the reseller's prices (decimal strings in its
 * currency; null while it has priced no size, when every size is offered unpriced: decision 0014) and whether a
 * create of it would be placed there now. `unavailableReason` says why not, in words a customer can act on, naming
 * no host: no provider runs it there (the spec's text), the image needs a larger disk, or no host has room.
 */
export const regionConfigurationSchema = configurationSchema.extend({
  monthlyPrice: z.string().nullable(),
  hourlyPrice: z.string().nullable(),
  currency: z.string(),
  available: z.boolean(),
  unavailableReason: z.string().nullable(),
});
export type RegionConfiguration = z.infer<typeof regionConfigurationSchema>;

export const namedSchema = z.object({ id: z.number().int(), name: z.string() });
export type Named = z.infer<typeof namedSchema>;

export const vmListItemSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: vmStatusSchema,
  /** While Starting: when the guest began to boot (docs/virtual-machines.md, "Starting"); null in any other status. */
  bootStartedAt: timestampSchema.nullable(),
  configuration: z.string(),
  /** The size's id (the row menu's Upgrade offers larger ones). */
  configurationId: z.number().int(),
  cpu: z.number().int(),
  ram: z.number().int(),
  createdAt: timestampSchema,
  regionId: z.number().int(),
  teamId: z.number().int().nullable(),
  /** The list's added columns (issue 25 item 2): region and team names, image, addresses. */
  region: z.string(),
  team: z.string().nullable(),
  image: z.string(),
  publicIp: z.string().nullable(),
  privateIp: z.string().nullable(),
  /** The caller's effective permissions on this VM (the row menu offers only these; the server still checks). */
  permissions: z.array(permissionKeySchema),
});
export type VmListItem = z.infer<typeof vmListItemSchema>;

/** The list's filters (issue 25 item 2): status, region and team; with the search, what "all matching" means. */
export const vmListFilterFields = {
  search: pageQueryFields.search,
  status: vmStatusSchema.optional(),
  regionId: idSchema.optional(),
  teamId: idSchema.optional(),
};

/** What the list's region and team filters offer: those of the VMs the caller sees. */
export const vmListFacetsSchema = z.object({ regions: z.array(namedSchema), teams: z.array(namedSchema) });

/** The actions the VM list runs on several VMs at once (issue 25 item 2). */
export const VM_BULK_ACTIONS = ['start', 'stop', 'delete'] as const;
export type VmBulkAction = (typeof VM_BULK_ACTIONS)[number];
/** The most VMs one bulk call acts on: chosen ids, or the VMs matching the filters. */
export const VM_BULK_LIMIT = 500;

export const VM_BULK_TEXT = {
  tooMany: `A bulk action can act on at most ${VM_BULK_LIMIT} virtual machines at once. Narrow the filters.`,
  idsOrMatching: 'Give either the chosen ids or the filters to match, not both',
  notFound: 'not found',
  roleLacks: (verb: string, team: string) => `you may not ${verb} VMs of team ${team}`,
  /** The portal's words around a bulk action. */
  selected: (n: number) => `${n} selected`,
  selectAllMatching: 'Select all matching the filters',
  allMatching: 'All VMs matching the filters',
  clear: 'Clear selection',
  confirmTitle: (label: string, count: number | null) =>
    count === null
      ? `${label} all matching virtual machines`
      : `${label} ${count} virtual machine${count === 1 ? '' : 's'}`,
  confirmText: (verb: string, participle: string, count: number | null) =>
    `Are you sure you want to ${verb} ${
      count === null
        ? `every virtual machine matching the filters (at most ${VM_BULK_LIMIT})`
        : count === 1
          ? 'this virtual machine'
          : `these ${count} virtual machines`
    }? Any you may not ${verb}, or that cannot be ${participle} now, is left as it is and listed with the reason.`,
  deleteWarning: 'Deleted virtual machines and their disks cannot be recovered.',
  typeToConfirm: 'Type delete to confirm',
  confirmWord: 'delete',
  summaryTitle: 'Bulk action finished',
  /** "10 stopped; 2 refused". */
  summary: (done: number, participle: string, refused: number) =>
    refused ? `${done} ${participle}; ${refused} refused` : `${done} ${participle}`,
  refusedHeading: 'Refused',
  doneHeading: 'Done',
} as const;

export const vmBulkBodySchema = z
  .object({
    action: z.enum(VM_BULK_ACTIONS),
    /** The chosen VMs; or `matching`: every VM the caller sees that matches these filters. */
    ids: z.array(idSchema).min(1).max(VM_BULK_LIMIT, VM_BULK_TEXT.tooMany).optional(),
    matching: z.object(vmListFilterFields).strict().optional(),
    /** A delete keeps each VM's backups (issue 24 item 4; as DELETE /virtualMachines/delete/:id?keepBackups=true). */
    keepBackups: z.boolean({ error: 'keepBackups must be true or false' }).optional(),
  })
  .strict()
  .refine((b) => (b.ids === undefined) !== (b.matching === undefined), { message: VM_BULK_TEXT.idsOrMatching });

/** One VM's outcome of a bulk action: done (queued), or refused with the reason (as its own route would answer). */
export const vmBulkOutcomeSchema = z.object({
  id: z.number().int(),
  /** Null for an id the caller does not see (another company's, or none): refused as not found. */
  name: z.string().nullable(),
  outcome: z.enum(['done', 'refused']),
  reason: z.string().nullable(),
});
export type VmBulkOutcome = z.infer<typeof vmBulkOutcomeSchema>;
export const vmBulkResultSchema = z.object({
  action: z.enum(VM_BULK_ACTIONS),
  done: z.number().int(),
  refused: z.number().int(),
  outcomes: z.array(vmBulkOutcomeSchema),
});
export type VmBulkResult = z.infer<typeof vmBulkResultSchema>;

export const vmDetailsSchema = z.object({
  virtualMachine: z.object({
    id: z.number().int(),
    name: z.string(),
    configuration: z.string(),
    configurationId: z.number().int(),
    country: z.string(),
    region: z.string(),
    /** The VM's region: its images (listImages) are what a rebuild may choose from. */
    regionId: z.number().int(),
    image: z.string(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
    cpu: z.number().int(),
    ram: z.number().int(),
    disk: z.number().int(),
    teamId: z.number().int().nullable(),
    network: z.object({ publicIp: z.string().nullable(), privateIp: z.string().nullable() }),
  }),
  status: vmStatusSchema,
  /** While Starting: when the guest began to boot (the portal shows the time since); null in any other status. */
  bootStartedAt: timestampSchema.nullable(),
  consoleAvailable: z.boolean(),
  /** cpuUsage in percent of all cores (0–100); ramUsage in GB used. */
  usage: z.object({ cpuUsage: z.number(), ramUsage: z.number() }),
  /** Why the VM is in Error, when it is. */
  errorReason: z.string().nullable(),
  /** The operation still running on it, if any. */
  pendingOperation: z.enum(OPERATION_KINDS).nullable(),
  /** The caller's effective permissions on this VM (the portal offers only these; the server still checks). */
  permissions: z.array(permissionKeySchema),
  /**
   * How the machine is logged in to (issue 23 item 5): the default user, the keys it was created with (the
   * portal's own first, then the creator's chosen keys as they were then) and whether it was given user-data.
   */
  access: z.object({
    sshUsername: z.string(),
    keys: z.array(z.object({ name: z.string(), fingerprint: z.string(), portal: z.boolean() })),
    userData: z.object({ bytes: z.number().int(), kind: z.enum(['cloud-config', 'script']) }).nullable(),
  }),
});
export type VmDetails = z.infer<typeof vmDetailsSchema>;

/**
 * The spans a VM's graphs cover, in seconds: up to 24 h in minute points, beyond in hourly ones (the engine keeps
 * minutes 24 h and hours 90 days; engine/metrics/).
 */
export const VM_METRICS_RANGES = {
  '1h': 3_600,
  '24h': 86_400,
  '7d': 604_800,
  '30d': 2_592_000,
  '90d': 7_776_000,
} as const;
export type VmMetricsRange = keyof typeof VM_METRICS_RANGES;
const metricsRangeKeys = Object.keys(VM_METRICS_RANGES) as [VmMetricsRange, ...VmMetricsRange[]];

/**
 * One time bucket of a VM (`at`: its start). Totals over the seconds the engine's samples covered in it, so a byte
 * rate is bytes / seconds; CPU % of all the VM's vCPUs and memory in use are means over the bucket (null: no sample).
 */
export const vmMetricsPointSchema = z.object({
  at: timestampSchema,
  seconds: z.number(),
  cpuPercent: z.number().nullable(),
  memoryUsedBytes: z.number().nullable(),
  diskReadBytes: z.number(),
  diskWriteBytes: z.number(),
  netRxBytes: z.number(),
  netTxBytes: z.number(),
});
export type VmMetricsPoint = z.infer<typeof vmMetricsPointSchema>;

export const vmMetricsSchema = z.object({
  range: z.enum(metricsRangeKeys),
  /** The points' width: a minute for ranges up to 24 h, an hour beyond. */
  stepSeconds: z.union([z.literal(60), z.literal(3600)]),
  /** The first bucket's start and the time of the answer. Buckets without samples are left out. */
  from: timestampSchema,
  to: timestampSchema,
  points: z.array(vmMetricsPointSchema),
  /** The engine's latest sample of the VM (what VM details show), null before its first. */
  latest: z.object({ at: timestampSchema, cpuPercent: z.number(), memoryUsedBytes: z.number().nullable() }).nullable(),
  /** Network bytes this calendar month (UTC), as billed: `month` is `YYYY-MM`; rx is what the VM received. */
  traffic: z.object({ month: z.string(), rxBytes: z.number(), txBytes: z.number() }),
});
export type VmMetrics = z.infer<typeof vmMetricsSchema>;

export const dashboardCountsSchema = z.object(
  Object.fromEntries(VM_SIZE_KEYS.map((k) => [k, z.number().int()])) as Record<
    (typeof VM_SIZE_KEYS)[number],
    z.ZodNumber
  >,
);
export const dashboardDataSchema = z.object({
  currentMonth: dashboardCountsSchema,
  previousMonth: dashboardCountsSchema,
  ytd: dashboardCountsSchema,
});
export type DashboardData = z.infer<typeof dashboardDataSchema>;
/**
 * Money as billing's usage carries it: a decimal string with 2 places (never a float), in the reseller's currency.
 * `amount` is billing's rule for the month so far (docs/billing-webhook.md: hours at each size x its hourly price,
 * capped at its monthly price per VM and size); lines of a size the reseller has not priced count as `unpriced`.
 */
const monthSpendFields = {
  /** The UTC month, `YYYY-MM`. */
  month: z.string(),
  currency: z.string(),
  /** Hours the machines existed this month so far (2 places). */
  hours: z.string(),
  /** The machines' cost so far plus their snapshots' and backups' storage (issue 24 item 4). */
  amount: z.string(),
  /** VM x size lines with no price (not in `amount`; storage the reseller has not priced is not charged either). */
  unpriced: z.number().int(),
};

/** One VM's month so far (issue 25 item 4): its cost by billing's rule and its network traffic. */
export const vmMonthToDateSchema = z.object({
  ...monthSpendFields,
  /** Network bytes this month (the metrics' traffic); rx is what the VM received. */
  traffic: z.object({ rxBytes: z.number(), txBytes: z.number() }),
});
export type VmMonthToDate = z.infer<typeof vmMonthToDateSchema>;

/**
 * The dashboard's summary (issue 25 item 5), over the machines the caller sees: how many in each status (only
 * statuses with machines, in VM_STATUSES order) and this month's spend so far (machines deleted this month included).
 */
export const dashboardSummarySchema = z.object({
  total: z.number().int(),
  statuses: z.array(z.object({ status: vmStatusSchema, count: z.number().int() })),
  spend: z.object(monthSpendFields),
});
export type DashboardSummaryData = z.infer<typeof dashboardSummarySchema>;

export const VM_SORT_COLUMNS = ['name', 'configuration'] as const;

export const createVmBodySchema = z
  .object({
    regionId: idSchema,
    image: imageSchema,
    configurationId: idSchema,
    providerId: idSchema,
    name: vmNameSchema,
    numberOfInstances: instanceCountSchema,
    teamId: idSchema.nullable().optional(),
    /** The caller's own stored keys to install beside the portal's (issue 23 item 5); another user's id is a 400. */
    sshKeyIds: z.array(idSchema).max(SSH_KEYS.perUser, SSH_KEY_TEXT.tooManyChosen(SSH_KEYS.perUser)).optional(),
    /** cloud-init user-data run at first boot: `#cloud-config` or a `#!` script, at most 16 KiB. */
    userData: userDataSchema.optional(),
  })
  .strict();

/**
 * A rebuild (issue 23 item 6): an image offered in the VM's region (listImages), the caller's own stored keys to
 * install (they replace the VM's chosen keys; the portal's key and password stay) and optional user-data.
 */
export const rebuildVmBodySchema = z
  .object({
    image: imageSchema,
    sshKeyIds: z.array(idSchema).max(SSH_KEYS.perUser, SSH_KEY_TEXT.tooManyChosen(SSH_KEYS.perUser)).optional(),
    userData: userDataSchema.optional(),
  })
  .strict();

const base = { tag: 'Virtual Machines', access: 'user' } as const;
const P = '/virtualMachines';

/**
 * The VM actions that are one payload-less operation on one VM: the server registers them in one loop,
 * their permission, allowed statuses and answer come from VM_ACTIONS (vm-lifecycle.ts). A new such action
 * is a row there and a route here.
 */
export const vmActionRoutes = {
  delete: route({
    ...base,
    method: 'DELETE',
    path: `${P}/delete/:id`,
    summary: 'Delete a VM',
    params: idParamsSchema,
    // Issue 24 item 2: keepBackups=true keeps the VM's backups (restorable as a new VM); absent or false deletes them.
    query: z.object({
      keepBackups: z.enum(['true', 'false'], { error: 'keepBackups must be true or false' }).optional(),
    }),
    data: z.null(),
  }),
  start: route({
    ...base,
    method: 'POST',
    path: `${P}/start/:id`,
    summary: 'Start a VM',
    params: idParamsSchema,
    data: z.null(),
  }),
  stop: route({
    ...base,
    method: 'POST',
    path: `${P}/stop/:id`,
    summary: 'Stop a VM',
    params: idParamsSchema,
    data: z.null(),
  }),
  reset: route({
    ...base,
    method: 'POST',
    path: `${P}/reset/:id`,
    summary: 'Hard-reset a VM',
    params: idParamsSchema,
    data: z.null(),
  }),
  forceStop: route({
    ...base,
    method: 'POST',
    path: `${P}/forceStop/:id`,
    summary: 'Power a VM off at once, without asking the guest',
    params: idParamsSchema,
    data: z.null(),
  }),
} as const;

export const vmRoutes = {
  create: route({
    ...base,
    method: 'POST',
    path: `${P}/create`,
    summary: 'Create 1–10 VMs',
    body: createVmBodySchema,
    data: z.object({ ids: z.array(z.number().int()) }),
  }),
  list: route({
    ...base,
    method: 'GET',
    path: `${P}/list`,
    summary: 'VMs the caller may see',
    query: z.object({
      ...pageQueryFields,
      sortColumn: z.enum(VM_SORT_COLUMNS).optional(),
      sortDescending: z.enum(['true', 'false']).optional(),
      ...vmListFilterFields,
    }),
    data: pagedSchema(vmListItemSchema),
  }),
  listFacets: route({
    ...base,
    method: 'GET',
    path: `${P}/listFacets`,
    summary: "The regions and teams of the VMs the caller sees (the list's filters)",
    data: vmListFacetsSchema,
  }),
  bulk: route({
    ...base,
    method: 'POST',
    path: `${P}/bulk`,
    summary: `Start, stop or delete up to ${VM_BULK_LIMIT} VMs: chosen ids or all matching filters, each VM's outcome`,
    body: vmBulkBodySchema,
    data: vmBulkResultSchema,
  }),
  listCountries: route({
    ...base,
    method: 'GET',
    path: `${P}/listCountries`,
    summary: 'Countries with at least one region',
    data: z.array(namedSchema),
  }),
  listConfigurations: route({
    ...base,
    method: 'GET',
    path: `${P}/listConfigurations`,
    summary: 'The VM sizes',
    data: z.array(configurationSchema),
  }),
  listRegions: route({
    ...base,
    method: 'GET',
    path: `${P}/listRegions/:id`,
    summary: 'Regions of a country',
    params: idParamsSchema,
    data: z.array(namedSchema),
  }),
  listCities: route({
    ...base,
    method: 'GET',
    path: `${P}/listCities/:id`,
    summary: 'Cities of a region',
    params: idParamsSchema,
    data: z.array(namedSchema),
  }),
  listImages: route({
    ...base,
    method: 'GET',
    path: `${P}/listImages/:id`,
    summary: 'Images offered in a region',
    params: idParamsSchema,
    data: z.array(z.string()),
  }),
  listImageDetails: route({
    ...base,
    method: 'GET',
    path: `${P}/listImageDetails/:id`,
    summary: "listImages' images of a region with what each is: OS family, version, default user, minimum disk",
    params: idParamsSchema,
    data: z.array(imageDetailsSchema),
  }),
  getRegion: route({
    ...base,
    method: 'GET',
    path: `${P}/getRegion/:id`,
    summary: 'A region with its country',
    params: idParamsSchema,
    data: z.object({ id: z.number().int(), name: z.string(), countryId: z.number().int(), country: z.string() }),
  }),
  listProviders: route({
    ...base,
    method: 'GET',
    path: `${P}/listProviders/:regionId`,
    summary: 'Providers that can run a configuration in a region',
    params: z.object({ regionId: idSchema }),
    query: z.object({ configurationId: idSchema.optional() }),
    data: z.array(namedSchema),
  }),
  fetchConfigurations: route({
    ...base,
    method: 'GET',
    path: `${P}/fetchVirtualMachineConfigurations/:regionId`,
    summary: 'Configurations offered in a region (for an image), with their prices and whether each can be placed now',
    params: z.object({ regionId: idSchema }),
    query: z.object({ image: z.string().max(100).regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters).optional() }),
    data: z.array(regionConfigurationSchema),
  }),
  details: route({
    ...base,
    method: 'GET',
    path: `${P}/details/:id`,
    summary: 'One VM with status and usage',
    params: idParamsSchema,
    data: vmDetailsSchema,
  }),
  metrics: route({
    ...base,
    method: 'GET',
    path: `${P}/metrics/:id`,
    summary: "A VM's CPU, memory, disk and network history for its graphs, and this month's traffic",
    params: idParamsSchema,
    query: z.object({ range: z.enum(metricsRangeKeys).default('1h') }),
    data: vmMetricsSchema,
  }),
  getAccess: route({
    ...base,
    method: 'GET',
    path: `${P}/getAccess/:id`,
    summary: 'How to reach a VM over SSH',
    params: idParamsSchema,
    data: z.object({
      username: z.string(),
      host: z.string().nullable(),
      port: z.number().int(),
      publicKey: z.string(),
    }),
  }),
  getAccessKey: route({
    ...base,
    method: 'GET',
    path: `${P}/getAccessKey/:id`,
    summary: "The VM's SSH private key (PEM)",
    revealsSecret: true,
    params: idParamsSchema,
    data: z.object({ privateKey: z.string() }),
  }),
  getPassword: route({
    ...base,
    method: 'GET',
    path: `${P}/getPassword/:id`,
    summary: "The VM's SSH password",
    revealsSecret: true,
    params: idParamsSchema,
    data: z.object({ sshPassword: z.string() }),
  }),
  getConsole: route({
    ...base,
    method: 'GET',
    path: `${P}/getConsole/:id`,
    summary: 'A short-lived console URL',
    // The console page and its websockets belong to the browser session that asked (docs/api-tokens.md).
    sessionOnly: true,
    params: idParamsSchema,
    data: z.object({
      consoleUrl: z.string().min(1),
      // Which live consoles the machine has: the portal offers only these (a simulated machine has no display,
      // so no graphical console; issue 25).
      consoles: z.array(z.enum(['vnc', 'serial'])),
    }),
  }),
  changeConfiguration: route({
    ...base,
    method: 'PUT',
    path: `${P}/changeConfiguration`,
    summary: 'Upgrade a VM to a configuration with more CPU',
    body: z.object({ id: idSchema, configurationId: idSchema }).strict(),
    data: z.null(),
  }),
  rebuild: route({
    ...base,
    method: 'POST',
    path: `${P}/rebuild/:id`,
    summary: 'Reinstall a VM from an image of its region, with chosen keys and user-data (its disk is erased)',
    params: idParamsSchema,
    body: rebuildVmBodySchema,
    data: z.null(),
  }),
  ...vmActionRoutes,
  edit: route({
    ...base,
    method: 'PUT',
    path: `${P}/edit/:id`,
    summary: 'Rename a VM',
    params: idParamsSchema,
    body: z.object({ name: vmNameSchema }).strict(),
    data: z.null(),
  }),
  dashboard: route({
    ...base,
    method: 'GET',
    path: `${P}/GetDashboardData`,
    summary: 'VMs per size this month, last month and this year',
    data: dashboardDataSchema,
  }),
  dashboardSummary: route({
    ...base,
    method: 'GET',
    path: `${P}/dashboardSummary`,
    summary: "The caller's machines by status and this month's spend so far (billing's rule)",
    data: dashboardSummarySchema,
  }),
  monthToDate: route({
    ...base,
    method: 'GET',
    path: `${P}/monthToDate/:id`,
    summary: "A VM's cost this month so far (billing's rule) and its network traffic this month",
    params: idParamsSchema,
    data: vmMonthToDateSchema,
  }),
} as const;
