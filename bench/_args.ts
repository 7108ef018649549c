// Command-line flags of the benchmarks (`--name value`), read from process.argv.

/** The value after `--name`, if the flag is there. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** `--name` as a positive integer, else `fallback`. */
export function intArg(name: string, fallback: number): number {
  const n = Number(arg(name));
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** `--name` as a positive finite number, else `fallback`. */
export function numArg(name: string, fallback: number): number {
  const n = Number(arg(name));
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
