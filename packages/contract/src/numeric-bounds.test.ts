/**
 * Every number the reseller area accepts fits the column it is stored in (issue 21: an hourly price of 10,000,000
 * passed the contract and overflowed numeric(12,5), a 500). The largest value each column holds passes; one step
 * above is refused with the field's message.
 */
import { describe, expect, it } from 'vitest';
import { PG_INT_MAX } from './constants.ts';
import {
  CATALOG_TEXT,
  HOST_LIMITS,
  hostUpdateSchema,
  hourlyPriceSchema,
  monthlyPriceSchema,
  providerRegionsSchema,
} from './reseller-catalog.ts';

const messageOf = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message;

describe('prices: what numeric(12,2) and numeric(12,5) hold', () => {
  it('monthly: 10 integer digits and 2 decimals pass, 11 integer digits do not', () => {
    expect(monthlyPriceSchema.parse('9999999999.99')).toBe('9999999999.99');
    for (const bad of ['10000000000', '10000000000.00', '99999999999'])
      expect(messageOf(monthlyPriceSchema.safeParse(bad))).toBe(CATALOG_TEXT.monthlyPrice);
  });

  it('hourly: 7 integer digits and 5 decimals pass, 8 integer digits do not', () => {
    expect(hourlyPriceSchema.parse('9999999.99999')).toBe('9999999.99999');
    for (const bad of ['10000000', '10000000.00001', '9999999999', '99999999.5'])
      expect(messageOf(hourlyPriceSchema.safeParse(bad))).toBe(CATALOG_TEXT.hourlyPrice);
  });

  it('the messages say the bound', () => {
    expect(CATALOG_TEXT.monthlyPrice).toContain('below 10000000000');
    expect(CATALOG_TEXT.hourlyPrice).toContain('below 10000000');
  });
});

describe('host capacity: integer cpus, real GB and overcommit', () => {
  it('the limits fit their columns (integer, real) and are enforced', () => {
    expect(HOST_LIMITS.cpusMax).toBeLessThanOrEqual(PG_INT_MAX);
    const ok = hostUpdateSchema.safeParse({
      cpus: HOST_LIMITS.cpusMax,
      ramGb: HOST_LIMITS.ramGbMax,
      diskGb: HOST_LIMITS.diskGbMax,
      cpuOvercommit: HOST_LIMITS.overcommitMax,
    });
    expect(ok.success).toBe(true);
    expect(messageOf(hostUpdateSchema.safeParse({ cpus: HOST_LIMITS.cpusMax + 1 }))).toBe(CATALOG_TEXT.cpus);
    expect(messageOf(hostUpdateSchema.safeParse({ cpus: PG_INT_MAX + 1 }))).toBe(CATALOG_TEXT.cpus);
    expect(messageOf(hostUpdateSchema.safeParse({ ramGb: 1e300 }))).toBe(CATALOG_TEXT.ramGb);
    expect(messageOf(hostUpdateSchema.safeParse({ diskGb: HOST_LIMITS.diskGbMax * 2 }))).toBe(CATALOG_TEXT.diskGb);
    expect(messageOf(hostUpdateSchema.safeParse({ ramOvercommit: 65 }))).toBe(CATALOG_TEXT.overcommit);
  });

  it('ids in bodies stop at the largest integer', () => {
    expect(providerRegionsSchema.safeParse({ regionIds: [PG_INT_MAX] }).success).toBe(true);
    expect(providerRegionsSchema.safeParse({ regionIds: [PG_INT_MAX + 1] }).success).toBe(false);
  });
});
