/** A share as a percentage for the reports' tables: whole by default, 'n/a' when there was nothing to count. */
export function percent(share: number | null, decimals = 0): string {
  if (share === null) return 'n/a';
  return `${decimals === 0 ? Math.round(share * 100) : (share * 100).toFixed(decimals)}%`;
}
