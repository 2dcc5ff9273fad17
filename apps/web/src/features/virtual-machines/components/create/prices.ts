/**
 * The create form's prices (issue 25 item 3): the reseller's catalog amounts arrive as decimal strings (numeric(12,2)
 * monthly, numeric(12,5) hourly: never floats) and are multiplied by the number of copies exactly, in the string's
 * own decimals, before they are shown.
 */

/** `amount` × `times` exactly ('0.00685' × 3 = '0.02055'); null for an amount that is not a plain decimal. */
export function timesDecimal(amount: string, times: number): string | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m || !Number.isInteger(times) || times < 0) return null;
  const places = m[2]?.length ?? 0;
  const digits = (BigInt(m[1]! + (m[2] ?? '')) * BigInt(times)).toString().padStart(places + 1, '0');
  return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/**
 * A catalog amount in the reseller's currency ("$5.00", "€0.00685"): at least 2 decimals, and as many more as the
 * amount has (an hourly price keeps its fifth decimal, so what is shown is what billing charges), never rounded.
 */
export function formatPrice(amount: string, currency: string): string {
  const decimals = Math.min(Math.max(/\.(\d*?)0*$/.exec(amount)?.[1]?.length ?? 0, 2), 5);
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    }).format(Number(amount));
  } catch {
    // A currency code Intl does not know: the amount and the code as they are.
    return `${amount} ${currency}`;
  }
}
