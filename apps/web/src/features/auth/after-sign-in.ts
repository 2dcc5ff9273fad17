/** Where a user goes once the emailed code is accepted (SPEC point 4). */
export function pathAfterSignIn(user: { forcePasswordReset: boolean }): string {
  return user.forcePasswordReset ? '/resetPassword' : '/';
}
