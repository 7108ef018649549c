import { RangeReader, WebDatasetSource } from '@medfusion/web';
import { describe, expect, inject, it } from 'vitest';
import { GNU_SHARDS, sampleFiles } from '../fixtures-shards/fixtures.js';

const { nginx, flaky, stats } = inject('shardServers');
const fast = { baseDelayMs: 5, maxDelayMs: 50, retries: 8 };

async function runStats(run: string): Promise<{ requests: number; maxInFlight: number }> {
  return (await fetch(`${stats}${run}`)).json();
}

describe('range reads through a server that fails 20 % of requests', () => {
  it('RangeReader retries 503s and dropped connections and returns exact bytes', async () => {
    const name = GNU_SHARDS[2].name;
    const whole = new Uint8Array(await (await fetch(`${nginx}${name}`)).arrayBuffer());
    const run = 'reader-1';
    const reader = new RangeReader({ url: `${flaky}${run}/${name}`, retry: fast });
    const parts: Uint8Array[] = [];
    for (let at = 0; at < whole.length; at += 1024) {
      parts.push(await reader.read(at, Math.min(whole.length, at + 1024)));
    }
    const joined = new Uint8Array(whole.length);
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    expect(joined).toEqual(whole);
    const { requests } = await runStats(run);
    // Some requests failed and we retried them (the seeded sequence fails ~20 %);
    // the browser may itself resend a GET whose reused connection was dropped.
    expect(reader.requests).toBeGreaterThan(parts.length);
    expect(requests).toBeGreaterThanOrEqual(reader.requests);
  });

  it('WebDatasetSource reads every sample correctly through the faulty server', async () => {
    const run = 'source-1';
    let failures = 0;
    const counting: typeof fetch = async (input, init) => {
      try {
        const res = await fetch(input, init);
        if (res.status >= 500) failures++;
        return res;
      } catch (error) {
        failures++;
        throw error;
      }
    };
    const source = await WebDatasetSource.open({
      urls: GNU_SHARDS.map((s) => `${flaky}${run}/${s.name}`),
      retry: fast,
      fetch: counting,
    });
    let index = 0;
    for (const [shard, s] of GNU_SHARDS.entries()) {
      for (let i = 0; i < s.samples; i++) {
        expect((await source.get(index++)).files).toEqual(sampleFiles(shard, i));
      }
    }
    // Requests did fail (503s, dropped connections) and were retried to success.
    expect(failures).toBeGreaterThan(0);
    source.close();
  });

  it('gives up with RETRIES_EXHAUSTED when failures outlast the retries', async () => {
    const run = 'giveup-1';
    const reader = new RangeReader({
      url: `${flaky}${run}/${GNU_SHARDS[0].name}`,
      retry: { retries: 0, baseDelayMs: 1 },
    });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => reader.read(i * 512, i * 512 + 512)),
    );
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) {
      expect((f as PromiseRejectedResult).reason).toMatchObject({ code: 'RETRIES_EXHAUSTED' });
    }
  });
});
