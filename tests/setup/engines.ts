// Which browser engines `npm test` runs the browser projects in: all three by default (Chromium,
// Firefox, WebKit). MEDFUSION_ENGINES, a comma list of chromium, firefox, webkit (or `all`),
// narrows that; Chromium always runs. `npm run test:chromium` (MEDFUSION_ENGINES=chromium) is the
// quick loop: about 7 min on 2 cores against about 19 for the three (docs/browser-support.md).

/** The engines beyond Chromium this run asked for. */
export type OtherEngine = 'firefox' | 'webkit';

/** The engines beyond Chromium named by MEDFUSION_ENGINES (unset or `all`: both). */
export function otherEnginesRequested(
  env: string | undefined = process.env.MEDFUSION_ENGINES,
): OtherEngine[] {
  const names = (env ?? 'all')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const all = names.includes('all') || names.length === 0;
  return (['firefox', 'webkit'] as const).filter((e) => all || names.includes(e));
}
