/** TRUST_PROXY: off by default; true, a hop count or a list of proxy addresses; anything else stops start-up. */
import { describe, expect, it } from 'vitest';
import { loadConfig, trustProxyOption } from './config.ts';

const trust = (value?: string) => loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY;

describe('TRUST_PROXY', () => {
  it('is off by default', () => {
    expect(trust()).toBe(false);
    expect(trust('')).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('0')).toBe(false);
  });

  it('takes true, a hop count, or a comma list of addresses, CIDR ranges and range names', () => {
    expect(trust('true')).toBe(true);
    expect(trust('TRUE')).toBe(true);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.1')).toEqual(['10.0.0.1']);
    expect(trust(' 10.0.0.0/8, 192.168.1.1 ,::1, fd00::/8,loopback,uniquelocal ')).toEqual([
      '10.0.0.0/8',
      '192.168.1.1',
      '::1',
      'fd00::/8',
      'loopback',
      'uniquelocal',
    ]);
  });

  it('names the variable when the value is bad', () => {
    for (const bad of [
      'yes',
      '10.0.0.300',
      '10.0.0.0/33',
      '::1/129',
      'proxy.example.com',
      '10.0.0.1/8/8',
      ',',
      '1000',
    ]) {
      expect(() => trust(bad), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('turns a hop count into a function trusting that many hops (Fastify 5 ignores a number)', () => {
    const fn = trustProxyOption(2);
    expect(typeof fn).toBe('function');
    if (typeof fn !== 'function') return;
    expect([fn('1.2.3.4', 0), fn('1.2.3.4', 1), fn('1.2.3.4', 2)]).toEqual([true, true, false]);
    expect(trustProxyOption(false)).toBe(false);
    expect(trustProxyOption(['10.0.0.1'])).toEqual(['10.0.0.1']);
  });
});

describe('the configuration reference', () => {
  it('documents every setting the server reads, and no other', async () => {
    const { readFileSync } = await import('node:fs');
    const { configSchema } = await import('./config.ts');
    const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(Object.keys(configSchema.shape).sort());
  });
});

describe('SEED_ADMIN_PASSWORD', () => {
  it('must meet the password rules, and a refusal names the setting without echoing the value', () => {
    expect(loadConfig({ SEED_ADMIN_PASSWORD: 'Strong-Enough-Pass-1!' }).SEED_ADMIN_PASSWORD).toBe(
      'Strong-Enough-Pass-1!',
    );
    expect(() => loadConfig({ SEED_ADMIN_PASSWORD: 'weak' })).toThrow(
      /SEED_ADMIN_PASSWORD: Password must be at least 12 characters long/,
    );
    try {
      loadConfig({ SEED_ADMIN_PASSWORD: 'nodigitsorspecialchars' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('SEED_ADMIN_PASSWORD');
      expect((err as Error).message).not.toContain('nodigitsorspecialchars');
    }
  });
});
