/**
 * The limit: what the portal's calls cost with none of our layers. A minimal Fastify + `pg` server (same
 * pool size as the portal) that runs the portal's own SQL — the session lookup, then the call's queries,
 * as named prepared statements — and answers the same JSON with JSON.stringify. No zod, no drizzle, no
 * helmet, no access layer. Prints `READY <port>`.
 */
import { createHmac } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { DETAILS, LIST, SESSION, USER } from '../lib/limit-sql.ts';

const secret = process.env.BENCH_SECRET!;
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.BENCH_POOL_SIZE ?? 10),
});

interface SessionRow {
  state: string;
  id: number;
  company_id: number;
  is_company_admin: boolean;
}

// What a company admin may do on any of the company's VMs (the bench signs in as one); a member's would need
// the team's role, which the portal reads with the VM.
const ADMIN_VM_PERMISSIONS = ['vm.view', 'vm.create', 'vm.operate', 'vm.modify', 'vm.delete'];

function sessionToken(cookie: string | undefined): string | undefined {
  for (const part of (cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === 'sid') return v;
  }
  return undefined;
}

async function session(cookie: string | undefined): Promise<SessionRow | undefined> {
  const token = sessionToken(cookie);
  if (!token) return undefined;
  const id = createHmac('sha256', secret).update(`session:${token}`).digest('hex');
  const { rows } = await pool.query<SessionRow>({ ...SESSION, values: [id, new Date()] });
  return rows[0]?.state === 'authenticated' ? rows[0] : undefined;
}

const app = Fastify();
app.get('/list', async (request, reply) => {
  const s = await session(request.headers.cookie);
  if (!s) return reply.status(401).send({ message: 'Unauthorized', data: null });
  const q = request.query as { page?: string; rowsPerPage?: string; search?: string };
  const rowsPerPage = Number(q.rowsPerPage ?? 10);
  const offset = (Number(q.page ?? 1) - 1) * rowsPerPage;
  const { rows } = await pool.query({ ...LIST, values: [s.company_id, `%${q.search ?? ''}%`, rowsPerPage, offset] });
  const total = rows.length ? Number(rows[0].total) : 0;
  return {
    message: 'OK',
    data: {
      data: rows.map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        configuration: r.configuration,
        cpu: r.cpu,
        ram: r.ram,
        createdAt: (r.created_at as Date).toISOString(),
        regionId: r.region_id,
        teamId: r.team_id,
      })),
      totalPages: Math.ceil(total / rowsPerPage),
    },
  };
});
app.get('/auth/check', async (request, reply) => {
  const s = await session(request.headers.cookie);
  if (!s) return reply.status(401).send({ message: 'Unauthorized', data: null });
  const { rows } = await pool.query({ ...USER, values: [s.id] });
  const u = rows[0];
  return {
    message: 'OK',
    data: {
      authed: true,
      user: {
        id: u.id,
        email: u.email,
        firstName: u.first_name,
        lastName: u.last_name,
        createdAt: (u.created_at as Date).toISOString(),
        forcePasswordReset: u.force_password_reset,
        resetKey: null,
        resellerName: u.reseller_name,
        resellerEmail: u.reseller_email,
        logoUrl: u.logo_url,
        tabLogoUrl: u.tab_logo_url,
        companyName: u.company_name,
        isCompanyAdmin: u.is_company_admin,
        staffRole: u.staff_role,
      },
    },
  };
});
app.get('/vm/:id', async (request, reply) => {
  const s = await session(request.headers.cookie);
  if (!s) return reply.status(401).send({ message: 'Unauthorized', data: null });
  const { rows } = await pool.query({
    ...DETAILS,
    values: [Number((request.params as { id: string }).id), s.company_id],
  });
  const vm = rows[0];
  if (!vm) return reply.status(404).send({ message: 'Virtual machine not found', data: null });
  const running = vm.status === 'Running' && vm.provider_ref !== null;
  return {
    message: 'OK',
    data: {
      virtualMachine: {
        id: vm.id,
        name: vm.name,
        configuration: vm.configuration,
        configurationId: vm.configuration_id,
        country: vm.country,
        region: vm.region,
        image: vm.image,
        createdAt: (vm.created_at as Date).toISOString(),
        updatedAt: (vm.updated_at as Date).toISOString(),
        cpu: vm.cpu,
        ram: vm.ram,
        disk: vm.disk,
        teamId: vm.team_id,
        network: { publicIp: vm.public_ip, privateIp: vm.private_ip },
      },
      status: vm.status,
      consoleAvailable: running,
      usage: { cpuUsage: 0, ramUsage: 0 },
      errorReason: vm.error_reason,
      pendingOperation: vm.pending_operation,
      permissions: s.is_company_admin ? ADMIN_VM_PERMISSIONS : [],
    },
  };
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
