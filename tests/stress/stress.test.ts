// The stress harness's short run in `npm test` (project `stress`, after every other project: its
// hogs would starve their timing tests), while stress-ng keeps both cores busy: a plain
// DataLoader epoch in a worker in each engine of the run (MEDFUSION_ENGINES) and one demo run in
// Firefox, where the demo stalled; every run must end done. And the harness's own check: a run that hangs on purpose must be reported as a stall, naming the
// threads' last words. The full harness: node scripts/stress.mjs (docs/browser-support.md).
import { describe, expect, it } from 'vitest';
import { otherEnginesRequested } from '../setup/engines.js';
import { runStress, type StressOptions } from './stress.js';

const log: string[] = [];
const base: StressOptions = {
  engines: ['chromium', ...otherEnginesRequested()],
  scenarios: ['plain'],
  runs: 1,
  stallMs: 30_000,
  runTimeoutMs: 120_000,
  hogCpus: 2,
  mode: 'hosted',
  samples: 200,
  driver: 'playwright',
  log: (line) => log.push(line),
};

describe('stress harness (short): pipelines in workers under stress-ng --cpu 2', () => {
  it(`a DataLoader epoch in a worker ends done in each of ${base.engines.join(', ')}`, async () => {
    const { results, table } = await runStress(base);
    const why = `${table.join('\n')}\n${log.join('\n')}`;
    expect(
      results.filter((r) => r.end !== 'done'),
      why,
    ).toEqual([]);
    expect(results).toHaveLength(base.engines.length * base.runs);
  });

  it.skipIf(!base.engines.includes('firefox'))(
    "the demo's pipeline in its training worker ends done in Firefox (where it stalled)",
    async () => {
      log.length = 0;
      const { results, table } = await runStress({
        ...base,
        engines: ['firefox'],
        scenarios: ['demo'],
        runs: 1,
      });
      const why = `${table.join('\n')}\n${log.join('\n')}`;
      expect(
        results.map((r) => r.end),
        why,
      ).toEqual(['done']);
    },
  );

  it('reports a run that stops making progress as a stall, with each thread’s last words', async () => {
    log.length = 0;
    const { results } = await runStress({
      ...base,
      engines: ['chromium'],
      runs: 1,
      mode: 'hang',
      stallMs: 5_000,
      hogCpus: 0,
    });
    const [run] = results;
    expect(run?.end, log.join('\n')).toBe('stalled');
    expect(run?.detail.join('\n')).toMatch(
      /epoch#\w+ \([\d.]+ s ago\): pool started; hanging on purpose/,
    );
  });
});
