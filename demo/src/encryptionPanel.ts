// "Encrypt the disk cache" and "Forget this data set": the page derives a
// non-extractable AES-GCM key from the passphrase with PBKDF2 (the recipe of
// docs/persistence.md, "Getting a key"), hands it to the training worker, whose
// disk tier seals every record with it; the key is never stored, the salt (not
// secret) is kept in localStorage so the same passphrase opens the cache at the
// next visit. "Forget" deletes the data set's records for real and shows the
// space given back: navigator.storage.estimate() and the OPFS directory's files,
// before and after.
import type { Remote } from 'comlink';
import type { ForgetResult } from './diskEncryption.js';
import { num } from './format.js';
import type { Source } from './settings.js';
import type { Trainer } from './trainer.worker.js';

/** Where the PBKDF2 salt is kept (not secret; one per browser profile). */
const SALT_ITEM = 'medfusion-demo:pbkdf2-salt';
/** PBKDF2-SHA-256 iterations (OWASP 2023), as docs/persistence.md advises. */
const PBKDF2_ITERATIONS = 600_000;

/** The passphrase's AES-GCM key: PBKDF2 with this profile's salt, non-extractable. */
export async function passphraseKey(passphrase: string): Promise<CryptoKey> {
  let saltHex = localStorage.getItem(SALT_ITEM);
  if (!saltHex || !/^[0-9a-f]{32}$/.test(saltHex)) {
    const fresh = crypto.getRandomValues(new Uint8Array(16));
    saltHex = [...fresh].map((b) => b.toString(16).padStart(2, '0')).join('');
    localStorage.setItem(SALT_ITEM, saltHex);
  }
  const salt = new Uint8Array(saltHex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  const material = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(passphrase),
    'PBKDF2',
    false,
    ['deriveKey'],
  );
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', salt, iterations: PBKDF2_ITERATIONS, hash: 'SHA-256' },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** What an OPFS directory holds: files, their bytes, and of them the segment files (the records). */
interface DirFiles {
  files: number;
  bytes: number;
  segments: number;
}

/** The files of the OPFS directory `dir`; undefined without OPFS. */
async function opfsFiles(dir: string): Promise<DirFiles | undefined> {
  if (typeof navigator.storage?.getDirectory !== 'function') return undefined;
  const root = await navigator.storage.getDirectory();
  let handle: FileSystemDirectoryHandle;
  try {
    handle = await root.getDirectoryHandle(dir);
  } catch {
    return { files: 0, bytes: 0, segments: 0 };
  }
  let files = 0;
  let bytes = 0;
  let segments = 0;
  for await (const entry of (
    handle as unknown as { values(): AsyncIterable<FileSystemHandle> }
  ).values()) {
    if (entry.kind !== 'file') continue;
    files++;
    if (entry.name.startsWith('segment-')) segments++;
    bytes += (await (entry as FileSystemFileHandle).getFile()).size;
  }
  return { files, bytes, segments };
}

/** Bytes in KiB or MiB, one decimal. */
function size(bytes: number): string {
  return bytes >= 1048576 ? `${num(bytes / 1048576, 1)} MiB` : `${num(bytes / 1024, 1)} KiB`;
}

/** What the panel needs of the page. */
export interface EncryptionPanelOptions {
  /** Element the panel fills. */
  root: HTMLElement;
  /** The training worker. */
  trainer: Remote<Trainer>;
  /** The data source chosen now (its data set is the one forgotten). */
  source: () => Source;
}

/** The disk encryption switch, its passphrase and the forget button. */
export class EncryptionPanel {
  private readonly toggle: HTMLInputElement;
  private readonly passphrase: HTMLInputElement;
  private readonly state: HTMLElement;
  private readonly forgetBtn: HTMLButtonElement;
  private readonly result: HTMLElement;
  private busy = false;
  private working = false;

  constructor(private readonly o: EncryptionPanelOptions) {
    o.root.innerHTML = `
      <fieldset class="encryption">
        <legend>Patient data at rest</legend>
        <label><input type="checkbox" id="encrypt-disk" /> Encrypt the disk cache (AES-GCM)</label>
        <label>Passphrase <input type="password" id="passphrase" autocomplete="off" /></label>
        <span id="encryption-state" data-testid="encryption-state" data-state="off" role="status">Off: the disk tier stores plain bytes.</span>
        <button type="button" id="forget">Forget this data set</button>
        <p id="forget-result" data-testid="forget-result" role="status" aria-live="polite"></p>
      </fieldset>`;
    const q = <E extends HTMLElement>(sel: string) => o.root.querySelector<E>(sel)!;
    this.toggle = q<HTMLInputElement>('#encrypt-disk');
    this.passphrase = q<HTMLInputElement>('#passphrase');
    this.state = q('#encryption-state');
    this.forgetBtn = q<HTMLButtonElement>('#forget');
    this.result = q('#forget-result');
    this.toggle.addEventListener('change', () => void this.apply());
    this.passphrase.addEventListener('change', () => {
      if (this.toggle.checked) void this.apply();
    });
    this.forgetBtn.addEventListener('click', () => void this.forget());
  }

  /** Lock the controls while the page trains or compares (the key applies from the next run). */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.lock();
  }

  private lock(): void {
    const off = this.busy || this.working;
    this.toggle.disabled = off;
    this.passphrase.disabled = off;
    this.forgetBtn.disabled = off;
  }

  private show(state: 'off' | 'deriving' | 'on' | 'error', text: string): void {
    this.state.dataset.state = state;
    this.state.textContent = text;
  }

  /** Derive the key and give it to the training worker, or go back to plain. */
  private async apply(): Promise<void> {
    this.working = true;
    this.lock();
    try {
      if (!this.toggle.checked) {
        await this.o.trainer.setDiskKey(undefined);
        this.show('off', 'Off: the disk tier stores plain bytes.');
        return;
      }
      if (this.passphrase.value === '') {
        this.toggle.checked = false;
        this.show('error', 'Enter a passphrase first.');
        return;
      }
      this.show('deriving', 'Deriving the key (PBKDF2, 600,000 rounds)…');
      const key = await passphraseKey(this.passphrase.value);
      await this.o.trainer.setDiskKey(key);
      this.show('on', 'On: every record is sealed with AES-GCM before it reaches the disk.');
    } catch (err) {
      this.toggle.checked = false;
      this.show('error', `Could not derive the key: ${err instanceof Error ? err.message : err}`);
    } finally {
      this.working = false;
      this.lock();
    }
  }

  /** Forget the chosen source's data set on the disk tier in use; show what was given back. */
  private async forget(): Promise<void> {
    this.working = true;
    this.lock();
    const r = this.result;
    try {
      const dir = await this.o.trainer.diskDir();
      const [before, filesBefore] = await Promise.all([
        navigator.storage.estimate(),
        opfsFiles(dir),
      ]);
      const done: ForgetResult = await this.o.trainer.forgetDataSet(
        this.o.source(),
        navigator.onLine,
      );
      const [after, filesAfter] = await Promise.all([
        navigator.storage.estimate(),
        opfsFiles(done.dir),
      ]);
      const used = (e: StorageEstimate) => e.usage ?? 0;
      const freed = Math.max(0, used(before) - used(after));
      let text =
        `Forgot ${num(done.entries)} samples${done.encrypted ? ' (encrypted store)' : ''}: ` +
        `origin storage ${size(used(before))} → ${size(used(after))}, ${size(freed)} given back.`;
      if (filesBefore && filesAfter) {
        const files = (f: DirFiles) =>
          `${num(f.files)} (${size(f.bytes)}; ${num(f.segments)} segment ${f.segments === 1 ? 'file' : 'files'})`;
        text += ` Files in ${done.dir}: ${files(filesBefore)} → ${files(filesAfter)}.`;
        Object.assign(r.dataset, {
          segmentsBefore: String(filesBefore.segments),
          segmentsAfter: String(filesAfter.segments),
          filesBefore: String(filesBefore.files),
          filesAfter: String(filesAfter.files),
          bytesBefore: String(filesBefore.bytes),
          bytesAfter: String(filesAfter.bytes),
        });
      }
      Object.assign(r.dataset, {
        entries: String(done.entries),
        usageBefore: String(used(before)),
        usageAfter: String(used(after)),
        state: 'done',
      });
      r.textContent = text;
    } catch (err) {
      r.dataset.state = 'error';
      r.textContent = `Forget failed: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      this.working = false;
      this.lock();
    }
  }
}
