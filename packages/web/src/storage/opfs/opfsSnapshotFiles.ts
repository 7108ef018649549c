import type { FileBackend } from './opfsFiles.js';
import {
  decodeSnapshot,
  encodeSnapshot,
  peekSnapshotGen,
  SNAPSHOT_HEADER,
  type SnapshotData,
} from './opfsFormat.js';

/** The two snapshot files, written alternately so one valid snapshot always survives a crash. */
const SNAP_FILES = ['index-a.bin', 'index-b.bin'] as const;

/** The newest valid index snapshot of the directory, if any. Internal. */
export async function readNewestSnapshot(fs: FileBackend): Promise<SnapshotData | undefined> {
  let best: SnapshotData | undefined;
  for (const name of SNAP_FILES) {
    const f = await fs.open(name, false);
    if (!f) continue;
    try {
      const snap = decodeSnapshot(await f.read(0, await f.size()));
      if (snap && (!best || snap.gen > best.gen)) best = snap;
    } finally {
      await f.close();
    }
  }
  return best;
}

/**
 * Write the snapshot `make(gen)` over the older of the two files, with a
 * generation above every one seen; returns that generation. The caller holds
 * the directory's writer lock. Internal.
 */
export async function writeSnapshotFile(
  fs: FileBackend,
  knownGen: number,
  make: (gen: number) => SnapshotData,
): Promise<number> {
  let newest = knownGen;
  let target: (typeof SNAP_FILES)[number] = SNAP_FILES[0];
  let targetGen = Number.POSITIVE_INFINITY;
  for (const name of SNAP_FILES) {
    const f = await fs.open(name, false);
    let gen = -1;
    if (f) {
      try {
        gen = peekSnapshotGen(await f.read(0, SNAPSHOT_HEADER));
      } finally {
        await f.close();
      }
    }
    newest = Math.max(newest, gen);
    if (gen < targetGen) {
      targetGen = gen;
      target = name;
    }
  }
  const gen = newest + 1;
  const bytes = encodeSnapshot(make(gen));
  const f = await fs.open(target, true);
  if (!f) return knownGen;
  try {
    await f.truncate(0);
    await f.write(0, bytes);
    await f.flush();
  } finally {
    await f.close();
  }
  return gen;
}
