/**
 * An import row whose write fails in the database for any reason is a rejected row of the report:
 * earlier and later rows still go in, the operator always gets the report (never a 500), the reason is
 * generic and the cause is logged server-side without the query's parameters. On PGlite and PostgreSQL.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { distributors } from '../../db/schema.ts';
import { createAudit } from '../../lib/audit.ts';
import { LoggedQueryError } from '../../lib/errors.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import {
  createOperatorTokens,
  createBrandWriter,
  createResellerHosts,
  createSessionCache,
} from '../../../test/module-parts.ts';
import { createImportsService, ROW_FAILED } from './imports.service.ts';
import { systemClock } from '../../lib/clock.ts';

const SECRET = 'secret-mailbox-5512';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  token = (
    await createOperatorTokens({ db: t.db, secret: 'test-secret-that-is-long-enough-0123456789' }).create('imports')
  ).token;
  // The database refuses some rows the contract accepts: a stand-in for races and constraints the
  // service does not check first.
  await t.db.execute(
    sql.raw(`
    create function refuse_test_rows() returns trigger language plpgsql as $$
    begin
      if new.name = 'Poison' then raise exception 'poisoned row'; end if;
      if new.name = 'Racer' then raise exception 'duplicate key value violates unique constraint "distributors_external_id_unique"' using errcode = '23505'; end if;
      return new;
    end $$`),
  );
  await t.db.execute(
    sql.raw(
      'create trigger refuse_test_rows before insert or update on distributors for each row execute function refuse_test_rows()',
    ),
  );
});
afterAll(async () => {
  await t.close();
});

const importDistributors = (rows: Record<string, unknown>[]) =>
  t.client().call(routes.platform.importDistributors, {
    body: { rows },
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });

describe('a row the database refuses', () => {
  it('is rejected in the report; the rows before and after it are written', async () => {
    const res = await importDistributors([
      { externalId: 'imp-1', name: 'First' },
      { externalId: 'imp-2', name: 'Poison', email: `${SECRET}@example.com` },
      { externalId: 'imp-3', name: 'Third' },
      { externalId: 'imp-4', name: 'Racer' },
    ]);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ created: 2, updated: 0, rejected: 2 });
    expect(res.data.rows).toEqual([
      expect.objectContaining({ index: 0, externalId: 'imp-1', outcome: 'created' }),
      { index: 1, externalId: 'imp-2', outcome: 'rejected', id: null, reason: ROW_FAILED.failed },
      expect.objectContaining({ index: 2, externalId: 'imp-3', outcome: 'created' }),
      { index: 3, externalId: 'imp-4', outcome: 'rejected', id: null, reason: ROW_FAILED.conflict },
    ]);
    expect(JSON.stringify(res.data)).not.toMatch(/poisoned|duplicate key|insert/i);
    const stored = await t.db
      .select({ externalId: distributors.externalId })
      .from(distributors)
      .where(inArray(distributors.externalId, ['imp-1', 'imp-2', 'imp-3', 'imp-4']));
    expect(stored.map((r) => r.externalId).sort()).toEqual(['imp-1', 'imp-3']);
  });

  it('on update too: the stored row stays as it was', async () => {
    const res = await importDistributors([
      { externalId: 'imp-1', name: 'Poison' },
      { externalId: 'imp-3', name: 'Third (renamed)' },
    ]);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ created: 0, updated: 1, rejected: 1 });
    const [first] = await t.db.select().from(distributors).where(eq(distributors.externalId, 'imp-1'));
    expect(first!.name).toBe('First');
  });

  it('is logged server-side with the database code, without the query parameters', async () => {
    const logged: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
    const log = { error: (obj: Record<string, unknown>, msg?: string) => void logged.push({ obj, msg }) };
    const imports = createImportsService({
      db: t.db,
      audit: createAudit(t.db),
      log: log as never,
      brands: createBrandWriter({
        db: t.db,
        resellerHosts: createResellerHosts({ db: t.db, clock: systemClock }),
        sessionCache: createSessionCache({ clock: systemClock, enabled: false }),
      }),
    });
    const report = await imports.distributors([
      { externalId: 'imp-5', name: 'Poison', supportEmail: `${SECRET}@example.com` },
      { externalId: 'imp-6', name: 'Fine' },
    ]);
    expect(report).toMatchObject({ created: 1, rejected: 1 });
    expect(logged).toHaveLength(1);
    const [entry] = logged;
    expect(entry!.msg).toBe('import distributor: row 0 failed');
    expect(entry!.obj).toMatchObject({ import: 'distributor', index: 0, externalId: 'imp-5' });
    const err = entry!.obj.err as LoggedQueryError;
    expect(err).toBeInstanceOf(LoggedQueryError);
    expect(err.code).toBe('P0001');
    expect(err.message).toContain('poisoned row');
    expect(err.query).toMatch(/insert into "distributors"/);
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toContain(SECRET);
  });
});
