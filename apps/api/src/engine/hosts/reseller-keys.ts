/**
 * Each reseller's portal SSH key pair (issue 21: credentials are the portal's): made on first need, the private key
 * sealed in resellers.ssh_private_key_sealed, the public key shown in the reseller area for the hosts'
 * authorized_keys. Two first needs at once make one pair: the write only fills an empty row, the loser reads it.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { resellers } from '../../db/schema.ts';
import { generateSshKeyPair, type SecretBox } from '../../lib/ssh-keys.ts';

export interface ResellerKey {
  publicKey: string;
  privateKey: string;
}

export function createResellerKeys(deps: { db: Db; secrets: SecretBox }) {
  const { db, secrets } = deps;
  const read = async (resellerId: number) =>
    (
      await db
        .select({ pub: resellers.sshPublicKey, sealed: resellers.sshPrivateKeySealed })
        .from(resellers)
        .where(eq(resellers.id, resellerId))
    )[0];

  /** The reseller's key row, its pair made first if it has none. */
  async function ensure(resellerId: number) {
    let row = await read(resellerId);
    if (!row) throw new Error(`No reseller ${resellerId}`);
    if (!row.pub || !row.sealed) {
      const pair = generateSshKeyPair(`irontech-portal-reseller-${resellerId}`);
      await db
        .update(resellers)
        .set({ sshPublicKey: pair.publicKeyOpenSsh, sshPrivateKeySealed: secrets.seal(pair.privateKeyOpenSsh) })
        .where(and(eq(resellers.id, resellerId), isNull(resellers.sshPublicKey)));
      row = (await read(resellerId))!;
    }
    return { pub: row.pub!, sealed: row.sealed! };
  }

  return {
    /** What the reseller area shows: the private key stays sealed. */
    async publicKey(resellerId: number): Promise<string> {
      return (await ensure(resellerId)).pub;
    },
    /** Both halves, for connecting to the reseller's hosts. */
    async get(resellerId: number): Promise<ResellerKey> {
      const { pub, sealed } = await ensure(resellerId);
      return { publicKey: pub, privateKey: secrets.open(sealed) };
    },
  };
}
export type ResellerKeys = ReturnType<typeof createResellerKeys>;
