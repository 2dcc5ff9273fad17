/**
 * Chromium's DevTools virtual authenticator (CTAP2, internal, resident keys, user verification) on a page, for the
 * passkey suites (passkeys, step-up). WebAuthn takes a domain as the relying party: open the portal as
 * http://localhost:<port>, never 127.0.0.1.
 */
import type { CDPSession, Page } from 'playwright-core';

export async function withVirtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { cdp, authenticatorId };
}
