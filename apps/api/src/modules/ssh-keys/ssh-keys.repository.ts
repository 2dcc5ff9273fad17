/** SQL of the SSH key store: every query is scoped by the owner's user id (nobody reaches another user's keys). */
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { sshKeys, users } from '../../db/schema.ts';

export type SshKeyRow = typeof sshKeys.$inferSelect;

export function createSshKeysRepository(db: Db) {
  return {
    list: (userId: number) =>
      db
        .select()
        .from(sshKeys)
        .where(eq(sshKeys.userId, userId))
        .orderBy(asc(sql`lower(${sshKeys.name})`), asc(sshKeys.id)),

    /** Holds the owner's row until the transaction ends: two adds at once count and check names one after the other. */
    async lockOwner(tx: Tx, userId: number) {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    },

    async count(tx: Tx, userId: number): Promise<number> {
      const [row] = await tx.select({ n: count() }).from(sshKeys).where(eq(sshKeys.userId, userId));
      return row?.n ?? 0;
    },

    /** The owner's key with this name or this fingerprint, if any (the store's two uniqueness rules). */
    async clash(tx: Tx, userId: number, name: string, fingerprint: string) {
      return tx
        .select({ name: sshKeys.name, fingerprint: sshKeys.fingerprint })
        .from(sshKeys)
        .where(
          and(eq(sshKeys.userId, userId), sql`(${sshKeys.name} = ${name} or ${sshKeys.fingerprint} = ${fingerprint})`),
        );
    },

    async insert(tx: Tx, values: typeof sshKeys.$inferInsert): Promise<SshKeyRow> {
      const [row] = await tx.insert(sshKeys).values(values).returning();
      return row!;
    },

    /** Removes the owner's key; undefined when it is not theirs or does not exist. */
    async remove(tx: Tx, userId: number, id: number): Promise<SshKeyRow | undefined> {
      const [row] = await tx
        .delete(sshKeys)
        .where(and(eq(sshKeys.id, id), eq(sshKeys.userId, userId)))
        .returning();
      return row;
    },
  };
}
export type SshKeysRepository = ReturnType<typeof createSshKeysRepository>;
