/** The field rules of SPEC point 5 give the spec's messages, on the portal and the server alike. */
import { describe, expect, it } from 'vitest';
import { VALIDATION } from './messages.ts';
import { allRoutes } from './routes.ts';
import {
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

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) => (r.success ? [] : r.error!.issues.map((i) => i.message));

describe('login form', () => {
  it('requires email and password with the spec messages', () => {
    expect(messages(loginFormSchema.safeParse({ email: '', password: '' }))).toEqual([VALIDATION.emailRequired, VALIDATION.passwordRequired]);
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
    expect(passwordChecklist('', '')).toEqual({ minLength: false, special: false, number: false, uppercase: false, lowercase: false, confirmed: false });
    expect(passwordChecklist('Valid-Pass-12', 'Valid-Pass-12')).toEqual({ minLength: true, special: true, number: true, uppercase: true, lowercase: true, confirmed: true });
  });
});

describe('other forms', () => {
  it('confirm email requires names', () => {
    const r = confirmEmailFormSchema.safeParse({ firstName: '', lastName: '', password: 'Valid-Pass-12', confirmPassword: 'Valid-Pass-12' });
    expect(messages(r)).toEqual([VALIDATION.firstNameRequired, VALIDATION.lastNameRequired]);
  });
  it('user edit forbids empty names and special characters', () => {
    expect(messages(userEditFormSchema.safeParse({ firstName: ' ', lastName: '' }))).toEqual([VALIDATION.firstNameEmpty, VALIDATION.lastNameEmpty]);
    expect(messages(userEditFormSchema.safeParse({ firstName: 'Ann$', lastName: 'B@d' }))).toEqual([VALIDATION.firstNameSpecial, VALIDATION.lastNameSpecial]);
    expect(userEditFormSchema.safeParse({ firstName: "Zoë-Ann", lastName: "O'Neil" }).success).toBe(true);
  });
  it('add user requires email and role', () => {
    expect(messages(addUserFormSchema.safeParse({ email: '', roleId: undefined, teamIds: [] }))).toEqual([VALIDATION.emailRequired, VALIDATION.roleRequired]);
  });
  it('MFA, team name, copies and rename', () => {
    expect(messages(mfaFormSchema.safeParse({ code: '' }))).toEqual([VALIDATION.mfaRequired]);
    expect(messages(teamNameSchema.safeParse('   '))).toEqual([VALIDATION.teamNameEmpty]);
    expect(messages(instanceCountSchema.safeParse(11))).toEqual([VALIDATION.copiesRange]);
    expect(messages(instanceCountSchema.safeParse(0))).toEqual([VALIDATION.copiesRange]);
    expect(instanceCountSchema.safeParse('10').success).toBe(true);
    expect(messages(renameSchema('web-1').safeParse({ name: ' web-1 ' }))).toEqual([VALIDATION.renameSame]);
    expect(renameSchema('web-1').safeParse({ name: 'web-2' }).success).toBe(true);
  });
});

describe('route table', () => {
  it('declares every call of SPEC point 7 once', () => {
    const keys = allRoutes().map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const expected of [
      'GET /resellers/getLogoUrl', 'POST /imports/distributer', 'POST /imports/reseller', 'POST /imports/company', 'GET /debug/debugSharktech',
      'GET /roles/userRoles', 'POST /roles/updateUserRoleForTeam', 'POST /users/register', 'POST /users/create', 'POST /users/edit',
      'POST /users/updatePassword', 'POST /users/forgotPassword', 'POST /users/resetPasswordFromEmail/:token', 'POST /users/confirmEmail/:token',
      'GET /users/list', 'GET /users/me', 'GET /users/details/:id', 'GET /users/teams/:userId', 'DELETE /users/delete/:id',
      'POST /auth/login', 'POST /auth/mfa', 'POST /auth/logout', 'POST /auth/refreshAuth', 'POST /auth/shouldResetPassword', 'GET /auth/check',
      'GET /teams/:id', 'GET /teams/list', 'POST /teams/create', 'POST /teams/update', 'POST /teams/addUser', 'DELETE /teams/removeUser', 'DELETE /teams/delete',
      'GET /permissions/list/:id', 'POST /permissions/assign',
      'POST /virtualMachines/create', 'GET /virtualMachines/list', 'GET /virtualMachines/listCountries', 'GET /virtualMachines/listConfigurations',
      'GET /virtualMachines/listRegions/:id', 'GET /virtualMachines/listCities/:id', 'GET /virtualMachines/listImages/:id', 'GET /virtualMachines/getRegion/:id',
      'GET /virtualMachines/listProviders/:regionId', 'GET /virtualMachines/fetchVirtualMachineConfigurations/:regionId',
      'GET /virtualMachines/details/:id', 'GET /virtualMachines/getAccess/:id', 'GET /virtualMachines/getAccessKey/:id', 'GET /virtualMachines/getPassword/:id',
      'GET /virtualMachines/getConsole/:id', 'PUT /virtualMachines/changeConfiguration', 'DELETE /virtualMachines/delete/:id',
      'POST /virtualMachines/start/:id', 'POST /virtualMachines/stop/:id', 'POST /virtualMachines/reset/:id', 'PUT /virtualMachines/edit/:id',
      'GET /virtualMachines/GetDashboardData', 'POST /profiling/loadcpu', 'GET /healthCheck/api', 'GET /healthCheck/database', 'GET /healthCheck/remoteAPI',
      'POST /logging', 'POST /support/sendEmail',
    ]) {
      expect(keys).toContain(expected);
    }
  });
});
