// Inputs for the packFiles tests: PNG files made here (fast-png), a labels CSV,
// and OPFS helpers to read back what the packer wrote.
import { encode } from 'fast-png';

/** A grey PNG of `w` x `h` whose pixels depend on `seed`. */
export function png(w: number, h: number, seed: number): Uint8Array {
  const data = new Uint8Array(w * h);
  for (let k = 0; k < data.length; k++) data[k] = (k * 31 + seed * 17) % 256;
  return encode({ width: w, height: h, data, depth: 8, channels: 1 });
}

/** `n` PNG files `img<i>.png` (sizes vary) and their bytes. */
export function pngFiles(n: number): File[] {
  return Array.from(
    { length: n },
    (_, i) => new File([png(8 + i, 6 + (i % 3), i) as Uint8Array<ArrayBuffer>], `img${i}.png`),
  );
}

/** The OPFS directory `path`, or undefined when absent. */
export async function opfsDir(path: string): Promise<FileSystemDirectoryHandle | undefined> {
  let dir = await navigator.storage.getDirectory();
  try {
    for (const p of path.split('/')) dir = await dir.getDirectoryHandle(p);
  } catch {
    return undefined;
  }
  return dir;
}

/** Names in an OPFS directory, sorted. */
export async function opfsNames(dir: FileSystemDirectoryHandle): Promise<string[]> {
  const out: string[] = [];
  for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) {
    out.push(name);
  }
  return out.sort();
}

/** Bytes of an OPFS file. */
export async function opfsBytes(dir: FileSystemDirectoryHandle, name: string): Promise<Uint8Array> {
  const file = await (await dir.getFileHandle(name)).getFile();
  return new Uint8Array(await file.arrayBuffer());
}

/** Remove an OPFS directory (a test's output) if present. */
export async function removeOpfsDir(name: string): Promise<void> {
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(name, { recursive: true }).catch(() => {});
}

/**
 * The regular members of a ustar archive, read by this test's own walk of the
 * headers (name field, octal size, data padded to 512), not by the packer's
 * tar library nor by WebDatasetSource.
 */
export function ustarMembers(tar: Uint8Array): { name: string; data: Uint8Array }[] {
  const text = new TextDecoder();
  const out: { name: string; data: Uint8Array }[] = [];
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = text.decode(header.subarray(0, 100)).replace(/\0.*$/s, '');
    const size = Number.parseInt(
      text.decode(header.subarray(124, 136)).replace(/\0.*$/s, '').trim(),
      8,
    );
    const type = String.fromCharCode(header[156] as number);
    let sum = 0;
    for (let k = 0; k < 512; k++) sum += k >= 148 && k < 156 ? 32 : (header[k] as number);
    const stored = Number.parseInt(
      text.decode(header.subarray(148, 156)).replace(/\0.*$/s, '').trim(),
      8,
    );
    if (sum !== stored) throw new Error(`bad header checksum at ${at}`);
    if (type === '0' || type === '\0')
      out.push({ name, data: tar.slice(at + 512, at + 512 + size) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}
