/** SSH key store routes: parse, call the service, answer. */
import type { FastifyInstance } from 'fastify';
import { SSH_KEY_TEXT } from '@portal/contract/messages';
import { sshKeyRoutes } from '@portal/contract/ssh-keys';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { SshKeysService } from './ssh-keys.service.ts';

export function registerSshKeysRoutes(app: FastifyInstance, keys: SshKeysService): void {
  registerRoute(app, sshKeyRoutes.list, async ({ auth }) => ({ data: await keys.list(scopeOf(auth)) }));
  registerRoute(app, sshKeyRoutes.add, async ({ auth, body, request }) => {
    const key = await keys.add({ scope: scopeOf(auth), requestId: request.id }, body);
    return { message: SSH_KEY_TEXT.added(key.name), data: key };
  });
  registerRoute(app, sshKeyRoutes.remove, async ({ auth, params, request }) => {
    const { name } = await keys.remove({ scope: scopeOf(auth), requestId: request.id }, params.id);
    return { message: SSH_KEY_TEXT.removed(name), data: null };
  });
}
