/**
 * The SSH key store (issue 23 item 5): each user's own public keys. What a key may be is the contract's rule
 * (parseSshPublicKey); here: at most SSH_KEYS.perUser keys, names and keys unique per user, audited adds and removes.
 */
import { SSH_KEYS } from '@portal/contract/constants';
import { SSH_KEY_TEXT } from '@portal/contract/messages';
import { parseSshPublicKey, type SshKey, type SshKeyType } from '@portal/contract/ssh-keys';
import type { TenantScope } from '../../lib/auth-context.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import { sshFingerprint } from '../../lib/ssh-keys.ts';
import type { ModuleDeps } from '../module.ts';
import type { SshKeyRow, SshKeysRepository } from './ssh-keys.repository.ts';

type Deps = Pick<ModuleDeps, 'db' | 'audit'> & { repo: SshKeysRepository };
type Ctx = { scope: TenantScope; requestId: string };

const toKey = (row: SshKeyRow): SshKey => ({
  id: row.id,
  name: row.name,
  type: row.type as SshKeyType,
  bits: row.bits,
  fingerprint: row.fingerprint,
  publicKey: row.publicKey,
  createdAt: iso(row.createdAt),
});

export function createSshKeysService({ db, audit, repo }: Deps) {
  return {
    list: async (scope: TenantScope) => (await repo.list(scope.userId)).map(toKey),

    async add(ctx: Ctx, input: { name: string; publicKey: string }): Promise<SshKey> {
      // The body schema ran this already; parsed again for the parts.
      const parsed = parseSshPublicKey(input.publicKey);
      if (!parsed.ok) throw new BadRequestError(parsed.message);
      const { key } = parsed;
      const fingerprint = sshFingerprint(key.line);
      const { userId, companyId } = ctx.scope;
      return db.transaction(async (tx) => {
        await repo.lockOwner(tx, userId);
        const [clash] = await repo.clash(tx, userId, input.name, fingerprint);
        if (clash?.fingerprint === fingerprint) throw new ConflictError(SSH_KEY_TEXT.duplicate(clash.name));
        if (clash) throw new ConflictError(SSH_KEY_TEXT.nameTaken);
        if ((await repo.count(tx, userId)) >= SSH_KEYS.perUser)
          throw new ConflictError(SSH_KEY_TEXT.limit(SSH_KEYS.perUser));
        const row = await repo.insert(tx, {
          userId,
          companyId,
          name: input.name,
          type: key.type,
          bits: key.bits,
          publicKey: key.line,
          fingerprint,
        });
        await audit.record(
          {
            companyId,
            actorUserId: userId,
            action: 'user.sshKey.add',
            targetType: 'sshKey',
            targetId: row.id,
            after: { name: row.name, type: row.type, bits: row.bits, fingerprint },
            requestId: ctx.requestId,
          },
          tx,
        );
        return toKey(row);
      });
    },

    /** Removes one of the caller's keys; another user's id, or none, is 404. VMs keep their copies. */
    async remove(ctx: Ctx, id: number): Promise<{ name: string }> {
      const { userId, companyId } = ctx.scope;
      return db.transaction(async (tx) => {
        const row = await repo.remove(tx, userId, id);
        if (!row) throw new NotFoundError(SSH_KEY_TEXT.notFound);
        await audit.record(
          {
            companyId,
            actorUserId: userId,
            action: 'user.sshKey.remove',
            targetType: 'sshKey',
            targetId: row.id,
            before: { name: row.name, fingerprint: row.fingerprint },
            requestId: ctx.requestId,
          },
          tx,
        );
        return { name: row.name };
      });
    },
  };
}
export type SshKeysService = ReturnType<typeof createSshKeysService>;
