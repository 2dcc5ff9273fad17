/**
 * First run: reference data always (roles, catalog), and on an empty database a demo distributor,
 * reseller (with branding), company and one owner (plus demo teams when asked). Prints where to sign in.
 */
import { sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { companies, distributors, resellers, roles, users } from '../db/schema.ts';
import { cryptoRandom } from '../lib/crypto.ts';
import { hashPassword } from '../lib/passwords.ts';
import { BUILT_IN_ROLES } from './roles.ts';
import { seedCatalog } from './catalog.ts';
import { seedDemoTeams } from './demo-teams.ts';
import { seedStaffOwner } from '../modules/reseller-companies/staff.ts';

export const DEMO = {
  distributor: 'Irontech Cloud',
  reseller: 'Northwind Hosting',
  resellerEmail: 'no-reply@northwind.example',
  supportEmail: 'support@northwind.example',
  company: 'Demo Company',
  adminEmail: 'admin@example.com',
  /** The demo reseller's owner staff member (issue 13): signs in to the reseller area. */
  staffEmail: 'owner@northwind.example',
} as const;

const svg = (body: string, w = 160, h = 40) =>
  `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`).toString('base64')}`;

export const DEMO_LOGO = svg(
  '<rect width="40" height="40" rx="8" fill="#2563eb"/><path d="M10 28V12l10 10 10-10v16" stroke="#fff" stroke-width="3" fill="none"/><text x="48" y="26" font-family="sans-serif" font-size="15" font-weight="700" fill="#1e3a8a">Northwind</text>',
);
export const DEMO_TAB_LOGO = svg(
  '<rect width="32" height="32" rx="6" fill="#2563eb"/><path d="M8 24V8l8 8 8-8v16" stroke="#fff" stroke-width="3" fill="none"/>',
  32,
  32,
);

/**
 * Roles always; the VM catalog too, unless this is a production start (`demo: false`, SEED_DEMO=false)
 * whose providers would only be simulated ones.
 */
export async function seedReferenceData(
  db: Db,
  opts: { driver?: Config['VM_PROVIDER']; demo?: boolean; libvirtUri?: string } = {},
): Promise<void> {
  for (const role of BUILT_IN_ROLES) {
    await db
      .insert(roles)
      .values(role)
      .onConflictDoUpdate({ target: roles.id, set: { name: role.name, info: role.info } });
  }
  const simulated = (opts.driver ?? 'simulator') === 'simulator';
  if (opts.demo !== false || !simulated)
    await seedCatalog(db, opts.driver, opts.libvirtUri ? { libvirtUri: opts.libvirtUri } : {});
}

export interface SeededAdmin {
  email: string;
  /** Present only when the password was generated here (so it can be printed once). */
  password: string;
  generated: boolean;
}

/**
 * Seeds the demo tenant when there is no distributor yet; returns the owner's sign-in, else null.
 * `demoData` adds demo teams and colleagues (the server's first run; tests leave it off).
 */
export async function seedDemoTenant(
  db: Db,
  opts: { adminEmail?: string; adminPassword?: string; demoData?: boolean },
): Promise<SeededAdmin | null> {
  const [{ count } = { count: 0 }] = await db.select({ count: sql<number>`count(*)::int` }).from(distributors);
  if (count > 0) return null;
  const email = (opts.adminEmail ?? DEMO.adminEmail).toLowerCase();
  const generated = !opts.adminPassword;
  // Generated passwords satisfy the password rules: letters, digits and a special character.
  const password = opts.adminPassword ?? `Demo-${cryptoRandom.token(9)}9a!`;
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    const [distributor] = await tx
      .insert(distributors)
      .values({
        name: DEMO.distributor,
        externalId: 'demo-distributor',
        email: DEMO.resellerEmail,
        supportEmail: DEMO.supportEmail,
      })
      .returning();
    const [reseller] = await tx
      .insert(resellers)
      .values({
        distributorId: distributor!.id,
        externalId: 'demo-reseller',
        name: DEMO.reseller,
        email: DEMO.resellerEmail,
        supportEmail: DEMO.supportEmail,
        logoUrl: DEMO_LOGO,
        tabLogoUrl: DEMO_TAB_LOGO,
      })
      .returning();
    const [company] = await tx
      .insert(companies)
      .values({ resellerId: reseller!.id, externalId: 'demo-company', name: DEMO.company })
      .returning();
    const [admin] = await tx
      .insert(users)
      .values({
        companyId: company!.id,
        email,
        firstName: 'Ada',
        lastName: 'Admin',
        passwordHash,
        isCompanyAdmin: true,
        emailConfirmedAt: new Date(),
      })
      .returning();
    if (opts.demoData) await seedDemoTeams(tx, { companyId: company!.id, adminUserId: admin!.id });
  });
  return { email, password, generated };
}

/**
 * The demo reseller's owner staff member (issue 13), on the first start only (right after seedDemoTenant made the
 * demo reseller): signs in at the same screens and lands in the reseller area. Returns the sign-in, else null.
 */
export async function seedDemoStaff(db: Db, opts: { password?: string } = {}): Promise<SeededAdmin | null> {
  const [reseller] = await db
    .select({ id: resellers.id })
    .from(resellers)
    .where(sql`${resellers.externalId} = 'demo-reseller'`);
  if (!reseller) return null;
  const generated = !opts.password;
  const password = opts.password ?? `Staff-${cryptoRandom.token(9)}9a!`;
  const made = await seedStaffOwner(db, {
    resellerId: reseller.id,
    email: DEMO.staffEmail,
    passwordHash: await hashPassword(password),
  });
  return made ? { email: DEMO.staffEmail, password, generated } : null;
}
