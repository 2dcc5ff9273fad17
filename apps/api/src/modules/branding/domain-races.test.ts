/**
 * "Make primary" under concurrency (issue 21, "Low"): each call cleared the other domains' flag, then set its own,
 * so two calls on one reseller locked each other's rows in opposite order and one died in a deadlock (a 500). The
 * domain writes now take the reseller's row first. PostgreSQL only (PGlite has one connection: nothing overlaps).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { resellerDomains } from '../../db/schema.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { ensureStaffCompany } from '../../../test/module-parts.ts';

const r = routes.resellerBranding;
const HOSTS = ['a.race.example.test', 'b.race.example.test', 'c.race.example.test', 'd.race.example.test'];
let t: TestApp;
let owner: TestClient;
const RESELLER = 1; // the demo reseller

beforeAll(async () => {
  t = await createTestApp();
  await createUser(t, (await ensureStaffCompany(t.db, RESELLER))!, 'owner@race.example', { staffRole: 'owner' });
  owner = await signIn(t, 'owner@race.example', PASSWORD);
  await t.db
    .insert(resellerDomains)
    .values(HOSTS.map((host, i) => ({ host, resellerId: RESELLER, isPrimary: i === 0, verifiedAt: new Date() })));
});
afterAll(async () => t?.close());

const primaries = async () =>
  (
    await t.db
      .select({ host: resellerDomains.host })
      .from(resellerDomains)
      .where(and(eq(resellerDomains.resellerId, RESELLER), eq(resellerDomains.isPrimary, true)))
  ).map((d) => d.host);

describe('make primary at once', () => {
  it('twelve concurrent calls over four domains, five rounds: every one answers 200, one primary after each', async () => {
    for (let round = 0; round < 5; round++) {
      const calls = Array.from({ length: 12 }, (_, i) => HOSTS[(i + round) % HOSTS.length]!);
      const answers = await Promise.all(
        calls.map((host) => owner.call(r.setPrimaryDomain, { params: { host }, body: {} })),
      );
      expect(answers.map((a) => a.status)).toEqual(calls.map(() => 200));
      expect(await primaries()).toHaveLength(1);
    }
  });

  it('removing the primary while others are made primary leaves exactly one primary', async () => {
    const [current] = await primaries();
    const others = HOSTS.filter((h) => h !== current);
    const answers = await Promise.all([
      owner.call(r.removeDomain, { params: { host: current! } }),
      ...others.map((host) => owner.call(r.setPrimaryDomain, { params: { host }, body: {} })),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, ...others.map(() => 200)]);
    expect(others).toContain((await primaries())[0]);
    expect(await primaries()).toHaveLength(1);
  });
});
