/** Environment, validated once at start-up; a bad or missing variable is named in the error. */
import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_API_BASE_PATH } from '@portal/contract/constants';
import { API_MESSAGES } from '@portal/contract/messages';
import { HOST_PATTERN } from '@portal/contract/reseller-branding';
import { newPasswordSchema } from '@portal/contract/validation';
import { isGuessablePassword } from './lib/password-strength.ts';
import { parseCidr } from './lib/egress.ts';

const basePath = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((p) => {
      const withLead = p.startsWith('/') ? p : `/${p}`;
      return withLead.length > 1 ? withLead.replace(/\/+$/, '') : '/';
    });

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Names proxy-addr (Fastify's trustProxy) knows for address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Which X-Forwarded-For hops to believe: `false` (the default: the socket address is the client),
 * `true` (any proxy), a hop count (the nearest n proxies), or a comma list of proxy addresses, CIDR
 * ranges and the names loopback, linklocal, uniquelocal. `true` and a hop count are only safe when
 * nothing can reach the server except through those proxies; a list checks the proxy's address.
 */
export const trustProxySchema = z
  .string()
  .trim()
  .transform((raw, ctx): boolean | number | string[] => {
    const v = raw.toLowerCase();
    if (v === 'true') return true;
    if (v === 'false' || v === '' || v === '0') return false;
    if (/^\d+$/.test(v)) {
      const hops = Number(v);
      if (hops <= 100) return hops;
      ctx.addIssue({ code: 'custom', message: 'TRUST_PROXY hop count must be at most 100' });
      return z.NEVER;
    }
    const entries = raw
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e.length > 0);
    const bad = entries.filter((e) => !isAddressOrCidr(e));
    if (entries.length === 0 || bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `TRUST_PROXY must be true, false, a hop count, or a comma list of addresses/CIDR ranges (bad: ${bad.join(', ') || raw})`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** A comma list setting whose entries must each pass `valid`; the error names the setting and the bad entries. */
function commaList(
  name: string,
  valid: (entry: string) => boolean,
  expected: string,
  opts: { lowerCase?: boolean } = {},
) {
  return z
    .string()
    .default('')
    .transform((raw, ctx) => {
      const entries = raw
        .split(',')
        .map((e) => (opts.lowerCase ? e.trim().toLowerCase() : e.trim()))
        .filter((e) => e !== '');
      const bad = entries.filter((e) => !valid(e));
      if (bad.length === 0) return entries;
      ctx.addIssue({ code: 'custom', message: `${name}: each entry must be ${expected} (bad: ${bad.join(', ')})` });
      return z.NEVER;
    });
}

/** `ip`, `ipv4:port` or `[ipv6]:port`, as node:dns setServers takes them. */
function isDnsServer(entry: string): boolean {
  const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry) ?? /^([^:]+):(\d{1,5})$/.exec(entry);
  const [address, port] = m ? [m[1]!, m[2]] : [entry, undefined];
  if (isIP(address) === 0) return false;
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  BASE_PATH: basePath('/'),
  API_BASE_PATH: basePath(DEFAULT_API_BASE_PATH),
  /** Public URL of the portal, used in mailed links; defaults to http://localhost:PORT + BASE_PATH. */
  PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('./data'),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().optional(),
  SESSION_SECRET: z.string().min(32, 'SESSION_SECRET must be at least 32 characters').optional(),
  /** Marks the session cookie Secure; on by default when PUBLIC_URL is https. */
  COOKIE_SECURE: bool.optional(),
  /**
   * First start of an empty database: true (default) seeds the demo tenant (distributor, reseller,
   * company, owner, demo teams) and a simulated VM catalog; false starts empty for production, where the
   * operator imports tenants and invites each company's first administrator (docs/operations.md).
   */
  SEED_DEMO: bool.default(true),
  SEED_ADMIN_EMAIL: z.email().optional(),
  /** The owner's first password: held to the same rules as any new password. */
  SEED_ADMIN_PASSWORD: newPasswordSchema
    .refine((p) => !isGuessablePassword(p), API_MESSAGES.passwordTooCommon)
    .optional(),
  VM_PROVIDER: z.enum(['simulator', 'libvirt']).default('simulator'),
  /** With VM_PROVIDER=libvirt: the libvirt URI of the demo host the first start registers (this machine's libvirtd). */
  LIBVIRT_DEMO_URI: z
    .string()
    .regex(/^[a-z0-9+]+:\/\/\S*$/, 'a libvirt URI such as qemu:///system')
    .default('qemu:///system'),
  /** How long one simulated provider action takes. */
  SIMULATOR_STEP_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
  /** How often the operation runner looks for due work (it is also woken on each new operation). */
  VM_RUNNER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** How long a runner's claim on an operation holds unrenewed: a dead instance's work is retried after it. */
  VM_OPERATION_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(15_000),
  /**
   * How many backup takes run at once on one host (or on a provider without hosts); more wait their turn, queued
   * (docs/decisions/0025-backup-concurrency.md).
   */
  BACKUP_CONCURRENCY_PER_HOST: z.coerce.number().int().min(1).max(64).default(2),
  /** How often stored VM status is compared with the providers' (and suspended companies' running VMs stopped). */
  VM_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** How often each registered libvirt host is asked whether it answers (hosts and placement). */
  VM_HOST_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  /** How often draining hosts are looked at for their next machine to move off (docs/draining.md). */
  VM_DRAIN_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  /** How often due backup schedules are looked for: a slot's take starts within this of its hour (decision 0023). */
  BACKUP_SCHEDULE_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  /**
   * Backup verification (issue 24 item 3; docs/decisions/0024-backup-verification.md): `after-take` proves each
   * backup restorable once its take is complete (a throwaway machine booted from it in isolation); `off`: never.
   */
  BACKUP_VERIFY: z.enum(['after-take', 'off']).default('after-take'),
  /** How often the verifier looks for backups to verify (one at a time per API instance). */
  BACKUP_VERIFY_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(10_000),
  /** How long one verification may run (checksum read-back and the throwaway boot) before another instance retries it. */
  BACKUP_VERIFY_LEASE_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  /**
   * Re-verification on the operator's schedule (docs/decisions/0026-verify-now-and-reverification.md): a ready backup
   * whose last successful verification is older than this many days is verified again (0: never). A failed one is not
   * (its team was told; "Verify now" asks again); a suspended company's backups are skipped.
   */
  BACKUP_REVERIFY_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  /** At most this many backups queued for re-verification at once (each boots a throwaway machine). */
  BACKUP_REVERIFY_BATCH: z.coerce.number().int().min(1).max(1000).default(5),
  /** How often a live VM status stream checks that its session still stands. */
  VM_STREAM_SESSION_CHECK_MS: z.coerce.number().int().min(50).max(300_000).default(15_000),
  /** Keep resolved sessions in memory, invalidated through PostgreSQL's auth_changes channel; on by default, off
   *  while that listener or the pool cannot reach PostgreSQL (docs/decisions/0008-api-performance.md). */
  SESSION_CACHE: bool.default(true),
  /** Check every answer against the contract's zod schema (default: under Vitest and NODE_ENV test/development). */
  RESPONSE_CHECK: bool.optional(),
  /** Sign-in, code and forgot-password attempts allowed per minute per client. */
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** Which proxies' X-Forwarded-For to believe for the client address (rate limits, audit); off by default. */
  TRUST_PROXY: trustProxySchema.default(false),
  /**
   * Take the request's host from X-Forwarded-Host (from a proxy TRUST_PROXY trusts) instead of Host: off by
   * default, since the host picks the brand and the reseller a sign-in is checked against (issue 21).
   */
  TRUST_FORWARDED_HOST: bool.default(false),
  /** The platform's own host names besides PUBLIC_URL's (comma list): no reseller may claim them as a domain. */
  PLATFORM_HOSTS: commaList('PLATFORM_HOSTS', (e) => HOST_PATTERN.test(e), 'a host name such as portal.example.com', {
    lowerCase: true,
  }),
  /** DNS servers (comma list of ip or ip:port, [ipv6]:port) that check custom domains' TXT records; default: the system's. */
  DNS_RESOLVER: commaList(
    'DNS_RESOLVER',
    isDnsServer,
    'an address such as 192.0.2.53, 192.0.2.53:5353 or [2001:db8::53]:53',
  ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Log every request and response ("incoming request", "request completed"). Off by default: at one JSON
   * line each they buried the printed mail (the sign-in code) in `npm start`'s console (issue 25).
   */
  LOG_REQUESTS: bool.default(false),
  /** Serve {API_BASE_PATH}/metrics without the operator token (for a scraper on a private network). */
  METRICS_PUBLIC: bool.default(false),
  /** Serve the portal build's source maps (*.map); off so a public portal does not publish its source. */
  SERVE_SOURCE_MAPS: bool.default(false),
  /** Billing webhooks may use plain http:// URLs (a local receiver in development and tests); otherwise https only. */
  BILLING_WEBHOOK_ALLOW_HTTP: bool.default(false),
  /**
   * Single sign-on issuers may be plain http:// URLs (a local identity provider in development and tests); otherwise
   * https only. Their address still passes the egress rule (EGRESS_ALLOW for loopback; docs/single-sign-on.md).
   */
  OIDC_ALLOW_HTTP: bool.default(false),
  /**
   * CIDR ranges (comma list) that connections made on a tenant's behalf (libvirt hosts, the billing webhook)
   * may reach besides public unicast addresses, e.g. a reseller's management network (lib/egress.ts).
   */
  EGRESS_ALLOW: z
    .string()
    .default('')
    .transform((raw, ctx) => {
      const entries = raw
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '');
      for (const e of entries) {
        try {
          parseCidr(e);
        } catch {
          ctx.addIssue({ code: 'custom', message: `EGRESS_ALLOW: not an address or CIDR range: ${e}` });
          return z.NEVER;
        }
      }
      return entries;
    }),
  /**
   * Resellers may register libvirt hosts over plain qemu+tcp (unencrypted, no authentication: only on a network the
   * operator trusts); off: qemu+ssh and qemu+tls only (providers/libvirt/host-uri.ts).
   */
  RESELLER_HOST_TCP: bool.default(false),
  /** How often the billing webhook worker pushes closed months and due deliveries. */
  BILLING_WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(15_000),
  /** Allow POST /users/register (off: accounts come by invitation). */
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(defined);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/**
 * TRUST_PROXY as Fastify's `trustProxy` option. Fastify 5 no longer treats a number as a hop count
 * (it trusts nothing then), so a hop count becomes the equivalent function: trust the nearest n hops.
 */
export function trustProxyOption(
  value: Config['TRUST_PROXY'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  return (_address, hop) => hop < value;
}

/** The public origin + base path that mailed links point at. */
export function publicUrl(config: Config): string {
  const base = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
  const root = base.replace(/\/+$/, '');
  return config.BASE_PATH === '/' ? root : `${root}${config.BASE_PATH}`;
}
