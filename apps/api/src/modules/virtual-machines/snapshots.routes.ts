/** The snapshot calls (issue 24 item 1): parse, call the service, answer with the lifecycle table's texts. */
import type { FastifyInstance } from 'fastify';
import { snapshotRoutes } from '@portal/contract/snapshots';
import { SNAPSHOT_ACTIONS } from '@portal/contract/vm-lifecycle';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { SnapshotService } from './snapshots.service.ts';

export function registerSnapshotRoutes(app: FastifyInstance, snapshots: SnapshotService): void {
  registerRoute(app, snapshotRoutes.listSnapshots, async ({ auth, params }) => ({
    data: await snapshots.list(scopeOf(auth), params.id, auth.resellerId),
  }));
  registerRoute(app, snapshotRoutes.takeSnapshot, async ({ auth, params, body, request }) => ({
    message: SNAPSHOT_ACTIONS.snapshot.accepted,
    data: await snapshots.take(
      { scope: scopeOf(auth), requestId: request.id, resellerId: auth.resellerId },
      params.id,
      body.name,
    ),
  }));
  registerRoute(app, snapshotRoutes.revertSnapshot, async ({ auth, params, request }) => {
    const ctx = { scope: scopeOf(auth), requestId: request.id, resellerId: auth.resellerId };
    await snapshots.revert(ctx, params.id, params.snapshotId);
    return { message: SNAPSHOT_ACTIONS.snapshotRevert.accepted, data: null };
  });
  registerRoute(app, snapshotRoutes.deleteSnapshot, async ({ auth, params, request }) => {
    const ctx = { scope: scopeOf(auth), requestId: request.id, resellerId: auth.resellerId };
    await snapshots.delete(ctx, params.id, params.snapshotId);
    return { message: SNAPSHOT_ACTIONS.snapshotDelete.accepted, data: null };
  });
}
