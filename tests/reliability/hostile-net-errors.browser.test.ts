// Hostile servers, item 10 (network-facing errors): every error names the file. A
// single-page-app server answering HTML for every path: the manifest is "not JSON but an
// HTML page", a sidecar index is "an HTML page, not a tar index", both naming the URL; a
// shard that is not a tar fails with BAD_FORMAT naming the shard URL.
import { SourceFormatError, WebDatasetSource } from '@medfusion/web';
import { describe, expect, it } from 'vitest';
import { failsWithin, hostileUrl, report } from './harness.js';

/** Nothing waits for the 30 s timeouts: each failure comes well within this, even on a loaded machine. */
const BOUND_MS = 10_000;

const failure = (label: string, work: () => Promise<unknown>) => failsWithin(label, BOUND_MS, work);

describe('errors of a misbehaving server name the URL', () => {
  it('HTML fallback for the manifest, the sidecar; a shard that is not a tar', async (ctx) => {
    const figures: Record<string, number> = {};
    const manifest = hostileUrl('spa', 'manifest.json');
    const m = await failure('manifest', () => WebDatasetSource.open({ manifestUrl: manifest }));
    expect(m.error).toBeInstanceOf(SourceFormatError);
    expect(m.error).toMatchObject({ code: 'BAD_FORMAT' });
    expect(m.error.message).toContain(manifest);
    expect(m.error.message).toMatch(/not JSON but an HTML page/);
    figures.manifestMs = Math.round(m.ms);

    const sidecar = hostileUrl('spa', 'shard.tar.idx.json');
    const s = await failure('sidecar', () =>
      WebDatasetSource.open({ urls: [hostileUrl('ok', 'shard.tar')], sidecar: () => sidecar }),
    );
    expect(s.error).toMatchObject({ code: 'BAD_FORMAT' });
    expect(s.error.message).toContain(sidecar);
    expect(s.error.message).toMatch(/HTML page, not a tar index/);
    figures.sidecarMs = Math.round(s.ms);

    const shard = hostileUrl('ok', 'manifest.json'); // any file that is not a tar
    const t = await failure('shard', () =>
      WebDatasetSource.open({ urls: [shard], sidecar: false }),
    );
    expect(t.error).toMatchObject({ code: 'BAD_FORMAT' });
    expect(t.error.message).toContain(shard);
    figures.shardMs = Math.round(t.ms);
    report(ctx.task, { scenario: 'hostile inputs', case: 'HTML fallback / not a tar', figures });
  });

  it('a shard answered by an HTML fallback names the URL', async () => {
    const shard = hostileUrl('spa', 'shard.tar');
    const { error } = await failure('spa shard', () =>
      WebDatasetSource.open({ urls: [shard], sidecar: false }),
    );
    expect(error).toMatchObject({ code: 'BAD_FORMAT' });
    expect(error.message).toContain(shard);
  });
});
