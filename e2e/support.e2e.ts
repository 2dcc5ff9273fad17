/** Support screen in Chromium: FAQ search and accordion, Get In Touch, "Message sent!", the mail arriving. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

describe('support', () => {
  it('searches the FAQ, opens one answer at a time, and sends a message that arrives by mail', async () => {
    const { context, page } = await portal.newPage();
    await portal.signIn(page);
    await page.getByRole('link', { name: 'Support' }).click();
    const faq = page.getByRole('region', { name: 'Frequently asked questions' });
    await expect.poll(() => faq.getByRole('button').count()).toBe(12);

    await faq.getByRole('button', { name: 'How do I create a team?' }).click();
    await expect.poll(() => faq.getByText(/Open Teams and choose Create Team/).isVisible()).toBe(true);
    await faq.getByRole('button', { name: 'Are VM templates supported?' }).click();
    await expect.poll(() => faq.getByText(/Templates are not supported/).isVisible()).toBe(true);
    expect(await faq.getByText(/Open Teams and choose Create Team/).count()).toBe(0);

    await page.getByPlaceholder('Search the FAQ...').fill('password');
    await expect.poll(() => faq.getByRole('button').count()).toBeLessThan(12);
    expect(await faq.getByRole('button', { name: 'How do I reset my password?' }).isVisible()).toBe(true);
    await page.getByPlaceholder('Search the FAQ...').fill('zzzz');
    await expect.poll(() => faq.getByText('No answers match your search').isVisible()).toBe(true);

    const box = page.getByRole('region', { name: 'Get In Touch' });
    await box.getByRole('button', { name: 'Get In Touch' }).click();
    await box.getByLabel('Message').fill('My VM web-1 is stuck in Starting.');
    await box.getByRole('button', { name: 'Send Message' }).click();
    await expect.poll(() => box.getByRole('button', { name: TEXT.messageSent }).isDisabled()).toBe(true);
    await screenshot(page, 'support');
    const mail = await portal.smtp.waitFor('support@northwind.example', (m) => m.text.includes('stuck in Starting'));
    expect(mail.replyTo).toContain('admin@example.com');
    // Changing the text enables sending again.
    await box.getByLabel('Message').fill('My VM web-1 is stuck in Starting. Still.');
    await expect.poll(() => box.getByRole('button', { name: 'Send Message' }).isEnabled()).toBe(true);
    // Editing back to the sent text does not bring "Message sent!" back: that text may be sent again.
    await box.getByLabel('Message').fill('My VM web-1 is stuck in Starting.');
    await expect.poll(() => box.getByRole('button', { name: 'Send Message' }).isEnabled()).toBe(true);
    expect(await box.getByRole('button', { name: TEXT.messageSent }).count()).toBe(0);
    await context.close();
  });
});
