// Which browser engines `npm test` runs the browser projects in: MEDFUSION_ENGINES, a comma list
// of chromium, firefox, webkit (or `all`); Chromium always. By default only Chromium: with all
// three the suite takes 14-15 min on 2 cores (docs/browser-support.md), at the edge of the 15 min
// budget, and a Firefox file failed under that load in one run of three, so the other two engines
// run on request: `npm run test:engines`.

/** The engines beyond Chromium this run asked for. */
export type OtherEngine = 'firefox' | 'webkit';

/** The engines beyond Chromium named by MEDFUSION_ENGINES (`all`: both). */
export function otherEnginesRequested(
  env: string | undefined = process.env.MEDFUSION_ENGINES,
): OtherEngine[] {
  const names = (env ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const all = names.includes('all');
  return (['firefox', 'webkit'] as const).filter((e) => all || names.includes(e));
}
