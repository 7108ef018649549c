import { num } from './format.js';

/** What the page's controls hold; every field also lives in the URL's query string. */
export interface Settings {
  /** Where samples come from: the CSV manifest + one PNG per sample, WebDataset tar shards, DICOM files, or DICOMweb (Orthanc). */
  source: Source;
  /** Caching strategy of the pipeline. */
  strategy: Strategy;
  /** Memory cache capacity in samples. */
  cacheSize: number;
  /** How many samples prefetch keeps loading or ready ahead; `'auto'`: tuned while training. */
  prefetchSize: number | 'auto';
  /** Loads at once (the engine's `numWorkers`); `'auto'`: tuned while training. */
  loadsInFlight: number | 'auto';
  /** Web Workers decoding images; 0 loads in the training worker itself. */
  workers: number;
  /** Samples per training step. */
  batchSize: number;
  /** Latency the data server adds per request, in ms. */
  latency: number;
  /** Random augmentation after the cache: `on` runs the standard recipe (flip + rotate90 + intensity + noise). */
  augment: AugmentMode;
  /** Passes over the data per Start. */
  epochs: number;
  /** Use the first N samples of the manifest (0 = all). */
  samples: number;
  /** TF.js backend: auto picks WebGPU, then WebGL, then CPU. */
  backend: Backend;
  /** Samples in the "Compare strategies" scenario. */
  compareSamples: number;
  /** Access trace of the comparison. */
  compareTrace: Trace;
}

/** The data sources offered: `csv` (manifest + images), `shards` (remote tar shards), `dicom` (DICOM files), `dicomweb` (Orthanc) or `own` (a folder the user packed into OPFS). */
export const SOURCES = ['csv', 'shards', 'dicom', 'dicomweb', 'own'] as const;
/** A data source. */
export type Source = (typeof SOURCES)[number];
/** The strategies offered by the page (`both-disk` adds the persistent tier). */
export const STRATEGIES = ['none', 'lru', 'prefetch', 'both', 'both-disk'] as const;
/** A pipeline strategy. */
export type Strategy = (typeof STRATEGIES)[number];
/** Augmentation switch: off, or the standard medical recipe. */
export const AUGMENT_MODES = ['off', 'on'] as const;
/** An augmentation switch position. */
export type AugmentMode = (typeof AUGMENT_MODES)[number];
/** TF.js backends the page can ask for. */
export const BACKENDS = ['auto', 'webgpu', 'webgl', 'cpu'] as const;
/** A TF.js backend choice. */
export type Backend = (typeof BACKENDS)[number];
/** Access traces of the seed scenario. */
export const TRACES = ['local-repeats', 'shuffled-epochs'] as const;
/** An access trace name. */
export type Trace = (typeof TRACES)[number];

/**
 * The defaults: the reference's cache 1000, 2 workers, batch 32, 10 ms; loads in
 * flight and prefetch depth 'auto' (the library's default; the reference's
 * prefetch 10 spent about half of each step waiting for data, issue 15).
 */
export const DEFAULTS: Settings = {
  source: 'csv',
  strategy: 'both-disk',
  cacheSize: 1000,
  prefetchSize: 'auto',
  loadsInFlight: 'auto',
  workers: 2,
  batchSize: 32,
  latency: 10,
  augment: 'off',
  epochs: 3,
  samples: 0,
  backend: 'auto',
  compareSamples: 600,
  compareTrace: 'local-repeats',
};

/** The settings that are whole numbers (some also take `'auto'`, see {@link AUTO_KEYS}). */
export type NumberKey = {
  [K in keyof Settings]: Settings[K] extends number | 'auto' ? K : never;
}[keyof Settings];

/** The number settings that also take `'auto'` (tuned while training). */
export const AUTO_KEYS: readonly NumberKey[] = ['prefetchSize', 'loadsInFlight'];

/** Inclusive range of every number setting (a value outside is refused, never clamped). */
export const LIMITS: Record<NumberKey, readonly [number, number]> = {
  cacheSize: [1, 1_000_000],
  prefetchSize: [1, 1024],
  loadsInFlight: [1, 512],
  workers: [0, 16],
  batchSize: [1, 512],
  latency: [0, 10_000],
  epochs: [1, 100],
  samples: [0, 10_000_000],
  compareSamples: [10, 100_000],
};

/** Whether `key` is a number setting. */
export function isNumberKey(key: string): key is NumberKey {
  return Object.hasOwn(LIMITS, key);
}

/** What a field's text means: the value to use, or why it cannot be used. */
export type FieldCheck = { ok: true; value: number | 'auto' } | { ok: false; message: string };

/**
 * Check what was typed into a number field: a whole number within its range
 * (or `auto` where {@link AUTO_KEYS} allows it), else a message saying what is
 * allowed (the value is never changed silently).
 */
export function checkNumber(key: NumberKey, raw: string): FieldCheck {
  const [lo, hi] = LIMITS[key];
  const auto = AUTO_KEYS.includes(key);
  const range = `${auto ? 'auto or ' : ''}a whole number from ${num(lo)} to ${num(hi)}`;
  const text = raw.trim();
  if (auto && text.toLowerCase() === 'auto') return { ok: true, value: 'auto' };
  if (text === '') return { ok: false, message: `Enter ${range}.` };
  const n = Number(text);
  if (!Number.isInteger(n)) return { ok: false, message: `"${text}" is not ${range}.` };
  if (n < lo || n > hi) return { ok: false, message: `${num(n)} is outside: use ${range}.` };
  return { ok: true, value: n };
}

function pick<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** Read settings from a query string; anything missing or out of range takes its default. */
export function readSettings(search: string): Settings {
  const q = new URLSearchParams(search);
  const s: Settings = { ...DEFAULTS };
  s.source = pick(q.get('source'), SOURCES, DEFAULTS.source);
  s.strategy = pick(q.get('strategy'), STRATEGIES, DEFAULTS.strategy);
  s.backend = pick(q.get('backend'), BACKENDS, DEFAULTS.backend);
  s.augment = pick(q.get('augment'), AUGMENT_MODES, DEFAULTS.augment);
  s.compareTrace = pick(q.get('compareTrace'), TRACES, DEFAULTS.compareTrace);
  for (const key of Object.keys(LIMITS) as NumberKey[]) {
    const raw = q.get(key);
    if (raw === null) continue;
    const checked = checkNumber(key, raw);
    if (checked.ok) (s as Record<NumberKey, number | 'auto'>)[key] = checked.value;
  }
  return s;
}

/** The query string for `s`, listing only what differs from the defaults. */
export function writeSettings(s: Settings): string {
  const q = new URLSearchParams();
  for (const key of Object.keys(DEFAULTS) as (keyof Settings)[]) {
    if (s[key] !== DEFAULTS[key]) q.set(key, String(s[key]));
  }
  const text = q.toString();
  return text ? `?${text}` : '';
}
