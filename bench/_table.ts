// Prints a plain-text table: a header row, a rule, then one padded row per entry.

/** Print `lines` under `header`, each column padded to its widest cell. */
export function printTable(header: readonly string[], lines: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: readonly string[]) =>
    cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  console.log(fmt(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));
}
