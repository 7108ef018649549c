// Vitest reporter for `pnpm test:reliability`: after the run, prints one table
// of the figures each reliability test attached (harness.ts `report`), with the
// test's result (rows with the same scenario and case are merged, numbers
// summed). Loaded by scripts/run.mjs as --reporter=<this file>.
import type { Reporter, TestModule } from 'vitest/node';

interface Row {
  scenario: string;
  case: string;
  figures: Record<string, number | string>;
}

export default class ReliabilitySummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows: string[][] = [];
    const merged = new Map<string, { row: Row; result: string }>();
    let passed = 0;
    let failed = 0;
    for (const mod of modules) {
      // Rows of another engine than Chromium stay apart: "scenario (firefox)".
      const browser = mod.project.config.browser;
      const engine = browser?.enabled && browser.name !== 'chromium' ? ` (${browser.name})` : '';
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        const meta = test.meta() as { reliability?: Row[] };
        const result = state === 'passed' ? 'ok' : state.toUpperCase();
        const list = meta.reliability ?? [];
        if (list.length === 0 && state === 'failed') {
          rows.push([mod.moduleId.split('/').pop() ?? '', test.name, result, '']);
        }
        for (const { scenario, ...rest } of list) {
          const row = { scenario: `${scenario}${engine}`, ...rest };
          // rows with the same scenario and case merge: numbers add up, e.g. one per table entry
          const id = `${row.scenario}\u0000${row.case}`;
          const seen = merged.get(id);
          if (seen === undefined) {
            merged.set(id, { row: { ...row, figures: { ...row.figures } }, result });
            continue;
          }
          if (result !== 'ok') seen.result = result;
          for (const [k, v] of Object.entries(row.figures)) {
            const old = seen.row.figures[k];
            seen.row.figures[k] = typeof old === 'number' && typeof v === 'number' ? old + v : v;
          }
        }
      }
    }
    for (const { row, result } of merged.values()) {
      const figures = Object.entries(row.figures)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      rows.push([row.scenario, row.case, result, figures]);
    }
    if (rows.length === 0) return;
    const head = ['scenario', 'case', 'result', 'figures'];
    rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) =>
      `| ${cells.map((c, i) => (i === 3 ? c : c.padEnd(widths[i]!))).join(' | ')} |`;
    const out = [
      '',
      `Reliability summary (${passed} tests passed, ${failed} failed)`,
      line(head),
      `|${widths.map((w, i) => '-'.repeat(i === 3 ? 9 : w + 2)).join('|')}|`,
      ...rows.map(line),
      '',
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
