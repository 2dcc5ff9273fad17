/** The portal's mail texts. Plain text first; the HTML mirrors it. */
import { MFA_CODE_TTL_MS } from '@portal/contract/constants';

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(brand: string, paragraphs: string[]): string {
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1f2937;max-width:560px;margin:auto;padding:24px">
<h2 style="margin:0 0 16px">${escape(brand)}</h2>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</body></html>`;
}

/** `portalRoot`: the portal the code is for, named so a user can tell a code asked for on a look-alike site. */
export function mfaCodeMail(brand: string, code: string, portalRoot?: string): Rendered {
  const minutes = Math.round(MFA_CODE_TTL_MS / 60000);
  const where = portalRoot ? `\n\nThis code is for signing in at ${portalRoot} only.` : '';
  return {
    subject: `${brand} verification code: ${code}`,
    text: `Your verification code is ${code}\n\nIt expires in ${minutes} minutes and works once. If you did not try to sign in, change your password.${where}`,
    html: layout(brand, [
      'Your verification code is',
      `<strong style="font-size:28px;letter-spacing:4px">${code}</strong>`,
      `It expires in ${minutes} minutes and works once. If you did not try to sign in, change your password.`,
      ...(portalRoot
        ? [`This code is for signing in at <a href="${escape(portalRoot)}">${escape(portalRoot)}</a> only.`]
        : []),
    ]),
  };
}

export function resetPasswordMail(brand: string, link: string): Rendered {
  return {
    subject: `${brand}: reset your password`,
    text: `Someone asked to reset the password of your ${brand} account.\n\nSet a new password here (the link works once and expires in one hour):\n${link}\n\nIf it was not you, ignore this message.`,
    html: layout(brand, [
      `Someone asked to reset the password of your ${escape(brand)} account.`,
      `<a href="${escape(link)}">Set a new password</a> (the link works once and expires in one hour).`,
      'If it was not you, ignore this message.',
    ]),
  };
}

export function inviteMail(brand: string, inviter: string, company: string, link: string): Rendered {
  return {
    subject: `You are invited to ${brand}`,
    text: `${inviter} invited you to ${company} on ${brand}.\n\nConfirm your email and choose a password here (the link expires in 7 days):\n${link}`,
    html: layout(brand, [
      `${escape(inviter)} invited you to ${escape(company)} on ${escape(brand)}.`,
      `<a href="${escape(link)}">Confirm your email and choose a password</a> (the link expires in 7 days).`,
    ]),
  };
}

export function wrongCodesMail(brand: string, failures: number): Rendered {
  const text = `Someone entered ${failures} wrong verification codes for your ${brand} account. Codes are only sent after the right password, so if this was not you, someone knows your password: change it now.`;
  return {
    subject: `${brand}: wrong sign-in codes for your account`,
    text: `${text}\n\nFor a while, sign-in codes for your account are not accepted; the pause grows with each further wrong code.`,
    html: layout(brand, [
      escape(text),
      'For a while, sign-in codes for your account are not accepted; the pause grows with each further wrong code.',
    ]),
  };
}

export function alreadyRegisteredMail(brand: string, inviter: string, company: string): Rendered {
  const text = `${inviter} tried to invite you to ${company} on ${brand}, but this address already has an account with another company, so no new account was made.`;
  return {
    subject: `${brand}: an invitation for an address that already has an account`,
    text: `${text}\n\nIf you expected to join, ask them to contact support. If not, you can ignore this message.`,
    html: layout(brand, [
      escape(text),
      'If you expected to join, ask them to contact support. If not, you can ignore this message.',
    ]),
  };
}

/**
 * A backup failed its verification (issue 24 item 3; decision 0024): to the VM's team admins. `link`: the VM's page,
 * or the company's backups when the VM is gone.
 */
export function backupVerificationFailedMail(
  brand: string,
  b: { backupName: string; vmName: string; takenAt: string; reason: string; link: string },
): Rendered {
  const what = `The backup “${b.backupName}” of the VM “${b.vmName}”, taken ${b.takenAt}, failed its verification: ${b.reason}`;
  const advice =
    'Do not rely on it for a restore. Take a new backup of the VM (it is verified in turn), then delete this one.';
  return {
    subject: `${brand}: backup “${b.backupName}” of ${b.vmName} failed its verification`,
    text: `${what}\n\n${advice}\n\n${b.link}`,
    html: layout(brand, [escape(what), escape(advice), `<a href="${escape(b.link)}">${escape(b.link)}</a>`]),
  };
}
