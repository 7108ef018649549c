// No value becomes a default by accident (issue #46), for the calls of @medfusion/web that need a
// browser for a valid run (tests/core/options-cases-browser.ts: stores, the cacheDir factory,
// worker pools, packFiles, WebGPU uploads). tests/core/options-null-refused.test.ts tries every
// option of them in Node (and fast-check's values of the wrong type); here each is made with
// valid options, with each option left `undefined` (the default), and with `null`, `NaN`, boxed
// values and empty slots, refused with the documented error naming the option.
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSER, useDevice } from '../core/options-cases-browser.js';
import {
  badValues,
  expectRefused,
  type OptionsCase,
  settle,
  triedOptions,
  withOption,
} from '../core/options-refusal.js';
import { pngFiles, removeOpfsDir } from './packFixtures.js';

const worker = () =>
  new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' });
const adapter = (await navigator.gpu?.requestAdapter().catch(() => null)) ?? null;
const device = (await adapter?.requestDevice().catch(() => null)) ?? undefined;
const noGpu = device === undefined ? ' [no WebGPU device here: valid runs skipped]' : '';
if (device) useDevice(device);

/** What a browser run needs that Node's table cannot give: a real Worker, files, a GPUDevice. */
const OVERRIDES: Record<string, Partial<OptionsCase>> = {
  'createWorkerExecutor(options)': { base: { worker } },
  'createAugmentWorkerPool(options)': { base: { worker } },
  'packFiles(options)': {
    base: { files: pngFiles(1), dir: 'options-null-refused-pack', replace: true },
    required: ['dir', 'files'],
    cleanup: () => removeOpfsDir('options-null-refused-pack'),
  },
};
const GPU_CALLS = ['new UploadRing(device, options)', 'uploadBatch(device, batch, options)'];

const cases = BROWSER.map((c) => ({ ...c, ...OVERRIDES[c.call] }) as OptionsCase);
const OPFS_DIRS = [
  'options-null-refused-pack',
  'options-null-refused-opfs',
  'options-null-refused-dir',
  'options-null-refused-factory',
  'options-null-refused-mmc',
];
const DATABASES = ['options-null-refused-idb', ...OPFS_DIRS.map((d) => `medfusion:${d}`)];

afterAll(async () => {
  device?.destroy();
  for (const dir of OPFS_DIRS) await removeOpfsDir(dir);
  for (const name of DATABASES) {
    await new Promise((done) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = request.onerror = request.onblocked = done;
    });
  }
});

describe.each(cases.map((c) => [c.call, c] as const))('%s', (call, c) => {
  const skip = GPU_CALLS.includes(call) && device === undefined;
  const gpu = GPU_CALLS.includes(call) ? noGpu : '';

  it.skipIf(skip)(`works with its valid options${gpu}`, async () => {
    const r = await settle(() => c.run(c.base ?? {}), 20_000);
    if (r.ok) await c.cleanup?.(r.value);
    expect(r.ok ? undefined : String(r.error)).toBeUndefined();
  });

  it.skipIf(skip)(`takes undefined for each optional option as its default${gpu}`, async () => {
    for (const [path] of triedOptions(c)) {
      if (c.required?.includes(path) || path.includes('.')) continue;
      const r = await settle(() => c.run(withOption(c.base ?? {}, path, undefined)), 20_000);
      if (r.ok) await c.cleanup?.(r.value);
      expect(r.ok ? undefined : String(r.error), `${path}: undefined`).toBeUndefined();
    }
  });

  it('refuses null, NaN, boxed values and empty slots, naming the option', async () => {
    for (const [path, spec] of triedOptions(c)) {
      if (c.nullMeans?.[path]) continue;
      for (const bad of badValues(spec)) await expectRefused(c, path, bad);
    }
  });
});
