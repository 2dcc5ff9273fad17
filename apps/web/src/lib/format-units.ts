/** Money and byte counts as the portal shows them (the dashboard's spend, a VM's month so far). */

/**
 * A decimal string from the API ('9.56') in the reseller's currency: "$9.56", "€9.56". The amount stays a string on
 * the wire (billing's exact cents); it is only turned into a number to be shown.
 */
export function formatMoney(amount: string, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(Number(amount));
  } catch {
    // An unknown currency code: the amount and the code as they are.
    return `${amount} ${currency}`;
  }
}

/** "1.2 GB", "340 MB", "12 KB", "0 B" (powers of 1024). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 10 || u === 0 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}
