// No value becomes a default by accident (issue #46): for every option of every public call
// that takes an options object (the tables in options-cases-*.ts), `null`, `NaN`, a boxed
// number, a string for a number, an empty slot or a bad element of an array, and values of the
// wrong type drawn by fast-check, are refused with a TypeError (wrong type) or RangeError (out
// of range) whose message names the option and shows the value; `undefined` is the default.
// The tables are checked against the public API: a new exported options type, a new field of
// one, or a new exported function or class must be in them (or in NO_OPTIONS, with a reason).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ENTRY_POINTS = [
  '@medfusion/core',
  '@medfusion/web',
  '@medfusion/web/tfjs',
  '@medfusion/web/webgpu',
  '@medfusion/web/dicom',
  '@medfusion/node',
];

import { BROWSER } from './options-cases-browser.js';
import { CORE_CASES } from './options-cases-core.js';
import { NODE_PACKAGE_CASES, removeCaseDirs } from './options-cases-node.js';
import { WEB_CASES } from './options-cases-web.js';
import {
  badValues,
  expectRefused,
  type OptionsCase,
  settle,
  triedOptions,
  withOption,
  wrongTypes,
} from './options-refusal.js';

const NODE_CASES: OptionsCase[] = [...CORE_CASES, ...WEB_CASES, ...NODE_PACKAGE_CASES];
const ALL_CASES = [...NODE_CASES, ...BROWSER];

/** Exported `…Options` types that are no constructor's or function's options, with the reason. */
const NOT_CALL_OPTIONS: Record<string, string> = {
  GetOptions: "a call's options of Dataset.get (signal, speculation)",
  RunOptions: "a call's options of Executor.run",
  ReadOptions: "a call's options of RangeReader.read and stream",
};

const ERROR_CLASS = 'an error class: the library builds them';
const POSITIONAL = 'positional arguments, no options object';
const DATA = 'reads or builds data (bytes, a manifest, a batch), no options';
/** Exported functions and classes that take no options object, with the reason. */
const NO_OPTIONS: Record<string, string> = Object.fromEntries([
  ...[
    'AbortError',
    'AugmentError',
    'ChecksumMismatchError',
    'ClosedError',
    'CollateError',
    'CsvFormatError',
    'DicomError',
    'ImageDecodeError',
    'LoadError',
    'LoadTimeoutError',
    'MedFusionError',
    'ObjectChangedError',
    'PackFilesError',
    'QuarantinedError',
    'RemoteReadError',
    'RequestTimeoutError',
    'RetryExhaustedError',
    'SampleCodecError',
    'SampleFailedError',
    'SignUrlError',
    'SizeLimitError',
    'SourceFormatError',
    'StoreError',
    'UnsupportedCodecError',
    'UrlNotAllowedError',
    'WorkerCrashedError',
    'WorkerLoadError',
    'StallError',
  ].map((n) => [n, ERROR_CLASS]),
  ...[
    'AugmentRng',
    'ExecutorDataset',
    'IndexPermutation',
    'LoadPhaseCounter',
    'ManualClock',
    'OriginLimiter',
    'SequentialPlan',
    'ShardLayout',
    'Speculation',
    'compose',
    'fromArray',
    'fromLoader',
    'indexTarStream',
    'opfsShards',
    'resolveFingerprint',
    'shuffledOrder',
    'sleep',
    'flushMicrotasks',
    'philox4x32',
    'recommendCacheSize',
    'isCrossOriginIsolated',
    'opfsStoreWorker',
    'isPlanAware',
    'isQuotaError',
    'defaultSizeOf',
    'runTransform',
    'fieldToTensor',
    'defaultDtype',
    'exposeLoader',
  ].map((n) => [n, POSITIONAL]),
  ...[
    'checkShardManifestEntry',
    'checkTarMembers',
    'checksum',
    'collectTransferables',
    'decodeNpy',
    'decodeTarIndex',
    'encodeSample',
    'encodeTarIndex',
    'formatCacheReport',
    'groupSamples',
    'parseShardManifest',
    'splitSampleName',
  ].map((n) => [n, DATA]),
  ['batchToTensors', 'a record of field → dtype, not options (checked as an object)'],
]);

afterAll(removeCaseDirs);

/** The exported name a case calls: `DataLoader` of `new DataLoader(dataset, options)`. */
const exportOf = (c: OptionsCase) => /^(?:new )?(\w+)/.exec(c.call)?.[1] ?? c.call;

interface Api {
  options: Map<string, string[]>;
}
describe('the tables cover the public API', () => {
  let api: Api;
  beforeAll(async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const script: string = join(root, 'scripts', 'check-glossary.mjs');
    api = ((await import(script)) as { publicApi(): Api }).publicApi();
  }, 60_000);

  it('lists every field of every exported options type under a call that takes it', () => {
    const missing: string[] = [];
    for (const [type, fields] of api.options) {
      if (NOT_CALL_OPTIONS[type]) continue;
      const cases = ALL_CASES.filter((c) => c.types.includes(type));
      if (cases.length === 0) missing.push(`${type}: no call in the tables takes it`);
      for (const field of fields) {
        // a nested type's fields are paths below the option that holds it (toFloat32.scale)
        const listed = (c: OptionsCase) =>
          Object.keys(c.options).some((p) => p === field || p.endsWith(`.${field}`));
        if (!cases.some(listed)) missing.push(`${type}.${field}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('has a row for every exported function and class with options (NO_OPTIONS: the others)', async () => {
    const called = new Set(ALL_CASES.map(exportOf));
    const unlisted: string[] = [];
    for (const entry of ENTRY_POINTS) {
      for (const [name, value] of Object.entries(await import(/* @vite-ignore */ entry))) {
        if (typeof value !== 'function' || called.has(name) || NO_OPTIONS[name]) continue;
        unlisted.push(`${entry}: ${name}`);
      }
    }
    expect(
      unlisted,
      'add a row to tests/core/options-cases-*.ts, or to NO_OPTIONS with why',
    ).toEqual([]);
  });
});

describe.each(NODE_CASES.map((c) => [c.call, c] as const))('%s', (_call, c) => {
  it('works with its valid options (the table is right)', async () => {
    const r = await settle(() => c.run(c.base ?? {}));
    if (r.ok) await c.cleanup?.(r.value);
    expect(r.ok ? undefined : r.error).toBeUndefined();
  });

  it('refuses a null options object, naming it', async () => {
    const r = await settle(() => c.run(null));
    expect(r.ok, 'null options were accepted').toBe(false);
    if (!r.ok) {
      expect(r.error).toBeInstanceOf(TypeError);
      expect((r.error as Error).message).toMatch(/options.* got null/);
    }
  });

  it.each(triedOptions(c))('%s: null, NaN, boxed values, holes are refused', async (path, spec) => {
    if (c.nullMeans?.[path]) return;
    for (const bad of badValues(spec)) await expectRefused(c, path, bad);
  });

  it.each(triedOptions(c))('%s: any value of the wrong type is a TypeError', async (path, spec) => {
    if (c.nullMeans?.[path]) return;
    await fc.assert(
      fc.asyncProperty(wrongTypes(spec), async (value) => {
        await expectRefused(c, path, {
          label: `wrong type ${String(value)}`,
          value,
          error: TypeError,
          at: '',
          shown: [''],
        });
      }),
      { numRuns: 8 },
    );
  });

  it('takes undefined for each optional option as its default', async () => {
    for (const [path] of triedOptions(c)) {
      if (c.required?.includes(path) || path.includes('.')) continue;
      const r = await settle(() => c.run(withOption(c.base ?? {}, path, undefined)));
      if (r.ok) await c.cleanup?.(r.value);
      expect(r.ok ? undefined : String(r.error), `${path}: undefined`).toBeUndefined();
    }
  });
});

describe.each(BROWSER.map((c) => [c.call, c] as const))(
  '%s (refusals; valid runs in a browser)',
  (_call, c) => {
    it('refuses a null options object, naming it', async () => {
      const r = await settle(() => c.run(null));
      expect(r.ok, 'null options were accepted').toBe(false);
      if (!r.ok) expect(r.error).toBeInstanceOf(TypeError);
    });

    it.each(triedOptions(c))(
      '%s: null, NaN, boxed values, holes are refused',
      async (path, spec) => {
        if (c.nullMeans?.[path]) return;
        for (const bad of badValues(spec)) await expectRefused(c, path, bad);
      },
    );
  },
);
