// Which browser engines `npm test` runs the browser projects in: MEDFUSION_ENGINES, a comma list
// of chromium, firefox, webkit (or `all`); Chromium always. By default only Chromium: the other
// two engines triple the browser projects' time (26 min for the whole suite on a 2-core machine,
// against the 15 min budget), so they run on request: `npm run test:engines`.

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
