/**
 * TXT lookups through the operator's DNS servers (DNS_RESOLVER), else the system's: the proof of control of a
 * custom domain (issue 21). Its own Resolver, so the servers chosen here never change the process's lookups.
 */
import { Resolver } from 'node:dns/promises';

/** The TXT values at a name (each record's strings joined), or why none could be read. */
export type TxtAnswer = { ok: true; values: string[] } | { ok: false; code: string };
export type TxtLookup = (name: string) => Promise<TxtAnswer>;

/** Codes that mean "the name has no TXT record" rather than "the DNS did not answer". */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND']);

export function createTxtLookup(
  servers: readonly string[],
  opts: { timeoutMs?: number; tries?: number } = {},
): TxtLookup {
  // A bounded wait: an owner presses Verify and waits for the answer (at most timeoutMs × tries per server).
  const resolver = new Resolver({ timeout: opts.timeoutMs ?? 2000, tries: opts.tries ?? 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return async (name) => {
    try {
      const records = await resolver.resolveTxt(name);
      return { ok: true, values: records.map((chunks) => chunks.join('')) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      return NO_RECORD.has(code) ? { ok: true, values: [] } : { ok: false, code };
    }
  };
}
