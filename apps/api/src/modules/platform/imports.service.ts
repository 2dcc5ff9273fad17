/**
 * Operator imports of distributors, resellers and companies: idempotent by external id, validated row
 * by row, each row written in its own transaction so a bad row never half-writes, with a report. A
 * row that fails for any reason is a rejected row of the report; the import always answers.
 */
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import {
  companyImportRowSchema,
  distributorImportRowSchema,
  resellerImportRowSchema,
  type importReportSchema,
} from '@portal/contract/platform';
import type { ModuleDeps } from '../module.ts';
import type { Db, Tx } from '../../db/client.ts';
import { companies, distributors, resellers } from '../../db/schema.ts';
import type { Audit } from '../../lib/audit.ts';
import { SQLSTATE, databaseErrorOf, loggableError } from '../../lib/errors.ts';

type Report = z.infer<typeof importReportSchema>;
type RowOutcome = Report['rows'][number];
type ImportLog = Pick<FastifyBaseLogger, 'error'>;

class RowRejected extends Error {}

/** The reason a row gets when its write failed unexpectedly; the details go to the server log only. */
export const ROW_FAILED = {
  conflict: 'row: conflicts with a change made at the same time; run the import again',
  failed: 'row: could not be saved; the server log has the details',
} as const;

async function runImport<S extends z.ZodType>(
  db: Db,
  log: ImportLog,
  kind: string,
  rows: Record<string, unknown>[],
  schema: S,
  write: (tx: Tx, row: z.output<S>) => Promise<{ id: number; created: boolean; afterCommit?: () => Promise<void> }>,
): Promise<Report> {
  const out: RowOutcome[] = [];
  for (const [index, raw] of rows.entries()) {
    const externalId = typeof raw.externalId === 'string' ? raw.externalId : null;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      out.push({
        index,
        externalId,
        outcome: 'rejected',
        id: null,
        reason: `${issue.path.join('.') || 'row'}: ${issue.message}`,
      });
      continue;
    }
    try {
      const result = await db.transaction((tx) => write(tx, parsed.data));
      await result.afterCommit?.();
      out.push({ index, externalId, outcome: result.created ? 'created' : 'updated', id: result.id, reason: null });
    } catch (err) {
      if (err instanceof RowRejected) {
        out.push({ index, externalId, outcome: 'rejected', id: null, reason: err.message });
        continue;
      }
      // Earlier rows are committed already: this row is rejected and the import goes on, so the
      // operator always gets the report. The cause is logged without the query's parameters.
      const code = databaseErrorOf(err)?.code;
      log.error({ err: loggableError(err), import: kind, index, externalId }, `import ${kind}: row ${index} failed`);
      const conflict = code === SQLSTATE.uniqueViolation || code === SQLSTATE.foreignKeyViolation;
      out.push({
        index,
        externalId,
        outcome: 'rejected',
        id: null,
        reason: conflict ? ROW_FAILED.conflict : ROW_FAILED.failed,
      });
    }
  }
  return {
    created: out.filter((r) => r.outcome === 'created').length,
    updated: out.filter((r) => r.outcome === 'updated').length,
    rejected: out.filter((r) => r.outcome === 'rejected').length,
    rows: out,
  };
}

const brandFields = (r: {
  name: string;
  logoUrl?: string | null | undefined;
  tabLogoUrl?: string | null | undefined;
  email?: string | null | undefined;
  supportEmail?: string | null | undefined;
}) => ({
  name: r.name,
  ...(r.logoUrl !== undefined ? { logoUrl: r.logoUrl } : {}),
  ...(r.tabLogoUrl !== undefined ? { tabLogoUrl: r.tabLogoUrl } : {}),
  ...(r.email !== undefined ? { email: r.email } : {}),
  ...(r.supportEmail !== undefined ? { supportEmail: r.supportEmail } : {}),
});

export function createImportsService(deps: {
  db: Db;
  audit: Audit;
  log: ImportLog;
  /** Reseller brands go through the branding screen's path (its rules, normalisation and cache). */
  brands: ModuleDeps['brands'];
  /** Without it a row's adminEmail invites nobody. */
  inviteCompanyAdmin?: ModuleDeps['inviteCompanyAdmin'];
}) {
  const { db, log } = deps;
  const record = (tx: Tx, action: string, type: string, id: number, after: unknown) =>
    deps.audit.record({ companyId: null, actorUserId: null, action, targetType: type, targetId: id, after }, tx);

  return {
    distributors: (rows: Record<string, unknown>[]) =>
      runImport(db, log, 'distributor', rows, distributorImportRowSchema, async (tx, row) => {
        const [existing] = await tx
          .select({ id: distributors.id })
          .from(distributors)
          .where(eq(distributors.externalId, row.externalId));
        if (existing) {
          await tx
            .update(distributors)
            .set({ ...brandFields(row), updatedAt: new Date() })
            .where(eq(distributors.id, existing.id));
          await record(tx, 'import.distributor.update', 'distributor', existing.id, row);
          return { id: existing.id, created: false };
        }
        const [made] = await tx
          .insert(distributors)
          .values({ externalId: row.externalId, ...brandFields(row) })
          .returning({ id: distributors.id });
        await record(tx, 'import.distributor.create', 'distributor', made!.id, row);
        return { id: made!.id, created: true };
      }),

    resellers: (rows: Record<string, unknown>[]) =>
      runImport(db, log, 'reseller', rows, resellerImportRowSchema, async (tx, row) => {
        const [distributor] = await tx
          .select({ id: distributors.id })
          .from(distributors)
          .where(eq(distributors.externalId, row.distributorExternalId));
        if (!distributor) throw new RowRejected(`distributorExternalId: no distributor "${row.distributorExternalId}"`);
        const [existing] = await tx
          .select({ id: resellers.id })
          .from(resellers)
          .where(eq(resellers.externalId, row.externalId));
        /** The branding form's rules refuse what the row's own schema let through: a rejected row. */
        const brandOf = async <T>(save: () => T | Promise<T>): Promise<T> => {
          try {
            return await save();
          } catch (err) {
            if (deps.brands.isInvalid(err)) throw new RowRejected(err.message);
            throw err;
          }
        };
        if (existing) {
          await brandOf(() =>
            deps.brands.save(tx, existing.id, brandFields(row), new Date(), { distributorId: distributor.id }),
          );
          await record(tx, 'import.reseller.update', 'reseller', existing.id, row);
          return { id: existing.id, created: false, afterCommit: async () => deps.brands.forget() };
        }
        const [made] = await tx
          .insert(resellers)
          .values({
            externalId: row.externalId,
            distributorId: distributor.id,
            ...(await brandOf(() => deps.brands.fieldsOf(brandFields(row)))),
          })
          .returning({ id: resellers.id });
        await record(tx, 'import.reseller.create', 'reseller', made!.id, row);
        return { id: made!.id, created: true };
      }),

    companies: (rows: Record<string, unknown>[]) =>
      runImport(db, log, 'company', rows, companyImportRowSchema, async (tx, row) => {
        const [reseller] = await tx
          .select({ id: resellers.id })
          .from(resellers)
          .where(eq(resellers.externalId, row.resellerExternalId));
        if (!reseller) throw new RowRejected(`resellerExternalId: no reseller "${row.resellerExternalId}"`);
        const [existing] = await tx
          .select({ id: companies.id })
          .from(companies)
          .where(eq(companies.externalId, row.externalId));
        const inviteAdmin = async (companyId: number): Promise<(() => Promise<void>) | undefined> => {
          if (!row.adminEmail || !deps.inviteCompanyAdmin) return undefined;
          const result = await deps.inviteCompanyAdmin(tx, companyId, row.adminEmail);
          if (result.outcome === 'exists' && result.companyId !== companyId)
            throw new RowRejected('adminEmail: this address already has an account elsewhere');
          return result.outcome === 'invited' ? result.send : undefined;
        };
        if (existing) {
          await tx
            .update(companies)
            .set({ name: row.name, resellerId: reseller.id, updatedAt: new Date() })
            .where(eq(companies.id, existing.id));
          await record(tx, 'import.company.update', 'company', existing.id, row);
          const send = await inviteAdmin(existing.id);
          return { id: existing.id, created: false, ...(send ? { afterCommit: send } : {}) };
        }
        const [made] = await tx
          .insert(companies)
          .values({ externalId: row.externalId, name: row.name, resellerId: reseller.id })
          .returning({ id: companies.id });
        await record(tx, 'import.company.create', 'company', made!.id, row);
        const send = await inviteAdmin(made!.id);
        return { id: made!.id, created: true, ...(send ? { afterCommit: send } : {}) };
      }),
  };
}
