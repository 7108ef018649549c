// The "your own data" panel (page): pick or drop a folder of PNG/JPEG images and a
// labels CSV; packFiles packs it into tar shards in OPFS (in its own worker) with a
// progress bar; a grid shows sample thumbnails with their labels, read back from the
// shards; then the "your own data" source trains from them (ownDataSource.ts).
import { opfsShards, type PackProgress, packFiles, WebDatasetSource } from '@medfusion/web';
import { num, secs } from './format.js';
import { OWN_DATA_DIR } from './ownDataSource.js';

/** Thumbnails shown after packing. */
const THUMBNAILS = 12;

/** What the panel needs from the page. */
export interface OwnDataOptions {
  /** The (empty) section the panel fills. */
  root: HTMLElement;
  /** Called once a folder is packed: the page re-opens the source and selects it. */
  onPacked: () => void | Promise<void>;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { testid?: string } = {},
): HTMLElementTagNameMap[K] {
  const { testid, ...rest } = props;
  const e = Object.assign(document.createElement(tag), rest);
  if (testid) e.dataset.testid = testid;
  return e;
}

/** The top-level `.csv` among a picked folder's files (paths start with the folder's name). */
function labelsCsv(files: readonly File[]): File | undefined {
  return files.find((f) => {
    const parts = (f.webkitRelativePath || f.name).split('/');
    return parts.length <= 2 && /\.csv$/i.test(f.name);
  });
}

/** The top-level `.csv` of a dropped folder. */
async function labelsCsvIn(dir: FileSystemDirectoryHandle): Promise<File | undefined> {
  for await (const [name, handle] of (
    dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }
  ).entries()) {
    if (handle.kind === 'file' && /\.csv$/i.test(name)) {
      return (handle as FileSystemFileHandle).getFile();
    }
  }
  return undefined;
}

/** Mount the panel: the folder input, the drop zone, the progress bar and the thumbnail grid. */
export function mountOwnData({ root, onPacked }: OwnDataOptions): void {
  const title = el('h2', { id: 'own-data-title', textContent: 'Your own data' });
  root.setAttribute('aria-labelledby', title.id);
  const help = el('p', {
    className: 'lede',
    textContent:
      'Pick or drop a folder of PNG/JPEG images with a labels CSV (image,label,… as the CSV source reads). ' +
      'It is packed into tar shards in this browser (OPFS), never uploaded, then trains like the other sources, offline too.',
  });
  const input = el('input', { type: 'file', id: 'own-folder', testid: 'own-folder' });
  input.webkitdirectory = true;
  input.multiple = true;
  const drop = el('label', { className: 'own-drop', testid: 'own-drop', htmlFor: input.id });
  drop.append('Choose a folder, or drop one here ', input);
  const bar = el('progress', { id: 'own-progress', max: 1, value: 0, testid: 'own-progress' });
  const status = el('p', { id: 'own-status', testid: 'own-status' });
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  const grid = el('div', { className: 'augment-grid', testid: 'own-grid' });
  root.append(title, help, drop, bar, status, grid);

  let busy: AbortController | undefined;
  const show = (p: PackProgress) => {
    // Scanning reads the files once and writing reads them again: each is half the bar.
    const share = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : p.done / Math.max(1, p.total);
    const value = p.phase === 'scan' ? share / 2 : 0.5 + share / 2;
    bar.value = value;
    bar.dataset.percent = String(Math.round(value * 100));
    const eta = p.etaMs === undefined ? '' : `, about ${secs(p.etaMs)} left`;
    status.textContent =
      p.phase === 'scan'
        ? `Checking files: ${num(p.done)} of ${num(p.total)}${eta}`
        : `Packing samples: ${num(p.done)} of ${num(p.total)}${eta}`;
  };

  const pack = async (from: { files: File[] } | { directory: FileSystemDirectoryHandle }) => {
    busy?.abort(new Error('another folder was chosen'));
    const ac = new AbortController();
    busy = ac;
    grid.replaceChildren();
    bar.value = 0;
    bar.dataset.percent = '0';
    status.dataset.state = 'packing';
    status.textContent = 'Reading the folder…';
    try {
      const labels = 'files' in from ? labelsCsv(from.files) : await labelsCsvIn(from.directory);
      const result = await packFiles({
        ...from,
        ...(labels ? { labels } : {}),
        dir: OWN_DATA_DIR,
        replace: true,
        signal: ac.signal,
        onProgress: show,
      });
      bar.value = 1;
      bar.dataset.percent = '100';
      status.textContent = `Packed ${num(result.samples)} samples into ${num(result.shards)} ${result.shards === 1 ? 'shard' : 'shards'} (${num(result.bytes / 1e6, 1)} MB in OPFS)${result.skipped ? `, ${num(result.skipped)} other files left out` : ''}${labels ? '' : ', no labels CSV found'}.`;
      await showThumbnails(grid, result.classes);
      status.dataset.state = 'packed';
      await onPacked();
    } catch (error) {
      if (ac.signal.aborted) return;
      status.dataset.state = 'error';
      status.textContent = `Could not pack: ${error instanceof Error ? error.message : String(error)}`;
    }
  };

  input.addEventListener('change', () => {
    if (input.files && input.files.length > 0) void pack({ files: [...input.files] });
  });
  drop.addEventListener('dragover', (e) => e.preventDefault());
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    const item = [...(e.dataTransfer?.items ?? [])].find((i) => i.kind === 'file');
    const get = (item as { getAsFileSystemHandle?: () => Promise<FileSystemHandle | null> })
      ?.getAsFileSystemHandle;
    if (!item || !get) return;
    void get.call(item).then((handle) => {
      if (handle?.kind === 'directory')
        void pack({ directory: handle as FileSystemDirectoryHandle });
      else status.textContent = 'Drop a folder (of images and a labels CSV), not a file.';
    });
  });
}

/** The first samples of the packed shards, as the shard source reads them back, with their labels. */
async function showThumbnails(grid: HTMLElement, classes: readonly string[] | undefined) {
  const ds = await WebDatasetSource.open(opfsShards(OWN_DATA_DIR));
  const utf8 = new TextDecoder();
  for (let i = 0; i < Math.min(THUMBNAILS, ds.length); i++) {
    const { key, files } = await ds.get(i);
    const bytes = files.png ?? files.jpg;
    if (!bytes) continue;
    const cls = files.cls ? utf8.decode(files.cls) : '';
    const label = classes ? (classes[Number(cls)] ?? cls) : cls;
    const figure = el('figure', { className: 'own-thumb' });
    figure.dataset.label = label;
    const img = el('img', {
      src: URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>])),
      alt: key,
      width: 64,
      height: 64,
    });
    figure.append(img, el('figcaption', { textContent: label || '(no label)' }));
    grid.append(figure);
  }
}
