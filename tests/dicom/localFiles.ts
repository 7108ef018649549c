// Helpers of the local-file tests: fixture files as File objects, OPFS folders written by the test.
import { inject } from 'vitest';

const { filesUrl } = inject('dicom');

/** The bytes of fixture file `from`, fetched from the fixture server. */
export async function fixtureBytes(from: string): Promise<Uint8Array<ArrayBuffer>> {
  const res = await fetch(`${filesUrl}${from}`);
  if (!res.ok) throw new Error(`fixture ${from}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** Fixture file `from` as a File named `path` (slashes kept: a relative path). */
export async function fixtureFile(path: string, from: string, lastModified = 1_700_000_000_000) {
  return new File([await fixtureBytes(from)], path, { lastModified });
}

/** A fresh OPFS folder holding `entries` (path → bytes, nested folders made); `remove` deletes it. */
export async function opfsFolder(
  entries: Record<string, Uint8Array<ArrayBuffer> | string>,
): Promise<{ dir: FileSystemDirectoryHandle; remove: () => Promise<void> }> {
  const root = await navigator.storage.getDirectory();
  const name = `dicom-files-test-${crypto.randomUUID()}`;
  const dir = await root.getDirectoryHandle(name, { create: true });
  for (const [path, bytes] of Object.entries(entries)) {
    const parts = path.split('/');
    let d = dir;
    for (const part of parts.slice(0, -1)) d = await d.getDirectoryHandle(part, { create: true });
    const file = await d.getFileHandle(parts.at(-1) as string, { create: true });
    const w = await file.createWritable();
    await w.write(bytes as FileSystemWriteChunkType);
    await w.close();
  }
  return { dir, remove: () => root.removeEntry(name, { recursive: true }) };
}
