// The page's one number format: the browser's locale (thousands separators,
// decimal mark), the same for counts, rates, sizes and times everywhere.

const formats = new Map<number, Intl.NumberFormat>();

/** `n` with `digits` decimals in the browser's locale, e.g. `10,000` or `27.5`. */
export function num(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return '–';
  let f = formats.get(digits);
  if (f === undefined) {
    f = new Intl.NumberFormat(undefined, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formats.set(digits, f);
  }
  return f.format(n);
}

/** A share in [0, 1] as a percentage with one decimal: `33.3 %`. */
export function pct(x: number): string {
  return `${num(x * 100, 1)} %`;
}

/** Bytes in MiB with one decimal. */
export function mib(bytes: number): string {
  return `${num(bytes / 1048576, 1)} MiB`;
}

/** Milliseconds as seconds with `digits` decimals: `1.25 s`. */
export function secs(ms: number, digits = 1): string {
  return `${num(ms / 1000, digits)} s`;
}
