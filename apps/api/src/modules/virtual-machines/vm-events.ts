/**
 * VM status changes inside this process, fanned out to the live streams. (Several API instances would
 * relay these through PostgreSQL LISTEN/NOTIFY; see docs/virtual-machines.md.)
 */
import { EventEmitter } from 'node:events';

export interface VmEvent {
  vmId: number;
  companyId: number;
  teamId: number | null;
  createdByUserId: number | null;
  status: string;
  deleted: boolean;
}

export function createVmEvents() {
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
export type VmEvents = ReturnType<typeof createVmEvents>;
