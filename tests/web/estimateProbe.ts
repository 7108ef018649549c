// Whether this engine's navigator.storage.estimate() shows freed space, asked with the platform's
// own OPFS API (none of our code): the "gives the space back" tests need it to.

const MB = 2 ** 20;

/** Bytes `estimate().usage` dropped by when an 8 MB OPFS file was written, then removed. */
export async function estimateDropOnRemove(): Promise<{ grew: number; dropped: number }> {
  const usage = async () => (await navigator.storage.estimate()).usage ?? 0;
  const root = await navigator.storage.getDirectory();
  const name = `test-estimate-probe-${Math.random().toString(36).slice(2)}`;
  const start = await usage();
  const fh = await root.getFileHandle(name, { create: true });
  const w = await (
    fh as unknown as {
      createWritable(): Promise<{ write(d: Uint8Array): Promise<void>; close(): Promise<void> }>;
    }
  ).createWritable();
  await w.write(new Uint8Array(8 * MB).map((_, i) => (i * 7919) & 0xff));
  await w.close();
  const full = await usage();
  await root.removeEntry(name);
  return { grew: full - start, dropped: full - (await usage()) };
}

/** True when estimate() drops by at least half of an 8 MB file removed. */
export async function estimateShowsFreedSpace(): Promise<boolean> {
  return (await estimateDropOnRemove()).dropped >= 4 * MB;
}
