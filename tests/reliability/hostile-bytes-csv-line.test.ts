// Hostile data, item 6 (CSV): a 50 MB manifest on a single line. The manifest is read
// as a stream and a line past `maxLineBytes` (8 MiB by default) stops the read at once:
// a SizeLimitError naming the line and the URL, the body cancelled, at most the cap
// (plus one chunk) pulled from the network. Memory: the process's peak RSS
// (process.resourceUsage().maxRSS, ArrayBuffers included) grows by less than 64 MB;
// reading the whole line and parsing it cost ~10 s and 600 MB.
import { CsvImageDataset, SizeLimitError } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { bounded, HANG_MS, report } from './harness.js';

const MB = 2 ** 20;
const CHUNK = 64 * 1024;

/** A body of `total` bytes on one line ("image,label,f,f,f,…"), made chunk by chunk. */
function oneLine(total: number) {
  const chunk = new TextEncoder().encode(',f'.repeat(CHUNK / 2));
  const stats = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('image,label'));
    },
    pull(controller) {
      if (stats.pulled >= total) return controller.close();
      stats.pulled += chunk.length;
      controller.enqueue(chunk.slice());
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { body, stats };
}

describe('hostile CSV: one 50 MB line', () => {
  it('stops reading at maxLineBytes with a SizeLimitError naming the line and URL', async (ctx) => {
    const { body, stats } = oneLine(50 * MB);
    const rss0 = process.resourceUsage().maxRSS * 1024;
    let error: unknown;
    const { ms } = await bounded('open', HANG_MS, async () => {
      try {
        await CsvImageDataset.open({
          csvUrl: 'https://data.example/one-line.csv',
          imageBaseUrl: 'https://data.example/images/',
          fetch: async () => new Response(body),
        });
      } catch (e) {
        error = e;
      }
    });
    const peakGrowthMB = (process.resourceUsage().maxRSS * 1024 - rss0) / MB;
    expect(error).toBeInstanceOf(SizeLimitError);
    expect(error).toMatchObject({ code: 'SIZE_LIMIT', allowed: 8 * MB });
    expect(String((error as Error).message)).toMatch(
      /^line 1 of the manifest https:\/\/data\.example\/one-line\.csv \(read so far\) claims [\d,]+ bytes, more than maxLineBytes 8,388,608$/,
    );
    expect(stats.pulled).toBeLessThanOrEqual(8 * MB + CHUNK);
    expect(stats.cancelled).toBe(true);
    expect(peakGrowthMB).toBeLessThan(64);
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'CSV manifest: one 50 MB line',
      figures: {
        ms: Math.round(ms),
        pulledMB: Number((stats.pulled / MB).toFixed(1)),
        peakRssGrowthMB: Math.round(peakGrowthMB),
      },
    });
  });

  it('maxLineBytes is an option; lines under it parse as before', async () => {
    const csv = 'image,label,age\nx.png,1,40\ny.png,0,50\n';
    const open = (maxLineBytes: number) =>
      CsvImageDataset.open({
        csvUrl: 'https://data.example/m.csv',
        imageBaseUrl: 'https://data.example/images/',
        fetch: async () => new Response(csv),
        maxLineBytes,
      });
    expect((await open(16)).length).toBe(2);
    await expect(open(12)).rejects.toThrow(/^line 1 of the manifest .* more than maxLineBytes 12$/);
    await expect(open(0)).rejects.toThrow(/maxLineBytes must be a positive integer, got 0/);
  });
});
