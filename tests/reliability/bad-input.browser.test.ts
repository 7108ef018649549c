// Bad input in @medfusion/web (real Chromium): URLs, store keys and options,
// sample types and worker options each raise their typed error naming the bad
// value; docs/reliability.md lists the same calls.
import {
  CsvImageDataset,
  createWorkerExecutor,
  IdbStore,
  MemoryMappedCache,
  OpfsStore,
  RangeReader,
  WebDatasetSource,
} from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { report } from './harness.js';

interface WebCase {
  call: string;
  kind: string;
  error: string;
  mentions: string[];
  run: () => unknown;
}

const bytes = new Uint8Array([1, 2, 3]);
const echo = () =>
  new Worker(new URL('./fixtures/numbered.worker.ts', import.meta.url), { type: 'module' });

const webCases: WebCase[] = [
  {
    call: "new RangeReader({ url: 'shards/0.tar' })",
    kind: 'URL',
    error: 'TypeError',
    mentions: ['url', '"shards/0.tar"'],
    run: () => new RangeReader({ url: 'shards/0.tar' }),
  },
  {
    call: 'new RangeReader({ url: 42 })',
    kind: 'URL',
    error: 'TypeError',
    mentions: ['url', '42'],
    run: () => new RangeReader({ url: 42 as never }),
  },
  {
    call: "new RangeReader({ url: 'http://127.0.0.1/a', size: -1 })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['size', '-1'],
    run: () => new RangeReader({ url: 'http://127.0.0.1/a', size: -1 }),
  },
  {
    call: "WebDatasetSource.open({ urls: ['http://[bad'] })",
    kind: 'URL',
    error: 'TypeError',
    mentions: ['http://[bad'],
    run: () => WebDatasetSource.open({ urls: ['http://[bad'] }),
  },
  {
    call: 'WebDatasetSource.open({ urls: [] })',
    kind: 'URL',
    error: 'TypeError',
    mentions: ['urls'],
    run: () => WebDatasetSource.open({ urls: [] }),
  },
  {
    call: "CsvImageDataset.open({ csvUrl: '', imageBaseUrl: '/img/' })",
    kind: 'URL',
    error: 'TypeError',
    mentions: ['csvUrl'],
    run: () => CsvImageDataset.open({ csvUrl: '', imageBaseUrl: '/img/' } as never),
  },
  {
    call: "new OpfsStore({ dir: '' })",
    kind: 'key',
    error: 'RangeError',
    mentions: ['dir', '""'],
    run: () => new OpfsStore({ dir: '' }),
  },
  {
    call: "new OpfsStore({ dir: 'x', maxBytes: -1 })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['maxBytes', '-1'],
    run: () => new OpfsStore({ dir: 'x', maxBytes: -1 }),
  },
  {
    call: "opfsStore.put('', bytes)",
    kind: 'key',
    error: 'RangeError',
    mentions: ['key', '""'],
    run: () => new OpfsStore({ dir: 'reliability-bad-input' }).put('', bytes),
  },
  {
    call: "opfsStore.put('k', 'pixels')",
    kind: 'sample type',
    error: 'TypeError',
    mentions: ['value', '"pixels"'],
    run: () => new OpfsStore({ dir: 'reliability-bad-input' }).put('k', 'pixels' as never),
  },
  {
    call: "new IdbStore({ name: '' })",
    kind: 'key',
    error: 'RangeError',
    mentions: ['name', '""'],
    run: () => new IdbStore({ name: '' }),
  },
  {
    call: "new IdbStore({ name: 'x', maxBytes: NaN })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['maxBytes', 'NaN'],
    run: () => new IdbStore({ name: 'x', maxBytes: Number.NaN }),
  },
  {
    call: 'new MemoryMappedCache({ maxSizeGB: 0 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['maxSizeGB', '0'],
    run: () => new MemoryMappedCache({ maxSizeGB: 0 }),
  },
  {
    call: "new MemoryMappedCache({ backend: 'disk' })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['backend', '"disk"'],
    run: () => new MemoryMappedCache({ backend: 'disk' as never }),
  },
  {
    call: "mmc.put('scan', [1, 2, 3])",
    kind: 'sample type',
    error: 'TypeError',
    mentions: ['value', 'typed array', '[object Array]'],
    run: () =>
      new MemoryMappedCache({ cacheDir: 'reliability-mmc' }).put('scan', [1, 2, 3] as never),
  },
  {
    call: "mmc.get('')",
    kind: 'key',
    error: 'RangeError',
    mentions: ['key', '""'],
    run: () => new MemoryMappedCache({ cacheDir: 'reliability-mmc' }).get(''),
  },
  {
    call: "createWorkerExecutor({ worker: 'loader.worker.js' })",
    kind: 'option',
    error: 'TypeError',
    mentions: ['worker', 'loader.worker.js'],
    run: () => createWorkerExecutor({ worker: 'loader.worker.js' as never }),
  },
  {
    call: 'createWorkerExecutor({ worker, poolSize: 0 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['poolSize', '0'],
    run: () => createWorkerExecutor({ worker: echo, poolSize: 0 }),
  },
  {
    call: 'createWorkerExecutor({ worker, callTimeoutMs: -1 })',
    kind: 'option',
    error: 'RangeError',
    mentions: ['callTimeoutMs', '-1'],
    run: () => createWorkerExecutor({ worker: echo, callTimeoutMs: -1 }),
  },
  {
    call: "createWorkerExecutor({ worker, liveness: 'ping' })",
    kind: 'option',
    error: 'RangeError',
    mentions: ['liveness', 'ping'],
    run: () => createWorkerExecutor({ worker: echo, liveness: 'ping' as never }),
  },
];

async function outcome(c: WebCase): Promise<unknown> {
  try {
    await c.run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('bad input (web, Chromium)', () => {
  for (const c of webCases) {
    it(`${c.call} → ${c.error}`, async ({ task }) => {
      const error = await outcome(c);
      expect(error, 'must throw').toBeInstanceOf(Error);
      const e = error as Error;
      expect(e.name).toBe(c.error);
      for (const m of c.mentions) expect(e.message).toContain(m);
      report(task, {
        scenario: 'bad input',
        case: '@medfusion/web (Chromium)',
        figures: { calls: 1, typedErrors: 1, messageNamesValue: 1 },
      });
    });
  }

  it('docs/reliability.md lists every case', async () => {
    const docs = await (await fetch('/docs/reliability.md')).text();
    const missing = webCases.filter((c) => !docs.includes(`\`${c.call}\``)).map((c) => c.call);
    expect(missing).toEqual([]);
  });
});
