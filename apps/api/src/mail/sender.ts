/** The From of mail sent for a reseller's user: the reseller's address and name, else the portal's fallback. */
export function senderOf(
  user: { resellerEmail: string | null; resellerName: string | null },
  fallback: string,
): string {
  const address = user.resellerEmail ?? fallback;
  return user.resellerName ? `"${user.resellerName.replace(/"/g, '')}" <${address}>` : address;
}
