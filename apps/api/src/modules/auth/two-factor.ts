/**
 * Authenticator apps (TOTP, RFC 6238) and their recovery codes (issue 26 item 1; docs/two-factor.md).
 * The secret is sealed at rest; a code is accepted in its time step or one either side, once (the last
 * accepted step is stored and a code of that step or an earlier one is refused); recovery codes are keyed
 * hashes, each used once. otplib computes the codes; the window and the replay rule are ours.
 */
import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { generateSecret, generateSync, generateURI } from 'otplib';
import QRCode from 'qrcode';
import {
  RECOVERY_CODE_COUNT,
  TOTP_PERIOD_SECONDS,
  TOTP_WINDOW_STEPS,
  TWO_FACTOR_TEXT,
  type TwoFactorStatus,
} from '@portal/contract/two-factor';
import { COMPANY_POLICY_TEXT, RESELLER_POLICY_TEXT } from '@portal/contract/company-policy';
import type { Db } from '../../db/client.ts';
import { companies, userPasskeys, userRecoveryCodes, userTotp } from '../../db/schema.ts';
import { requiringPolicy } from '../../db/strong-factor.ts';
import type { Audit } from '../../lib/audit.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedHash, safeEqual, type Random } from '../../lib/crypto.ts';
import { BadRequestError, ConflictError, ForbiddenError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import { createSecretBox } from '../../lib/ssh-keys.ts';
import type { IdentityRepository } from './identity.repository.ts';

export interface TwoFactorDeps {
  db: Db;
  identity: IdentityRepository;
  clock: Clock;
  random: Random;
  secret: string;
  audit?: Audit;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A recovery code as typed: case, spaces and dashes do not matter. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export function createTwoFactor(deps: TwoFactorDeps) {
  const { db, clock } = deps;
  const box = createSecretBox(deps.secret);
  const recoveryHash = (userId: number, code: string) =>
    keyedHash(deps.secret, `recovery:${userId}:${normaliseRecoveryCode(code)}`);

  function newRecoveryCode(): string {
    const bytes = Buffer.from(deps.random.token(10), 'base64url');
    const chars = Array.from(bytes.subarray(0, 10), (b) => BASE32[b % 32]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  }

  /** The time step a 6-digit code belongs to, within the window around now; null when none. */
  function matchingStep(secret: string, code: string): number | null {
    if (!/^\d{6}$/.test(code)) return null;
    const now = Math.floor(clock.now().getTime() / 1000 / TOTP_PERIOD_SECONDS);
    for (let d = -TOTP_WINDOW_STEPS; d <= TOTP_WINDOW_STEPS; d++) {
      const step = now + d;
      if (safeEqual(generateSync({ secret, epoch: step * TOTP_PERIOD_SECONDS }), code)) return step;
    }
    return null;
  }

  async function row(userId: number) {
    const [r] = await db.select().from(userTotp).where(eq(userTotp.userId, userId));
    return r;
  }

  /**
   * A current code of the user's enabled authenticator, taken atomically: its step becomes the last used one,
   * so the same code (or one of an earlier step) is refused from then on.
   */
  async function takeTotp(userId: number, code: string): Promise<boolean> {
    const r = await row(userId);
    if (!r?.enabledAt) return false;
    const step = matchingStep(box.open(r.secretSealed), code);
    if (step === null) return false;
    const taken = await db
      .update(userTotp)
      .set({ lastUsedStep: step })
      .where(
        and(
          eq(userTotp.userId, userId),
          isNotNull(userTotp.enabledAt),
          or(isNull(userTotp.lastUsedStep), lt(userTotp.lastUsedStep, step)),
        ),
      )
      .returning({ userId: userTotp.userId });
    return taken.length === 1;
  }

  /** Marks an unused recovery code of the user used (atomically); false when none matches. */
  async function takeRecoveryCode(userId: number, code: string): Promise<boolean> {
    const used = await db
      .update(userRecoveryCodes)
      .set({ usedAt: clock.now() })
      .where(
        and(
          eq(userRecoveryCodes.userId, userId),
          eq(userRecoveryCodes.codeHash, recoveryHash(userId, code)),
          isNull(userRecoveryCodes.usedAt),
        ),
      )
      .returning({ id: userRecoveryCodes.id });
    return used.length === 1;
  }

  async function replaceRecoveryCodes(userId: number): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await db.transaction(async (tx) => {
      await tx.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, userId));
      await tx.insert(userRecoveryCodes).values(codes.map((c) => ({ userId, codeHash: recoveryHash(userId, c) })));
    });
    return codes;
  }

  async function record(auth: { userId: number; companyId: number }, action: string): Promise<void> {
    await deps.audit?.record({
      companyId: auth.companyId,
      actorUserId: auth.userId,
      action,
      targetType: 'user',
      targetId: auth.userId,
    });
  }

  return {
    /** A current code of the user's app, taken (no recovery code): removing a passkey accepts it. */
    takeCode: takeTotp,

    /** Whether sign-in asks this user for an authenticator code. */
    async isEnabled(userId: number): Promise<boolean> {
      return Boolean((await row(userId))?.enabledAt);
    },

    /**
     * The sign-in's second step for a user with an authenticator: a current code, else a recovery code.
     * Answers what was accepted, or null.
     */
    async verifySignIn(user: { id: number; companyId: number }, code: string): Promise<'totp' | 'recovery' | null> {
      const typed = code.trim();
      if (await takeTotp(user.id, typed)) return 'totp';
      if (/^\d{6}$/.test(typed)) return null;
      if (await takeRecoveryCode(user.id, typed)) {
        await record({ userId: user.id, companyId: user.companyId }, 'user.twoFactor.recoveryCodeUsed');
        return 'recovery';
      }
      return null;
    },

    async status(auth: AuthContext): Promise<TwoFactorStatus> {
      const r = await row(auth.userId);
      const [left] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(userRecoveryCodes)
        .where(and(eq(userRecoveryCodes.userId, auth.userId), isNull(userRecoveryCodes.usedAt)));
      const enabled = Boolean(r?.enabledAt);
      return {
        enabled,
        enabledAt: r?.enabledAt ? iso(r.enabledAt) : null,
        recoveryCodesLeft: enabled ? (left?.n ?? 0) : 0,
      };
    },

    /** A new secret, not in force until confirmed (a started one not yet confirmed is replaced). */
    async start(auth: AuthContext): Promise<{ secret: string; uri: string; qrCode: string }> {
      const existing = await row(auth.userId);
      if (existing?.enabledAt) throw new ConflictError(TWO_FACTOR_TEXT.alreadyEnabled);
      const user = await deps.identity.byId(auth.userId);
      const secret = generateSecret();
      const sealed = box.seal(secret);
      await db
        .insert(userTotp)
        .values({ userId: auth.userId, secretSealed: sealed, createdAt: clock.now() })
        .onConflictDoUpdate({
          target: userTotp.userId,
          set: { secretSealed: sealed, enabledAt: null, lastUsedStep: null, createdAt: clock.now() },
          // Never over an enabled one (a start racing a confirm).
          setWhere: isNull(userTotp.enabledAt),
        });
      const uri = generateURI({
        issuer: user?.resellerName ?? 'Portal',
        label: auth.email,
        secret,
        period: TOTP_PERIOD_SECONDS,
      });
      const svg = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      return { secret, uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
    },

    /** Turns the started authenticator on with a current code; answers the new recovery codes. */
    async confirm(auth: AuthContext, code: string): Promise<string[]> {
      const r = await row(auth.userId);
      if (!r) throw new BadRequestError(TWO_FACTOR_TEXT.notStarted);
      if (r.enabledAt) throw new ConflictError(TWO_FACTOR_TEXT.alreadyEnabled);
      const step = matchingStep(box.open(r.secretSealed), code.trim());
      if (step === null) throw new BadRequestError(TWO_FACTOR_TEXT.wrongCode);
      // The confirming code is spent: it cannot sign in afterwards.
      const on = await db
        .update(userTotp)
        .set({ enabledAt: clock.now(), lastUsedStep: step })
        .where(and(eq(userTotp.userId, auth.userId), isNull(userTotp.enabledAt)))
        .returning({ userId: userTotp.userId });
      if (on.length !== 1) throw new ConflictError(TWO_FACTOR_TEXT.alreadyEnabled);
      const codes = await replaceRecoveryCodes(auth.userId);
      await record(auth, 'user.twoFactor.enable');
      return codes;
    },

    async regenerateRecoveryCodes(auth: AuthContext, code: string): Promise<string[]> {
      if (!(await row(auth.userId))?.enabledAt) throw new BadRequestError(TWO_FACTOR_TEXT.notEnabled);
      if (!(await takeTotp(auth.userId, code.trim()))) throw new BadRequestError(TWO_FACTOR_TEXT.wrongCode);
      const codes = await replaceRecoveryCodes(auth.userId);
      await record(auth, 'user.twoFactor.recoveryCodes');
      return codes;
    },

    /** Removes the authenticator (a current code or the password); sign-in goes back to the emailed code. */
    async remove(auth: AuthContext, proof: { code?: string | undefined; password?: string | undefined }) {
      if (!(await row(auth.userId))?.enabledAt) throw new BadRequestError(TWO_FACTOR_TEXT.notEnabled);
      const [company] = await db
        .select({ requireAuthenticator: companies.requireAuthenticator })
        .from(companies)
        .where(eq(companies.id, auth.companyId));
      if (company?.requireAuthenticator) throw new ForbiddenError(COMPANY_POLICY_TEXT.cannotRemove);
      // The reseller's staff policy keeps the last strong factor: the app goes only if a passkey stays.
      if ((await requiringPolicy(db, auth.userId)) === 'staff') {
        const [passkey] = await db
          .select({ id: userPasskeys.id })
          .from(userPasskeys)
          .where(eq(userPasskeys.userId, auth.userId))
          .limit(1);
        if (!passkey) throw new ForbiddenError(RESELLER_POLICY_TEXT.lastStrongFactor);
      }
      let ok = false;
      if (proof.code) ok = await takeTotp(auth.userId, proof.code.trim());
      if (!ok && proof.password) {
        const user = await deps.identity.byId(auth.userId);
        ok = Boolean(user?.passwordHash && (await verifyPassword(user.passwordHash, proof.password)));
      }
      if (!ok) throw new BadRequestError(TWO_FACTOR_TEXT.wrongCodeOrPassword);
      await db.transaction(async (tx) => {
        await tx.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, auth.userId));
        await tx.delete(userTotp).where(eq(userTotp.userId, auth.userId));
      });
      await record(auth, 'user.twoFactor.remove');
    },
  };
}
export type TwoFactor = ReturnType<typeof createTwoFactor>;
