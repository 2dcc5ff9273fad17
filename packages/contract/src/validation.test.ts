/** The field rules of SPEC point 5 give the spec's messages, on the portal and the server alike. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { authRoutes, passwordRoutes } from './auth.ts';
import { idSchema, listQuerySchema, pageQueryFields } from './common.ts';
import { PG_INT_MAX } from './constants.ts';
import { VALIDATION } from './messages.ts';
import {
  companyImportRowSchema,
  distributorImportRowSchema,
  platformRoutes,
  resellerImportRowSchema,
} from './platform.ts';
import { allRoutes } from './routes.ts';
import { teamsRoutes, usersRoutes } from './teams.ts';
import { createVmBodySchema, vmRoutes } from './virtual-machines.ts';
import {
  EMAIL_PATTERN,
  addUserFormSchema,
  confirmEmailFormSchema,
  forgotPasswordFormSchema,
  instanceCountSchema,
  loginFormSchema,
  mfaFormSchema,
  newPasswordSchema,
  passwordChecklist,
  renameSchema,
  resetPasswordFormSchema,
  teamNameSchema,
  userEditFormSchema,
} from './validation.ts';

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

describe('login form', () => {
  it('requires email and password with the spec messages', () => {
    expect(messages(loginFormSchema.safeParse({ email: '', password: '' }))).toEqual([
      VALIDATION.emailRequired,
      VALIDATION.passwordRequired,
    ]);
    expect(messages(loginFormSchema.safeParse({ email: 'nope', password: 'x' }))).toEqual([VALIDATION.emailFormat]);
    expect(loginFormSchema.safeParse({ email: 'a@b.co', password: 'x' }).success).toBe(true);
  });
});

describe('forgot password', () => {
  it('uses its own messages', () => {
    expect(messages(forgotPasswordFormSchema.safeParse({ email: '' }))).toEqual([VALIDATION.forgotEmailRequired]);
    expect(messages(forgotPasswordFormSchema.safeParse({ email: 'a@b' }))).toEqual([VALIDATION.forgotEmailFormat]);
  });
});

describe('new password', () => {
  it.each([
    ['', VALIDATION.passwordRequired],
    ['Aa1!short', VALIDATION.passwordMin],
    [`Aa1!${'x'.repeat(47)}`, VALIDATION.passwordMax],
    ['alllowercase1!', VALIDATION.passwordComplexity],
    ['NoDigitsHere!!', VALIDATION.passwordComplexity],
    ['NoSpecials1234', VALIDATION.passwordComplexity],
    ['Has Space-1234', VALIDATION.passwordComplexity],
  ])('rejects %j with %s', (password, message) => {
    expect(messages(newPasswordSchema.safeParse(password))).toContain(message);
  });

  it('accepts 12 to 50 characters with digit, special, upper and lower case', () => {
    expect(newPasswordSchema.safeParse('Valid-Pass-12').success).toBe(true);
    expect(newPasswordSchema.safeParse(`Aa1!${'x'.repeat(46)}`).success).toBe(true);
  });

  it('reports a mismatch on the confirmation', () => {
    const r = resetPasswordFormSchema.safeParse({ password: 'Valid-Pass-12', confirmPassword: 'Other-Pass-12' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ message: VALIDATION.passwordMismatch, path: ['confirmPassword'] });
  });

  it('drives the live checklist', () => {
    expect(passwordChecklist('', '')).toEqual({
      minLength: false,
      special: false,
      number: false,
      uppercase: false,
      lowercase: false,
      confirmed: false,
    });
    expect(passwordChecklist('Valid-Pass-12', 'Valid-Pass-12')).toEqual({
      minLength: true,
      special: true,
      number: true,
      uppercase: true,
      lowercase: true,
      confirmed: true,
    });
  });
});

describe('other forms', () => {
  it('confirm email requires names', () => {
    const r = confirmEmailFormSchema.safeParse({
      firstName: '',
      lastName: '',
      password: 'Valid-Pass-12',
      confirmPassword: 'Valid-Pass-12',
    });
    expect(messages(r)).toEqual([VALIDATION.firstNameRequired, VALIDATION.lastNameRequired]);
  });
  it('user edit forbids empty names and special characters', () => {
    expect(messages(userEditFormSchema.safeParse({ firstName: ' ', lastName: '' }))).toEqual([
      VALIDATION.firstNameEmpty,
      VALIDATION.lastNameEmpty,
    ]);
    expect(messages(userEditFormSchema.safeParse({ firstName: 'Ann$', lastName: 'B@d' }))).toEqual([
      VALIDATION.firstNameSpecial,
      VALIDATION.lastNameSpecial,
    ]);
    expect(userEditFormSchema.safeParse({ firstName: 'Zoë-Ann', lastName: "O'Neil" }).success).toBe(true);
  });
  it('add user requires email and role', () => {
    expect(messages(addUserFormSchema.safeParse({ email: '', roleId: undefined, teamIds: [] }))).toEqual([
      VALIDATION.emailRequired,
      VALIDATION.roleRequired,
    ]);
  });
  it('MFA, team name, copies and rename', () => {
    expect(messages(mfaFormSchema.safeParse({ code: '' }))).toEqual([VALIDATION.mfaRequired]);
    expect(messages(teamNameSchema.safeParse('   '))).toEqual([VALIDATION.teamNameEmpty]);
    expect(messages(instanceCountSchema.safeParse(11))).toEqual([VALIDATION.copiesRange]);
    expect(messages(instanceCountSchema.safeParse(0))).toEqual([VALIDATION.copiesRange]);
    expect(instanceCountSchema.safeParse('10').success).toBe(true);
    expect(messages(renameSchema('web-1').safeParse({ name: ' web-1 ' }))).toEqual([VALIDATION.renameSame]);
    expect(messages(renameSchema('web-1').safeParse({ name: '   ' }))).toEqual([VALIDATION.renameEmpty]);
    expect(renameSchema('web-1').safeParse({ name: 'web-2' }).success).toBe(true);
  });
});

describe('route table', () => {
  it('declares every call of SPEC point 7 once', () => {
    const keys = allRoutes().map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const expected of [
      'GET /resellers/getLogoUrl',
      'POST /imports/distributer',
      'POST /imports/reseller',
      'POST /imports/company',
      'GET /debug/debugSharktech',
      'GET /roles/userRoles',
      'POST /roles/updateUserRoleForTeam',
      'POST /users/register',
      'POST /users/create',
      'POST /users/edit',
      'POST /users/updatePassword',
      'POST /users/forgotPassword',
      'POST /users/resetPasswordFromEmail/:token',
      'POST /users/confirmEmail/:token',
      'GET /users/list',
      'GET /users/me',
      'GET /users/details/:id',
      'GET /users/teams/:userId',
      'DELETE /users/delete/:id',
      'POST /auth/login',
      'POST /auth/mfa',
      'POST /auth/logout',
      'POST /auth/refreshAuth',
      'POST /auth/shouldResetPassword',
      'GET /auth/check',
      'GET /teams/:id',
      'GET /teams/list',
      'POST /teams/create',
      'POST /teams/update',
      'POST /teams/addUser',
      'DELETE /teams/removeUser',
      'DELETE /teams/delete',
      'GET /permissions/list/:id',
      'POST /permissions/assign',
      'POST /virtualMachines/create',
      'GET /virtualMachines/list',
      'GET /virtualMachines/listCountries',
      'GET /virtualMachines/listConfigurations',
      'GET /virtualMachines/listRegions/:id',
      'GET /virtualMachines/listCities/:id',
      'GET /virtualMachines/listImages/:id',
      'GET /virtualMachines/getRegion/:id',
      'GET /virtualMachines/listProviders/:regionId',
      'GET /virtualMachines/fetchVirtualMachineConfigurations/:regionId',
      'GET /virtualMachines/details/:id',
      'GET /virtualMachines/getAccess/:id',
      'GET /virtualMachines/getAccessKey/:id',
      'GET /virtualMachines/getPassword/:id',
      'GET /virtualMachines/getConsole/:id',
      'PUT /virtualMachines/changeConfiguration',
      'DELETE /virtualMachines/delete/:id',
      'POST /virtualMachines/start/:id',
      'POST /virtualMachines/stop/:id',
      'POST /virtualMachines/reset/:id',
      'PUT /virtualMachines/edit/:id',
      'GET /virtualMachines/GetDashboardData',
      'POST /profiling/loadcpu',
      'GET /healthCheck/api',
      'GET /healthCheck/database',
      'GET /healthCheck/remoteAPI',
      'POST /logging',
      'POST /support/sendEmail',
    ]) {
      expect(keys).toContain(expected);
    }
  });
});

const NUL = '\u0000';
const ok = (r: { success: boolean }) => r.success;

describe('control characters (PostgreSQL refuses NUL in text)', () => {
  it('the email pattern refuses them, with the spec message', () => {
    for (const email of [`a${NUL}@b.co`, `a@b.co${NUL}`, 'a@b\u0007.co', 'a\u007f@b.co', 'a@b.co\u001b']) {
      expect(EMAIL_PATTERN.test(email), JSON.stringify(email)).toBe(false);
      expect(messages(loginFormSchema.safeParse({ email, password: 'x' }))).toEqual([VALIDATION.emailFormat]);
    }
    expect(messages(forgotPasswordFormSchema.safeParse({ email: `a${NUL}@b.co` }))).toEqual([
      VALIDATION.forgotEmailFormat,
    ]);
    expect(messages(addUserFormSchema.safeParse({ email: `a${NUL}@b.co`, roleId: 2, teamIds: [] }))).toEqual([
      VALIDATION.emailFormat,
    ]);
    expect(EMAIL_PATTERN.test('zoë.o-neil+tag@example.co.uk')).toBe(true);
    expect(messages(passwordRoutes.forgotPassword.body.safeParse({ email: `a@b.co${NUL}` }))).toEqual([
      VALIDATION.controlCharacters,
    ]);
    expect(ok(authRoutes.login.body.safeParse({ email: `a${NUL}@b.co`, password: 'x' }))).toBe(false);
  });

  it('list search refuses them on every list', () => {
    expect(messages(listQuerySchema.safeParse({ search: `ad${NUL}min` }))).toEqual([VALIDATION.controlCharacters]);
    expect(messages(z.object(pageQueryFields).safeParse({ search: 'a\tb' }))).toEqual([VALIDATION.controlCharacters]);
    expect(ok(vmRoutes.list.query.safeParse({ search: NUL }))).toBe(false);
    expect(listQuerySchema.parse({ search: "  Zoë O'Neil  " }).search).toBe("Zoë O'Neil");
  });

  it('team names, VM names and images refuse them', () => {
    expect(messages(teamNameSchema.safeParse(`Ops${NUL}`))).toEqual([VALIDATION.controlCharacters]);
    expect(messages(teamNameSchema.safeParse('Ops\nTeam'))).toEqual([VALIDATION.controlCharacters]);
    expect(ok(teamsRoutes.update.body.safeParse({ teamId: 1, name: `x${NUL}` }))).toBe(false);
    expect(teamNameSchema.safeParse('  Ops – Team  ').success).toBe(true);
    const vm = {
      regionId: 1,
      image: 'ubuntu-24.04',
      configurationId: 1,
      providerId: 1,
      name: 'web-1',
      numberOfInstances: 1,
    };
    expect(createVmBodySchema.safeParse(vm).success).toBe(true);
    expect(messages(createVmBodySchema.safeParse({ ...vm, image: `ubuntu${NUL}` }))).toEqual([
      VALIDATION.controlCharacters,
    ]);
    expect(ok(createVmBodySchema.safeParse({ ...vm, name: `web${NUL}` }))).toBe(false);
    expect(ok(renameSchema('web-1').safeParse({ name: `web${NUL}2` }))).toBe(false);
    expect(messages(vmRoutes.fetchConfigurations.query.safeParse({ image: `u${NUL}` }))).toEqual([
      VALIDATION.controlCharacters,
    ]);
  });

  it('names on invitation refuse them', () => {
    const body = { password: 'Valid-Pass-12', resetKey: 'k'.repeat(40), firstName: `Ada${NUL}`, lastName: 'Lovelace' };
    expect(messages(passwordRoutes.confirmEmail.body.safeParse(body))).toEqual([VALIDATION.controlCharacters]);
    expect(ok(userEditFormSchema.safeParse({ firstName: `Ada${NUL}`, lastName: 'B' }))).toBe(false);
  });

  it('the support message and client log text keep tabs and line breaks, nothing else', () => {
    const support = platformRoutes.sendSupportEmail.body;
    expect(support.safeParse({ message: 'Line one\r\n\tLine two\n' }).success).toBe(true);
    for (const message of [`Help${NUL}`, 'bell\u0007', 'esc\u001b[31m', 'del\u007f', 'vt\u000bx', 'ff\u000cx']) {
      expect(messages(support.safeParse({ message })), JSON.stringify(message)).toEqual([VALIDATION.controlCharacters]);
    }
    const logging = platformRoutes.logging.body;
    expect(
      logging.safeParse({
        message: 'boom\nmore',
        stack: 'Error: boom\n\tat f (a.js:1:1)',
        url: 'https://x.example/a',
        userAgent: 'UA/1.0',
      }).success,
    ).toBe(true);
    expect(ok(logging.safeParse({ message: `boom${NUL}` }))).toBe(false);
    expect(ok(logging.safeParse({ message: 'boom', stack: `at${NUL}` }))).toBe(false);
    expect(ok(logging.safeParse({ message: 'boom', url: 'https://x.example/\na' }))).toBe(false);
    expect(ok(logging.safeParse({ message: 'boom', userAgent: `UA${NUL}` }))).toBe(false);
  });

  it('import rows refuse them in every text field', () => {
    const base = { externalId: 'd-1', name: 'Dist' };
    expect(distributorImportRowSchema.safeParse(base).success).toBe(true);
    for (const row of [
      { ...base, externalId: `d${NUL}1` },
      { ...base, name: `Dist${NUL}` },
      { ...base, logoUrl: `https://x.example/${NUL}.png` },
      { ...base, email: `a${NUL}@b.co` },
      { ...base, supportEmail: `a@b.co${NUL}` },
    ]) {
      expect(distributorImportRowSchema.safeParse(row).success, JSON.stringify(row)).toBe(false);
    }
    expect(ok(resellerImportRowSchema.safeParse({ ...base, distributorExternalId: `d${NUL}` }))).toBe(false);
    expect(ok(companyImportRowSchema.safeParse({ externalId: 'c-1', name: 'Co', resellerExternalId: `r${NUL}` }))).toBe(
      false,
    );
    expect(
      ok(companyImportRowSchema.safeParse({ externalId: 'c-1', name: `Co${NUL}`, resellerExternalId: 'r-1' })),
    ).toBe(false);
    expect(companyImportRowSchema.safeParse({ externalId: 'c-1', name: 'Co', resellerExternalId: 'r-1' }).success).toBe(
      true,
    );
  });
});

describe('ids are bounded to the PostgreSQL int range', () => {
  it('idSchema takes 1..2147483647 from paths, queries and bodies', () => {
    expect(PG_INT_MAX).toBe(2147483647);
    expect(idSchema.parse(String(PG_INT_MAX))).toBe(PG_INT_MAX);
    expect(idSchema.parse(1)).toBe(1);
    for (const bad of [PG_INT_MAX + 1, '2147483648', '99999999999999999999', 1e20, 0, -1, 1.5, 'abc', Infinity]) {
      expect(idSchema.safeParse(bad).success, String(bad)).toBe(false);
    }
    expect(messages(idSchema.safeParse(PG_INT_MAX + 1))).toEqual([VALIDATION.idTooLarge]);
  });

  it('invite teamIds and roleId are bounded too', () => {
    expect(addUserFormSchema.safeParse({ email: 'a@b.co', roleId: 2, teamIds: [1, PG_INT_MAX] }).success).toBe(true);
    expect(messages(addUserFormSchema.safeParse({ email: 'a@b.co', roleId: 2, teamIds: [PG_INT_MAX + 1] }))).toEqual([
      VALIDATION.idTooLarge,
    ]);
    expect(messages(addUserFormSchema.safeParse({ email: 'a@b.co', roleId: PG_INT_MAX + 1, teamIds: [] }))).toEqual([
      VALIDATION.idTooLarge,
    ]);
    expect(ok(addUserFormSchema.safeParse({ email: 'a@b.co', roleId: 2, teamIds: [0] }))).toBe(false);
    expect(ok(addUserFormSchema.safeParse({ email: 'a@b.co', roleId: 2, teamIds: [1.5] }))).toBe(false);
    expect(ok(usersRoutes.create.body.safeParse({ email: 'a@b.co', roleId: 2, teamIds: [1e20] }))).toBe(false);
  });

  it('every id field of every route refuses an overflow', () => {
    // Walk each route's params, query and body for fields named like ids and try the first value past the range.
    const idKey = /(^id$|Id$)/;
    let checked = 0;
    for (const r of allRoutes()) {
      for (const part of ['params', 'query', 'body'] as const) {
        const schema = r[part];
        if (!(schema instanceof z.ZodObject)) continue;
        for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
          if (!idKey.test(key)) continue;
          const result = field.safeParse(PG_INT_MAX + 1);
          expect(result.success, `${r.method} ${r.path} ${part}.${key}`).toBe(false);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
