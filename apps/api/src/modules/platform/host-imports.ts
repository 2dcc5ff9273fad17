/**
 * Operator imports of hosts and public addresses (the CLI's `host add` and `public-ip add` over the API): row by
 * row, with the same report as the other imports. A host row is `{ name, uri, provider, region, cpus?, ramGb?,
 * diskGb?, cpuOvercommit?, ramOvercommit?, diskOvercommit? }`; an address row `{ region, address }`.
 */
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { importReportSchema } from '@portal/contract/platform';
import { loggableError } from '../../lib/errors.ts';
import { expandAddresses, HostInputError, type HostsService } from '../../engine/hosts/hosts.service.ts';
import { ROW_FAILED } from './imports.service.ts';

type Report = z.infer<typeof importReportSchema>;
const addressRowSchema = z
  .object({
    region: z.union([z.number().int().positive(), z.string().min(1).max(200)]),
    address: z.string().min(7).max(40),
  })
  .strict();

export function createHostImports(deps: { hosts: HostsService; log: Pick<FastifyBaseLogger, 'error'> }) {
  const { hosts } = deps;

  async function each(
    kind: string,
    rows: Record<string, unknown>[],
    write: (row: Record<string, unknown>) => Promise<{ id: number | null; created: boolean }>,
  ): Promise<Report> {
    const out: Report['rows'] = [];
    for (const [index, row] of rows.entries()) {
      const externalId = typeof row.name === 'string' ? row.name : typeof row.address === 'string' ? row.address : null;
      try {
        const { id, created } = await write(row);
        out.push({ index, externalId, outcome: created ? 'created' : 'updated', id, reason: null });
      } catch (err) {
        let reason: string = ROW_FAILED.failed;
        if (err instanceof z.ZodError) reason = `${err.issues[0]!.path.join('.') || 'row'}: ${err.issues[0]!.message}`;
        else if (err instanceof HostInputError) reason = err.message;
        else deps.log.error({ err: loggableError(err), import: kind, index }, `import ${kind}: row ${index} failed`);
        out.push({ index, externalId, outcome: 'rejected', id: null, reason });
      }
    }
    const count = (o: string) => out.filter((r) => r.outcome === o).length;
    return { created: count('created'), updated: count('updated'), rejected: count('rejected'), rows: out };
  }

  return {
    hosts: (rows: Record<string, unknown>[]) =>
      each('host', rows, async (row) => {
        const res = await hosts.add(row as Parameters<typeof hosts.add>[0]);
        return { id: res.host.id, created: res.changed && res.message.startsWith('Added') };
      }),
    publicAddresses: (rows: Record<string, unknown>[]) =>
      each('publicAddress', rows, async (row) => {
        const { region, address } = addressRowSchema.parse(row);
        const res = await hosts.addPublicAddresses(region, expandAddresses(address));
        return { id: null, created: res.changed };
      }),
  };
}
