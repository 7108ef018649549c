// Vitest reporter for `npm test` (scripts/run.mjs): counts the tests of the
// browser projects per engine (the project's browser name: chromium, firefox,
// webkit…) and writes them as JSON to MEDFUSION_ENGINE_REPORT, with the names of
// the tests skipped there (the README's support table lists the skips for a
// missing engine feature). Node projects are not counted here.
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** One engine's tally. */
export interface EngineTally {
  passed: number;
  failed: number;
  skipped: number;
  /** Full names of the skipped tests (their reason is in the name). */
  skippedNames: string[];
}

export default class EngineReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const out = process.env.MEDFUSION_ENGINE_REPORT;
    if (!out) return;
    const engines: Record<string, EngineTally> = {};
    for (const mod of modules) {
      const browser = mod.project.config.browser;
      if (!browser?.enabled) continue;
      const engine = browser.name;
      const tally = engines[engine] ?? { passed: 0, failed: 0, skipped: 0, skippedNames: [] };
      engines[engine] = tally;
      let tests = 0;
      for (const test of mod.children.allTests()) {
        tests++;
        const state = test.result().state;
        if (state === 'passed') tally.passed++;
        else if (state === 'failed') tally.failed++;
        else {
          tally.skipped++;
          tally.skippedNames.push(`${mod.moduleId.split('/tests/').pop()} > ${test.fullName}`);
        }
      }
      // A file that failed to load counts as a failure, as in the total.
      if (tests === 0 && mod.state() === 'failed') tally.failed++;
    }
    writeFileSync(out, `${JSON.stringify(engines, null, 2)}\n`);
  }
}
