// Which browser engines `npm test` runs the browser projects in: MEDFUSION_ENGINES, a comma list
// of chromium, firefox, webkit, or `all`, the default. Chromium always runs:
// `MEDFUSION_ENGINES=chromium npm test` (`npm run test:chromium`) runs it alone.

/** The engines beyond Chromium this run asked for. */
export type OtherEngine = 'firefox' | 'webkit';

/** The engines beyond Chromium named by MEDFUSION_ENGINES (unset, empty or `all`: both). */
export function otherEnginesRequested(
  env: string | undefined = process.env.MEDFUSION_ENGINES,
): OtherEngine[] {
  const names = (env ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const all = names.length === 0 || names.includes('all');
  return (['firefox', 'webkit'] as const).filter((e) => all || names.includes(e));
}
