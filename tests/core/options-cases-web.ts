// The public calls of @medfusion/web (and its tfjs and dicom subpaths) that take an options
// object and run in Node, as tests/core/options-refusal.ts tries them; the ones that need a
// browser for a valid run are in options-cases-browser.ts.

import {
  CsvImageDataset,
  createCachedDataset,
  DataLoader,
  exposeAugment,
  exposeLoader,
  exposeTransform,
  flipH,
  fromArray,
  ImageDecoder,
  ParquetSource,
  RangeReader,
  StallWatchdog,
  WebDatasetSource,
} from '@medfusion/web';
import { DicomDecoder, DicomSource, DicomWebSource } from '@medfusion/web/dicom';
import { augmentBatchTf, gpuBatchToTensors, toTfDataset } from '@medfusion/web/tfjs';
import * as tf from '@tensorflow/tfjs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { ENCRYPTION } from './options-cases-browser.js';
import type { OptionSpec, OptionsCase } from './options-refusal.js';

/** A `fetch` answering from `files` (Range requests included), 404 for anything else. */
export function fakeFetch(files: Record<string, string | Uint8Array<ArrayBuffer>>): typeof fetch {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const name = new URL(url).pathname.slice(1);
    const body = files[name];
    if (body === undefined) return new Response('not found', { status: 404 });
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body.slice();
    const range = /bytes=(\d+)-(\d+)/.exec(new Headers(init?.headers).get('Range') ?? '');
    if (!range) return new Response(bytes, { headers: { 'Content-Length': `${bytes.length}` } });
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), bytes.length - 1);
    return new Response(bytes.slice(start, end + 1), {
      status: 206,
      headers: { 'Content-Range': `bytes ${start}-${end}/${bytes.length}` },
    });
  };
}

const HOST = 'http://127.0.0.1:9/';
const files = fakeFetch({
  'manifest.json': JSON.stringify({ shards: [{ url: 'a.tar', samples: 1 }] }),
  'rows.csv': 'image,label,age\na.png,1,3\n',
  'rows.parquet': new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'age', data: [3, 4], type: 'DOUBLE' },
        { name: 'label', data: [1, 0], type: 'INT32' },
      ],
    }),
  ),
});

/** The options every remote reader and source takes (HttpOptions). */
export const HTTP = {
  fetch: 'fn',
  headers: 'object',
  limiter: 'object',
  retry: 'object',
  'retry.retries': 'number',
  'retry.baseDelayMs': 'number',
  'retry.maxDelayMs': 'number',
  'retry.factor': 'number',
  'retry.jitter': 'number',
  'retry.random': 'fn',
  'retry.clock': 'object',
  'retry.onRetry': 'fn',
  headersTimeoutMs: 'number',
  idleTimeoutMs: 'number',
  clock: 'object',
  signUrl: 'fn',
  signTimeoutMs: 'number',
} as const satisfies Record<string, OptionSpec>;
const URL_POLICY = {
  urlPolicy: 'object',
  'urlPolicy.allowOrigins': ['strings', ['http://127.0.0.2']],
  'urlPolicy.allowOutsideBase': 'bool',
} as const satisfies Record<string, OptionSpec>;
/** The image attributes (DICOM JSON) of a 2×2 8-bit grey instance. */
const imageTags = Object.fromEntries(
  (
    [
      ['00280010', 'US', 2],
      ['00280011', 'US', 2],
      ['00280100', 'US', 8],
      ['00280101', 'US', 8],
      ['00280002', 'US', 1],
      ['00280004', 'CS', 'MONOCHROME2'],
      ['00280103', 'US', 0],
    ] as const
  ).map(([tag, vr, value]) => [tag, { vr, Value: [value] }]),
);
/** A store holding the instance list of `DicomWebSource`'s query: it opens without a request. */
const storedInstances = {
  get: async () =>
    new TextEncoder().encode(
      JSON.stringify({
        entries: [
          { study: '1.2.3', series: '1.2.4', instance: '1.2.5', frames: 1, tags: imageTags },
        ],
      }),
    ),
  put: async () => {},
};
const DICOM_DECODE = {
  window: 'string|object',
  'window.center': 'number',
  'window.width': 'number',
  tags: ['objects', ['PatientAge']],
  multiFrame: 'enum',
  width: 'number',
  height: 'number',
  channels: 'number',
  codecs: 'object',
} as const satisfies Record<string, OptionSpec>;
const close = (r: unknown) => (r as { close?: () => unknown }).close?.();
const port = () => new MessageChannel().port1;
const images = () => tf.zeros([1, 2, 2, 1]) as tf.Tensor4D;

/** Calls whose valid run works in Node. */
export const WEB_CASES: OptionsCase[] = [
  {
    call: 'new StallWatchdog(options)',
    types: ['StallWatchdogOptions'],
    run: (o) => new StallWatchdog(o as never),
    cleanup: (w) => (w as StallWatchdog).close(),
    base: { stallMs: 1000 },
    required: ['stallMs'],
    options: { stallMs: 'number', stage: 'string', signal: 'object', clock: 'object' },
  },
  {
    call: 'new RangeReader(options)',
    types: ['RangeReaderOptions', 'HttpOptions', 'RequestTimeoutOptions', 'SignUrlOptions'],
    run: (o) => new RangeReader(o as never),
    base: { url: `${HOST}a.tar` },
    required: ['url'],
    options: { url: 'string|object', etag: 'string', size: 'number', cache: 'enum', ...HTTP },
  },
  {
    call: 'WebDatasetSource.open(options)',
    types: ['WebDatasetSourceOptions', 'UrlPolicy'],
    run: (o) => WebDatasetSource.open(o as never),
    cleanup: close,
    base: { manifestUrl: `${HOST}manifest.json`, fetch: files },
    required: ['manifestUrl', 'fetch'],
    options: {
      urls: ['strings', [`${HOST}a.tar`]],
      manifestUrl: 'string|object',
      transform: 'fn',
      transformExecutor: 'object',
      store: 'object',
      sidecar: 'fn|bool',
      lookahead: 'number',
      maxGap: 'number',
      maxRequestBytes: 'number',
      maxIndexSamples: 'number',
      indexConcurrency: 'number',
      signal: 'object',
      ...URL_POLICY,
      ...HTTP,
    },
  },
  {
    call: 'CsvImageDataset.open(options)',
    types: ['CsvImageDatasetOptions'],
    run: (o) => CsvImageDataset.open(o as never),
    base: { csvUrl: `${HOST}rows.csv`, imageBaseUrl: HOST, fetch: files },
    required: ['csvUrl', 'imageBaseUrl', 'fetch'],
    options: {
      csvUrl: 'string|object',
      imageBaseUrl: 'string|object',
      transform: 'fn',
      imageColumn: 'string',
      labelColumn: 'string',
      labelType: 'enum',
      missingValues: ['strings', ['NA']],
      ...URL_POLICY,
      tabularColumns: ['strings', ['age']],
      standardizeTabular: 'bool',
      channels: 'number',
      width: 'number',
      height: 'number',
      maxLineBytes: 'number',
      maxPixels: 'number',
      fetch: 'fn',
      requestInit: 'object',
      headersTimeoutMs: 'number',
      idleTimeoutMs: 'number',
      clock: 'object',
      signUrl: 'fn',
      signTimeoutMs: 'number',
    },
  },
  {
    call: 'new ImageDecoder(options)',
    types: ['ImageDecoderOptions'],
    run: (o) => new ImageDecoder(o as never),
    options: {
      channels: 'number',
      width: 'number',
      height: 'number',
      maxPixels: 'number',
      dtype: 'enum',
    },
  },
  {
    call: 'ParquetSource.open(options)',
    types: ['ParquetSourceOptions', 'ParquetColumns'],
    run: (o) => ParquetSource.open(o as never),
    base: { url: `${HOST}rows.parquet`, columns: { label: 'label' }, fetch: files },
    required: ['url', 'columns', 'fetch'],
    options: {
      url: 'string|object',
      columns: 'object',
      'columns.image': 'string',
      'columns.tabular': ['strings', ['age']],
      'columns.label': 'string',
      transform: 'fn',
      rowGroupCache: 'number',
      lookahead: 'number',
      signal: 'object',
      maxRowGroupRows: 'number',
      maxPageBytes: 'number',
      ...HTTP,
    },
  },
  {
    call: 'new DicomDecoder(options)',
    types: ['DicomDecoderOptions', 'DicomDecodeOptions'],
    run: (o) => new DicomDecoder(o as never),
    base: { window: { center: 40, width: 400 } },
    options: { ...DICOM_DECODE, dtype: 'enum' },
  },
  {
    call: 'DicomSource.open(options)',
    types: ['DicomSourceOptions'],
    run: (o) => DicomSource.open(o as never),
    cleanup: close,
    base: { urls: [`${HOST}a.dcm`], fetch: files, window: { center: 40, width: 400 } },
    required: ['urls', 'fetch'],
    options: {
      urls: ['strings', [`${HOST}a.dcm`]],
      files: ['objects', [new Blob([])]],
      directory: 'object',
      manifestUrl: 'string|object',
      urlColumn: 'string',
      labelColumn: 'string',
      tabularColumns: ['strings', ['age']],
      framesColumn: 'string',
      ...URL_POLICY,
      transform: 'fn',
      signal: 'object',
      ...HTTP,
      ...DICOM_DECODE,
    },
  },
  {
    call: 'DicomWebSource.open(options)',
    types: ['DicomWebSourceOptions'],
    run: (o) => DicomWebSource.open(o as never),
    cleanup: close,
    base: {
      root: `${HOST}dicomweb`,
      study: '1.2.3',
      fetch: files,
      store: storedInstances,
      window: { center: 40, width: 400 },
    },
    required: ['root', 'fetch', 'store'],
    options: {
      root: 'string|object',
      study: 'string',
      series: 'string',
      query: 'object',
      store: 'object',
      fingerprint: 'string',
      label: 'fn',
      transform: 'fn',
      signal: 'object',
      ...HTTP,
      ...DICOM_DECODE,
    },
  },
  {
    call: 'exposeLoader(loader, options)',
    types: ['ExposeLoaderOptions'],
    run: (o) => exposeLoader(() => 1, o as never),
    base: { endpoint: port() },
    options: { transfer: 'bool', phases: 'object', endpoint: 'object' },
    required: ['endpoint'],
  },
  {
    call: 'exposeAugment(augment, options)',
    types: ['ExposeLoaderOptions'],
    run: (o) => exposeAugment((s) => s, o as never),
    base: { endpoint: port() },
    options: { transfer: 'bool', phases: 'object', endpoint: 'object' },
    required: ['endpoint'],
  },
  {
    call: 'exposeTransform(transform, options)',
    types: ['ExposeLoaderOptions'],
    run: (o) => exposeTransform((s) => s, o as never),
    base: { endpoint: port() },
    options: { transfer: 'bool', phases: 'object', endpoint: 'object' },
    required: ['endpoint'],
  },
  {
    call: 'createCachedDataset(dataset, options) (web, memory only)',
    types: [],
    run: (o) => createCachedDataset(fromArray([1, 2]), o as never),
    cleanup: close,
    options: { cacheDir: 'string', cacheMaxBytes: 'number', persist: 'bool', ...ENCRYPTION },
  },
  {
    call: 'toTfDataset(loader, options)',
    types: ['TfDatasetOptions'],
    run: (o) => toTfDataset(new DataLoader(fromArray([{ x: 1, label: 0 }])), o as never),
    base: { xs: 'x', ys: 'label' },
    required: ['xs', 'ys'],
    options: {
      xs: 'string|array',
      ys: 'string|array',
      dtypes: 'object',
      shapes: 'object',
      'shapes.x': ['numbers', [1]],
      repeat: 'bool',
    },
  },
  {
    call: 'augmentBatchTf(images, transform, options)',
    types: ['AugmentBatchOptions'],
    run: (o) => augmentBatchTf(images(), flipH(), o as never),
    cleanup: (t) => (t as tf.Tensor).dispose(),
    base: { seed: 1, epoch: 0, indices: [0] },
    required: ['seed', 'epoch', 'indices'],
    options: { seed: 'number', epoch: 'number', indices: ['numbers', [0]] },
  },
  {
    call: 'gpuBatchToTensors(batch, options)',
    types: ['GpuTensorOptions'],
    run: (o) => gpuBatchToTensors({}, o as never),
    options: { zeroCopy: 'bool' },
  },
];
