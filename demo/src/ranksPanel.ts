// The "Four ranks, one epoch" panel: four Web Workers read one epoch of the
// remote shards together as ranks 0-3 of `worldSize` 4 (what four machines of a
// distributed run do), each with its own WebDatasetSource. A tile per rank fills
// as its samples arrive (its share of the epoch) and shows the bytes it fetched
// against the data set's (a quarter is the ideal); a strip shows which rank read
// each sample. The DOM carries the figures for the e2e test.
import { mib, num, pct } from './format.js';
import type { RankEvent, RankJob } from './rank.worker.js';
import { SHARDS_MANIFEST_PATH } from './shardSource.js';
import './ranksPanel.css';

const WORLD_SIZE = 4;
/** Spans of the shard-aware order: a multiple of the world size, so a rank reads whole spans. */
const SPANS = 4;
const COLORS = ['#1f5fbf', '#c0392b', '#2e8b57', '#8e44ad'];

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text = '',
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

/** One rank's tile: a bar for its share of the epoch, one for its bytes. */
interface Tile {
  root: HTMLElement;
  samplesBar: HTMLElement;
  bytesBar: HTMLElement;
  text: HTMLElement;
  indices: number[];
  share: number;
  bytes: number;
  requests: number;
}

/** Bytes of the data set's shards (tar files), from a HEAD request per shard. */
async function datasetBytes(manifestUrl: string): Promise<number> {
  const res = await fetch(manifestUrl);
  if (!res.ok) throw new Error(`${manifestUrl}: HTTP ${res.status}`);
  const manifest = (await res.json()) as { shards: { url: string }[] };
  const sizes = await Promise.all(
    manifest.shards.map(async (s) => {
      const head = await fetch(new URL(s.url, manifestUrl), { method: 'HEAD' });
      return Number(head.headers.get('content-length') ?? 0);
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

/** Build the panel inside `root` (an empty section) and wire its button. */
export function mountRanksPanel(root: HTMLElement): void {
  root.setAttribute('aria-labelledby', 'ranks-title');
  root.append(
    el('h2', { id: 'ranks-title' }, 'Four ranks, one epoch'),
    el(
      'p',
      {},
      'Four Web Workers read one epoch of the remote shards together, as ranks 0–3 of a ' +
        'distributed run (rank and worldSize 4 on a DataLoader, a shard-aware order cut into ' +
        '4 spans). Each opens the shards on its own: a tile fills as its samples arrive, and ' +
        'shows the bytes it fetched against the whole data set (a quarter is the ideal).',
    ),
  );
  const button = el('button', { type: 'button', id: 'ranks-run' }, 'Run 4 ranks');
  const status = el('p', { id: 'ranks-status', role: 'status', 'aria-live': 'polite' });
  status.textContent = 'Not run yet.';
  const grid = el('div', { class: 'ranks-grid', 'data-testid': 'ranks' });
  const strip = el('canvas', { class: 'ranks-strip', height: '18', 'aria-hidden': 'true' });
  const caption = el('p', { class: 'note' }, 'Which rank read each sample of the epoch, by index.');
  root.append(el('div', { class: 'buttons' }), status, grid, strip, caption);
  root.querySelector('.buttons')?.append(button);
  button.addEventListener('click', () => void run());

  async function run(): Promise<void> {
    button.disabled = true;
    status.dataset.state = 'running';
    status.textContent = 'Reading one epoch on 4 ranks…';
    grid.replaceChildren();
    const manifestUrl = new URL(SHARDS_MANIFEST_PATH, location.origin).href;
    const tiles: Tile[] = [];
    for (let rank = 0; rank < WORLD_SIZE; rank++) {
      const tile = el('div', { class: 'rank-tile', 'data-rank': String(rank) });
      tile.style.setProperty('--rank-color', COLORS[rank] as string);
      const samplesBar = el('div', { class: 'rank-fill' });
      const bytesBar = el('div', { class: 'rank-fill bytes' });
      const text = el('p', { class: 'rank-text' }, 'starting…');
      tile.append(
        el('h3', {}, `rank ${rank}`),
        el('div', { class: 'rank-bar', title: 'its share of the epoch, delivered' }),
        el('div', {
          class: 'rank-bar bytes',
          title: 'bytes fetched, of the data set (tick: 25 %)',
        }),
        text,
      );
      tile.children[1]?.append(samplesBar);
      tile.children[2]?.append(bytesBar);
      grid.append(tile);
      tiles.push({
        root: tile,
        samplesBar,
        bytesBar,
        text,
        indices: [],
        share: 0,
        bytes: 0,
        requests: 0,
      });
    }
    const started = performance.now();
    const workers: Worker[] = [];
    try {
      const total = await datasetBytes(manifestUrl);
      let length = 0;
      const draw = (t: Tile) => {
        t.samplesBar.style.width = pct(t.share ? t.indices.length / t.share : 0).replace(' ', '');
        t.bytesBar.style.width = pct(total ? Math.min(1, t.bytes / total) : 0).replace(' ', '');
        t.text.textContent =
          `${num(t.indices.length)} / ${num(t.share)} samples · ${mib(t.bytes)} fetched ` +
          `(${pct(total ? t.bytes / total : 0)} of the data set) in ${num(t.requests)} ${t.requests === 1 ? 'request' : 'requests'}`;
        t.root.dataset.samples = String(t.indices.length);
        t.root.dataset.share = String(t.share);
        t.root.dataset.bytes = String(t.bytes);
        t.root.dataset.totalBytes = String(total);
      };
      await Promise.all(
        tiles.map(
          (t, rank) =>
            new Promise<void>((resolve, reject) => {
              const worker = new Worker(new URL('./rank.worker.ts', import.meta.url), {
                type: 'module',
                name: `rank ${rank}`,
              });
              workers.push(worker);
              worker.onerror = (e) => reject(new Error(`rank ${rank}: ${e.message}`));
              worker.onmessage = (m: MessageEvent<RankEvent>) => {
                const e = m.data;
                if (e.type === 'error') return reject(new Error(`rank ${rank}: ${e.message}`));
                if (e.type === 'start') {
                  t.share = e.share;
                  length = e.length;
                } else {
                  if (e.type === 'batch') t.indices.push(...e.indices);
                  t.bytes = e.bytes;
                  t.requests = e.requests;
                }
                draw(t);
                if (e.type === 'done') {
                  t.root.dataset.indices = t.indices.join(',');
                  t.root.dataset.state = 'done';
                  resolve();
                }
              };
              const job: RankJob = {
                manifestUrl,
                rank,
                worldSize: WORLD_SIZE,
                seed: 7,
                spans: SPANS,
                batchSize: 16,
              };
              worker.postMessage(job);
            }),
        ),
      );
      drawStrip(strip, tiles, length);
      const read = tiles.reduce((a, t) => a + t.indices.length, 0);
      const worst = Math.max(...tiles.map((t) => t.bytes / total));
      status.textContent =
        `Done in ${num((performance.now() - started) / 1000, 1)} s: ${num(read)} samples of ` +
        `${num(length)} read across the 4 ranks; the most any rank fetched is ${pct(worst)} of the data set's bytes.`;
      status.dataset.state = 'done';
      status.dataset.length = String(length);
    } catch (error) {
      status.textContent = `Ranks failed: ${(error as Error).message}`;
      status.dataset.state = 'error';
    } finally {
      for (const w of workers) w.terminate();
      button.disabled = false;
    }
  }
}

/** One pixel column per index (scaled to the canvas), in the color of the rank that read it. */
function drawStrip(canvas: HTMLCanvasElement, tiles: readonly Tile[], length: number): void {
  const width = Math.max(1, canvas.clientWidth || 800);
  canvas.width = width;
  const ctx = canvas.getContext('2d');
  if (!ctx || length === 0) return;
  ctx.clearRect(0, 0, width, canvas.height);
  tiles.forEach((t, rank) => {
    ctx.fillStyle = COLORS[rank] as string;
    for (const i of t.indices) {
      const x = Math.floor((i / length) * width);
      ctx.fillRect(x, 0, Math.max(1, Math.ceil(width / length)), canvas.height);
    }
  });
}
