/**
 * Forgot-password for a suspended company's user (issue 21, point 6): the answer is the neutral one an unknown
 * address gets, and nothing is mailed (nor queued) to them. A user of an active company, asked for just after,
 * gets the link: the mail worker ran, and skipped only the suspended one.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_MESSAGES } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { companies, mailOutbox } from '../../db/schema.ts';
import { createOtherCompany, createUser } from '../../../test/fixtures.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';

let t: TestApp;
const SUSPENDED = 'admin@suspended-reset.example';
const ACTIVE = 'active@suspended-reset.example';

beforeAll(async () => {
  t = await createTestApp();
  const suspended = await createOtherCompany(t, SUSPENDED);
  await t.db.update(companies).set({ suspendedAt: new Date() }).where(eq(companies.id, suspended.companyId));
  const active = await createOtherCompany(t, 'admin@active-reset.example');
  await createUser(t, active.companyId, ACTIVE);
});
afterAll(async () => {
  await t.close();
});

const forgot = (email: string) => t.client().call(routes.password.forgotPassword, { body: { email } });

it("a suspended company's user gets the neutral answer and no reset mail", async () => {
  const unknown = await forgot('nobody@suspended-reset.example');
  const suspended = await forgot(SUSPENDED);
  expect([suspended.status, suspended.message]).toEqual([unknown.status, unknown.message]);
  expect(suspended.message).toBe(API_MESSAGES.forgotPasswordAccepted);

  expect((await forgot(ACTIVE)).status).toBe(200);
  await t.smtp.waitFor(ACTIVE, (m) => /reset/i.test(m.subject));
  expect(t.smtp.messages.filter((m) => m.to.includes(SUSPENDED))).toEqual([]);
  expect(await t.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, SUSPENDED))).toEqual([]);
});
