const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/**
 * A size for people, in binary units (as `du -h`): bytes below 1 KiB, then KiB, MiB, GiB or TiB with one
 * decimal where it says something ("1.5 GiB") and none where it would be ".0" ("8 MiB", a cap as configured).
 *
 * @example formatBytes(64 * 1024 * 1024) // "64 MiB"
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const tenths = (value: number) => Math.round(value * 10) / 10;
  let value = bytes / 1024;
  let unit = 0;
  // Compared once rounded: just under 1 MiB reads "1 MiB", never "1024 KiB".
  while (tenths(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${tenths(value)} ${UNITS[unit]}`;
}
