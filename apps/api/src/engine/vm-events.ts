/**
 * VM status changes, fanned out to the live streams.
 *
 * - PGlite (one process): an in-process emitter (`createVmEvents`).
 * - PostgreSQL (possibly several API instances on one database): `createPgVmEvents` relays them through
 *   `NOTIFY vm_events` / `LISTEN vm_events`. An event reaches this instance's subscribers **only** through
 *   the NOTIFY round trip, like any other instance's, so every subscriber everywhere sees each event exactly
 *   once and all instances see them in the same (commit) order. One dedicated connection listens; when it is
 *   lost it is made again with backoff. Events published while it is down are not replayed (the portal's
 *   refresh buttons and next events catch up); nothing here ever throws into a publisher or the process.
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { createPgListener } from '../lib/pg-listener.ts';
import { z } from 'zod';
import { VM_STATUSES, type VmStatus } from '@portal/contract/vm-lifecycle';

export interface VmEvent {
  vmId: number;
  companyId: number;
  teamId: number | null;
  createdByUserId: number | null;
  status: VmStatus;
  deleted: boolean;
}

export interface VmEvents {
  publish(event: VmEvent): void;
  subscribe(listener: (event: VmEvent) => void): () => void;
}

/** What an event is built from: a VM row, or the row as it is about to be. */
export interface VmEventSource {
  id: number;
  companyId: number;
  teamId: number | null;
  createdByUserId: number | null;
  status: VmStatus;
  deletedAt?: Date | null;
}

/** The one place a VM event is built and published (service, runner and reconciler all call it). */
export function publishVm(events: VmEvents, vm: VmEventSource): void {
  events.publish({
    vmId: vm.id,
    companyId: vm.companyId,
    teamId: vm.teamId,
    createdByUserId: vm.createdByUserId,
    status: vm.status,
    deleted: (vm.deletedAt ?? null) !== null,
  });
}

export function createVmEvents(): VmEvents {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(event: VmEvent) {
      emitter.emit('vm', event);
    },
    subscribe(listener: (event: VmEvent) => void): () => void {
      emitter.on('vm', listener);
      return () => emitter.off('vm', listener);
    },
  };
}

/** The one channel every instance listens on (NOTIFY is scoped to the database). */
export const VM_EVENTS_CHANNEL = 'vm_events';
/** How the listening connection shows in pg_stat_activity. */
export const VM_EVENTS_APPLICATION_NAME = 'portal-vm-events';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a VmEvent is about a hundred. */
const MAX_PAYLOAD_BYTES = 7999;

const vmEventSchema = z.object({
  vmId: z.number().int(),
  companyId: z.number().int(),
  teamId: z.number().int().nullable(),
  createdByUserId: z.number().int().nullable(),
  status: z.enum(VM_STATUSES),
  deleted: z.boolean(),
});

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface PgVmEventsOptions {
  /** Sends the NOTIFYs (the app's pool). */
  pool: Pick<pg.Pool, 'query'>;
  /** Where the listening connection goes: the same database as the pool. */
  connection: pg.ClientConfig;
  log: Log;
  /** Backoff of the listener's reconnects: first delay, doubling up to the maximum (with jitter). */
  reconnectMs?: { initial: number; max: number };
}

export interface PgVmEvents extends VmEvents {
  /** Opens the listening connection; resolves after the first attempt, whether or not it worked (it retries). */
  start(): Promise<void>;
  /** Waits for the NOTIFYs already published, then closes the listening connection. */
  stop(): Promise<void>;
  /** Whether the listening connection is up (for tests and health). */
  readonly listening: boolean;
}

/** The connection settings of the app's pool, for a connection of our own to the same database. */
export function connectionOf(pool: pg.Pool): pg.ClientConfig {
  const { options } = pool;
  // pg-pool keeps `password` non-enumerable; copy it explicitly.
  return { ...options, ...(options.password !== undefined ? { password: options.password } : {}) } as pg.ClientConfig;
}

export function createPgVmEvents(opts: PgVmEventsOptions): PgVmEvents {
  const { log } = opts;
  const listeners = new Set<(event: VmEvent) => void>();
  /** NOTIFYs go one after another, so this instance's events keep their order. */
  let sending: Promise<void> = Promise.resolve();

  function deliver(payload: string) {
    let event: VmEvent;
    try {
      event = vmEventSchema.parse(JSON.parse(payload));
    } catch {
      log.warn({ channel: VM_EVENTS_CHANNEL }, 'ignored a malformed VM event notification');
      return;
    }
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (err) {
        log.error({ err }, 'a VM event subscriber failed');
      }
    }
  }

  const connection = createPgListener({
    connection: opts.connection,
    channel: VM_EVENTS_CHANNEL,
    applicationName: VM_EVENTS_APPLICATION_NAME,
    label: 'VM events',
    log,
    ...(opts.reconnectMs ? { reconnectMs: opts.reconnectMs } : {}),
    onNotify: (payload) => {
      if (payload !== undefined) deliver(payload);
    },
  });

  return {
    get listening() {
      return connection.listening;
    },
    publish(event) {
      const payload = JSON.stringify(event);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
        log.error({ vmId: event.vmId, bytes: Buffer.byteLength(payload) }, 'VM event too large to NOTIFY; dropped');
        return;
      }
      sending = sending
        .then(() => opts.pool.query('select pg_notify($1, $2)', [VM_EVENTS_CHANNEL, payload]))
        .then(
          () => {},
          (err: unknown) => log.warn({ err, vmId: event.vmId }, 'VM event could not be published'),
        );
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    start: () => connection.start(),
    async stop() {
      await sending;
      await connection.stop();
      listeners.clear();
    },
  };
}
