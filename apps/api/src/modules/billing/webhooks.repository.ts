/**
 * SQL of the billing webhook and its delivery log. Deliveries are claimed with FOR UPDATE SKIP LOCKED under a lease
 * (locked_until), so several API instances deliver each one once; time comes from the injected clock.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { billingWebhooks, companies, webhookDeliveries } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { pageWindow } from '../../lib/paging.ts';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export function createWebhooksRepository(db: Db, clock: Clock) {
  const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

  return {
    async webhook(resellerId: number) {
      const [row] = await db.select().from(billingWebhooks).where(eq(billingWebhooks.resellerId, resellerId));
      return row;
    },

    /**
     * Creates the webhook with `secret`, or changes URL and enabled (keeping the secret). One statement, so of two
     * concurrent first saves one inserts and the other updates: both get the row, with the one stored secret.
     */
    async saveWebhook(resellerId: number, values: { url: string; enabled: boolean }, secret: string) {
      const now = clock.now();
      const [row] = await db
        .insert(billingWebhooks)
        .values({ resellerId, ...values, secret, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: billingWebhooks.resellerId, set: { ...values, updatedAt: now } })
        .returning();
      return row!;
    },

    async setSecret(resellerId: number, secret: string) {
      const [row] = await db
        .update(billingWebhooks)
        .set({ secret, updatedAt: clock.now() })
        .where(eq(billingWebhooks.resellerId, resellerId))
        .returning();
      return row;
    },

    /**
     * Queues deliveries. A company-month already waiting (pending) is not queued again, whatever the trigger
     * (webhook_deliveries_pending_once), and a scheduled one at most once ever (webhook_deliveries_scheduled_once):
     * answers how many were queued and how many were left out.
     */
    async enqueue(
      resellerId: number,
      trigger: 'schedule' | 'manual',
      items: { companyId: number; month: string; payload: unknown }[],
    ): Promise<{ queued: number; alreadyQueued: number }> {
      if (items.length === 0) return { queued: 0, alreadyQueued: 0 };
      const now = clock.now();
      const rows = await db
        .insert(webhookDeliveries)
        .values(
          items.map((i) => ({
            resellerId,
            event: 'usage.month',
            companyId: i.companyId,
            month: i.month,
            trigger,
            payload: i.payload,
            nextAttemptAt: now,
            createdAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ id: webhookDeliveries.id });
      return { queued: rows.length, alreadyQueued: items.length - rows.length };
    },

    /** Resellers with an enabled webhook whose scheduled push of `month` has not been queued yet. */
    async resellersDue(month: string) {
      return db
        .select({ resellerId: billingWebhooks.resellerId })
        .from(billingWebhooks)
        .where(
          and(
            eq(billingWebhooks.enabled, true),
            sql`not exists (select 1 from webhook_deliveries d where d.reseller_id = ${billingWebhooks.resellerId}
              and d.trigger = 'schedule' and d.event = 'usage.month' and d.month = ${month})`,
          ),
        );
    },

    /**
     * Takes the oldest due pending delivery of an enabled webhook whose reseller has fewer than `perReseller`
     * attempts in flight (unexpired leases, on any instance), under a lease; with what it needs to send.
     */
    async claim(leaseMs: number, perReseller: number) {
      const now = clock.now();
      const [row] = await db
        .update(webhookDeliveries)
        .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
        .where(
          eq(
            webhookDeliveries.id,
            sql`(select d.id from webhook_deliveries d join billing_webhooks w on w.reseller_id = d.reseller_id
              where d.status = 'pending' and w.enabled and d.next_attempt_at <= ${at(now)}
                and (d.locked_until is null or d.locked_until < ${at(now)})
                and (select count(*) from webhook_deliveries f where f.reseller_id = d.reseller_id
                  and f.status = 'pending' and f.locked_until >= ${at(now)}) < ${perReseller}
              order by d.next_attempt_at, d.id limit 1 for update of d skip locked)`,
          ),
        )
        .returning();
      if (!row) return null;
      const hook = await this.webhook(row.resellerId);
      return hook ? { delivery: row, url: hook.url, secret: hook.secret } : null;
    },

    /** Records an attempt's outcome, only while this claim's lease is the one on the row. */
    async recordAttempt(
      claimed: DeliveryRow,
      outcome: Pick<DeliveryRow, 'status' | 'lastStatusCode' | 'lastError' | 'deliveredAt'> & { nextAttemptAt: Date },
    ) {
      await db
        .update(webhookDeliveries)
        .set({ ...outcome, attempts: sql`${webhookDeliveries.attempts} + 1`, lockedUntil: null })
        .where(
          and(
            eq(webhookDeliveries.id, claimed.id),
            sql`${webhookDeliveries.lockedUntil} = ${at(claimed.lockedUntil!)}`,
          ),
        );
    },

    async page(resellerId: number, page: number, rowsPerPage: number) {
      const { limit, offset } = pageWindow(page, rowsPerPage);
      const [rows, [count]] = await Promise.all([
        db
          .select({ d: webhookDeliveries, companyName: companies.name })
          .from(webhookDeliveries)
          .leftJoin(companies, eq(companies.id, webhookDeliveries.companyId))
          .where(eq(webhookDeliveries.resellerId, resellerId))
          .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
          .limit(limit)
          .offset(offset),
        db
          .select({ n: sql<number>`count(*)::int` })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.resellerId, resellerId)),
      ]);
      return { rows, total: count?.n ?? 0 };
    },

    async delivery(resellerId: number, id: number) {
      const [row] = await db
        .select({ d: webhookDeliveries, companyName: companies.name })
        .from(webhookDeliveries)
        .leftJoin(companies, eq(companies.id, webhookDeliveries.companyId))
        .where(and(eq(webhookDeliveries.resellerId, resellerId), eq(webhookDeliveries.id, id)));
      return row;
    },

    /** A failed delivery back to pending, due now (one more attempt). False when it was not failed. */
    async retryFailed(resellerId: number, id: number): Promise<boolean> {
      const rows = await db
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: clock.now(), lockedUntil: null })
        .where(
          and(
            eq(webhookDeliveries.resellerId, resellerId),
            eq(webhookDeliveries.id, id),
            eq(webhookDeliveries.status, 'failed'),
          ),
        )
        .returning({ id: webhookDeliveries.id });
      return rows.length === 1;
    },
  };
}
export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
