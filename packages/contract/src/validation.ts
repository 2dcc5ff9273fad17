/**
 * Field rules of SPEC point 5. The portal's forms and the server's request bodies use the same
 * schemas, so a rule and its message are written once.
 */
import './zod-setup.ts';
import { z } from 'zod';
import {
  INSTANCE_COUNT_MAX,
  INSTANCE_COUNT_MIN,
  LIMITS,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PG_INT_MAX,
} from './constants.ts';
import { VALIDATION } from './messages.ts';

/* eslint-disable no-control-regex -- these patterns exist to find control characters */

/** The "simple email pattern": something@something.tld, no spaces and no control characters. */
export const EMAIL_PATTERN = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+\.[^\s@\u0000-\u001f\u007f]+$/;
/**
 * One-line text (names, search, ids from outside, URLs): no C0 control character and no DEL.
 * PostgreSQL refuses NUL in text outright, and the others have no place in such a field.
 */
export const SINGLE_LINE_PATTERN = /^[^\u0000-\u001f\u007f]*$/;
/** Free text (support message, client log text): tabs and line breaks are fine, other control characters are not. */
export const MULTI_LINE_PATTERN = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;
/* eslint-enable no-control-regex */

/** A database id in a form (a number, not coerced): 1..PG_INT_MAX, so an overflow is a 400 rather than a database error. */
export const formIdSchema = z
  .number({ error: 'Id must be a number' })
  .int('Id must be a whole number')
  .positive('Id must be positive')
  .max(PG_INT_MAX, VALIDATION.idTooLarge);
/** Punctuation accepted as the "special character" of a password. */
export const SPECIAL_CHARACTERS = `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;
const SPECIAL_RE = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/;
/** Names may hold letters (any script), spaces, apostrophes, hyphens and dots. */
const NAME_RE = /^[\p{L}\p{M}' .-]+$/u;

/** True when the text contains one of the special characters (SPEC point 5's helper). */
export function hasSpecialCharacter(text: string): boolean {
  return SPECIAL_RE.test(text);
}

/** The live checklist under a new password. */
export function passwordChecklist(password: string, confirm: string) {
  return {
    minLength: password.length >= PASSWORD_MIN_LENGTH,
    special: SPECIAL_RE.test(password),
    number: /\d/.test(password),
    uppercase: /[A-Z]/.test(password),
    lowercase: /[a-z]/.test(password),
    confirmed: password.length > 0 && password === confirm,
  };
}

export const CHECKLIST_LABELS = {
  minLength: 'Minimum 12 characters',
  special: 'Special character',
  number: 'Contains number',
  uppercase: 'Uppercase letter',
  lowercase: 'Lowercase letter',
  confirmed: 'Password confirmed',
} as const;

export const loginEmailSchema = z
  .string({ error: VALIDATION.emailRequired })
  .trim()
  .min(1, { error: VALIDATION.emailRequired, abort: true })
  .max(LIMITS.email, VALIDATION.emailFormat)
  .regex(EMAIL_PATTERN, VALIDATION.emailFormat);

export const newPasswordSchema = z
  .string({ error: VALIDATION.passwordRequired })
  .min(1, { error: VALIDATION.passwordRequired, abort: true })
  .min(PASSWORD_MIN_LENGTH, VALIDATION.passwordMin)
  .max(PASSWORD_MAX_LENGTH, VALIDATION.passwordMax)
  // eslint-disable-next-line no-control-regex
  .refine((p) => !/[\u0000-\u001f\u007f-\u009f]/.test(p), { error: VALIDATION.controlCharacters, abort: true })
  .refine(
    (p) => /\d/.test(p) && SPECIAL_RE.test(p) && /[A-Z]/.test(p) && /[a-z]/.test(p) && !/\s/.test(p),
    VALIDATION.passwordComplexity,
  );

/** A password being checked at sign-in: any non-empty string, bounded so hashing stays cheap. */
export const passwordInputSchema = z
  .string({ error: VALIDATION.passwordRequired })
  .min(1, { error: VALIDATION.passwordRequired, abort: true })
  .max(1024, VALIDATION.passwordRequired);

const nameSchema = (empty: string, special: string) =>
  z
    .string({ error: empty })
    .trim()
    .min(1, { error: empty, abort: true })
    .max(LIMITS.name, special)
    .regex(NAME_RE, special);

export const firstNameSchema = nameSchema(VALIDATION.firstNameEmpty, VALIDATION.firstNameSpecial);
export const lastNameSchema = nameSchema(VALIDATION.lastNameEmpty, VALIDATION.lastNameSpecial);

export const loginFormSchema = z.object({
  email: loginEmailSchema,
  password: passwordInputSchema,
  rememberMe: z.boolean().optional(),
});

export const forgotPasswordFormSchema = z.object({
  email: z
    .string({ error: VALIDATION.forgotEmailRequired })
    .trim()
    .min(1, { error: VALIDATION.forgotEmailRequired, abort: true })
    .max(LIMITS.email, VALIDATION.forgotEmailFormat)
    .regex(EMAIL_PATTERN, VALIDATION.forgotEmailFormat),
});

export const mfaFormSchema = z.object({
  code: z
    .string({ error: VALIDATION.mfaRequired })
    .trim()
    .min(1, { error: VALIDATION.mfaRequired, abort: true })
    .max(32, 'Invalid MFA code'),
});

const passwordsMatch = (v: { password: string; confirmPassword: string }) => v.password === v.confirmPassword;
const mismatch = { message: VALIDATION.passwordMismatch, path: ['confirmPassword'] };

export const resetPasswordFormSchema = z
  .object({ password: newPasswordSchema, confirmPassword: z.string() })
  .refine(passwordsMatch, mismatch);

export const confirmEmailFormSchema = z
  .object({
    firstName: z
      .string()
      .trim()
      .min(1, { error: VALIDATION.firstNameRequired, abort: true })
      .max(LIMITS.name)
      .regex(NAME_RE, VALIDATION.firstNameSpecial),
    lastName: z
      .string()
      .trim()
      .min(1, { error: VALIDATION.lastNameRequired, abort: true })
      .max(LIMITS.name)
      .regex(NAME_RE, VALIDATION.lastNameSpecial),
    password: newPasswordSchema,
    confirmPassword: z.string(),
  })
  .refine(passwordsMatch, mismatch);

export const addUserFormSchema = z.object({
  email: loginEmailSchema,
  roleId: z
    .number({ error: VALIDATION.roleRequired })
    .int()
    .positive(VALIDATION.roleRequired)
    .max(PG_INT_MAX, VALIDATION.idTooLarge),
  teamIds: z.array(formIdSchema).max(100),
});

export const userEditFormSchema = z.object({
  firstName: firstNameSchema,
  lastName: lastNameSchema,
});

export const teamNameSchema = z
  .string({ error: VALIDATION.teamNameEmpty })
  .trim()
  .min(1, { error: VALIDATION.teamNameEmpty, abort: true })
  .max(LIMITS.name, 'Team name must not exceed 100 characters')
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters);

/** A VM name: trimmed, 1–63 characters a hostname-ish name allows; `emptyMessage` when blank. */
const vmName = (emptyMessage: string) =>
  z
    .string({ error: emptyMessage })
    .trim()
    .min(1, { error: emptyMessage, abort: true })
    .max(63, 'Name must not exceed 63 characters')
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'Name may contain letters, numbers, spaces, dots, dashes and underscores');

export const vmNameSchema = vmName(VALIDATION.fillEmptyFields);

export const instanceCountSchema = z.coerce
  .number({ error: VALIDATION.copiesRange })
  .int(VALIDATION.copiesRange)
  .min(INSTANCE_COUNT_MIN, VALIDATION.copiesRange)
  .max(INSTANCE_COUNT_MAX, VALIDATION.copiesRange);

/** Rename rule: non-empty after trimming and different from the current name. */
export function renameSchema(currentName: string) {
  return z.object({
    name: vmName(VALIDATION.renameEmpty).refine((n) => n !== currentName.trim(), VALIDATION.renameSame),
  });
}

export const consoleUrlSchema = z
  .string({ error: VALIDATION.invalidConsoleUrl })
  .min(1, { error: VALIDATION.invalidConsoleUrl, abort: true });
