/**
 * The benchmark's data: the demo tenant (its admin is the caller), then VMs, users and teams spread over
 * 100 companies, vacuumed and analysed as autovacuum would leave a live table. Done once per data directory:
 * a `bench_seed` row records the size it was seeded with.
 */
import pg from 'pg';
import { openDatabase } from '../../apps/api/src/db/client.ts';
import { seedDemoTenant, seedReferenceData } from '../../apps/api/src/seed/seed.ts';

export interface SeedSize {
  vms: number;
  users: number;
  teams: number;
  companies: number;
}

export const BENCH_ADMIN = { email: 'admin@example.com', password: 'Bench-Password-1!' };

/** Seeds unless already seeded; returns the seconds spent (0 when the data was already there). */
export async function seedOnce(url: string, size: SeedSize): Promise<number> {
  // Opening the database runs the migrations (also those added since the data was seeded).
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      'create table if not exists bench_seed (size text primary key, seeded_at timestamptz not null default now())',
    );
    const key = JSON.stringify(size);
    if ((await client.query('select 1 from bench_seed where size = $1', [key])).rowCount) return 0;
    const t0 = Date.now();
    await seedReferenceData(database.db);
    await seedDemoTenant(database.db, { adminEmail: BENCH_ADMIN.email, adminPassword: BENCH_ADMIN.password });
    const { companies: c, users: u, teams: t, vms: v } = size;
    await client.query(
      `insert into companies (reseller_id, name) select 1, 'Company ' || g from generate_series(2, ${c}) g`,
    );
    await client.query(
      `insert into users (company_id, email, first_name, last_name) select 1 + (g % ${c}), 'user' || g || '@bench.example', 'User', 'N' || g from generate_series(1, ${u}) g`,
    );
    await client.query(
      `insert into teams (company_id, name) select 1 + (g % ${c}), 'Team ' || g from generate_series(1, ${t}) g`,
    );
    await client.query(
      `insert into team_members (team_id, user_id, role_id) select t.id, u.id, 2 from teams t join users u on u.company_id = t.company_id and u.id % 50 = t.id % 50 where t.id % 5 = 0 limit 200000`,
    );
    await client.query(`
      insert into virtual_machines (company_id, team_id, name, status, configuration_id, region_id, image, provider_id, created_at)
      select 1 + (g % ${c}), null, 'vm-' || g, (array['Running','Stopped','Error'])[1 + g % 3]::vm_status, 1 + g % 6, 1, 'Debian 12', 1, now() - (g % 300) * interval '1 day'
      from generate_series(1, ${v}) g`);
    await client.query('vacuum analyze');
    await client.query('insert into bench_seed (size) values ($1)', [key]);
    return (Date.now() - t0) / 1000;
  } finally {
    await client.end();
    await database.close();
  }
}
