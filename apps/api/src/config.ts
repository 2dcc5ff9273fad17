/** Environment, validated once at start-up; a bad or missing variable is named in the error. */
import { z } from 'zod';
import { DEFAULT_API_BASE_PATH } from '@portal/contract/constants';

const basePath = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((p) => {
      const withLead = p.startsWith('/') ? p : `/${p}`;
      return withLead.length > 1 ? withLead.replace(/\/+$/, '') : '/';
    });

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

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
  SEED_ADMIN_EMAIL: z.email().optional(),
  SEED_ADMIN_PASSWORD: z.string().optional(),
  VM_PROVIDER: z.string().default('simulator'),
  /** How long one simulated provider action takes. */
  SIMULATOR_STEP_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
  /** How often the operation runner looks for due work (it is also woken on each new operation). */
  VM_RUNNER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** How often stored VM status is compared with the providers'. */
  VM_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** Sign-in, code and forgot-password attempts allowed per minute per client. */
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Serve {API_BASE_PATH}/metrics without the operator token (for a scraper on a private network). */
  METRICS_PUBLIC: bool.default(false),
  /** Allow POST /users/register (off: accounts come by invitation). */
  ALLOW_SELF_REGISTRATION: bool.default(false),
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

/** The public origin + base path that mailed links point at. */
export function publicUrl(config: Config): string {
  const base = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
  const root = base.replace(/\/+$/, '');
  return config.BASE_PATH === '/' ? root : `${root}${config.BASE_PATH}`;
}
