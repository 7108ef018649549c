import { createHash } from 'node:crypto';
import type { SampleInput } from '../input/SampleInput.js';

/** One split of `--split`: its name and share of the samples. */
export interface SplitSpec {
  /** Split name (`train`, `val`, ...). */
  name: string;
  /** Share of the samples, in (0, 1]; the shares sum to 1. */
  fraction: number;
}

/** A seeded hash of `text`: a stable pseudo-random order that does not depend on the input order. */
export function seededRank(seed: number, text: string): string {
  return createHash('sha256').update(`${seed}\0${text}`).digest('hex');
}

/**
 * The split of every sample (same order as `samples`): deterministic for a
 * seed, stratified by label, and grouped: the samples of one `group` (a DICOM
 * patient) always land in one split. Groups are taken label by label (a group's
 * label is that of its first sample), in seeded hash order, each to the split
 * furthest below its share of that label's samples so far.
 */
export function assignSplits(
  samples: readonly SampleInput[],
  splits: readonly SplitSpec[],
  seed: number,
): string[] {
  const units = new Map<string, { label: string; members: number[] }>();
  samples.forEach((s, i) => {
    const id = s.group !== undefined && s.group !== '' ? `g:${s.group}` : `k:${s.key}`;
    let unit = units.get(id);
    if (!unit) {
      unit = { label: s.label ?? '', members: [] };
      units.set(id, unit);
    }
    unit.members.push(i);
  });
  const byLabel = new Map<string, { id: string; rank: string; members: number[] }[]>();
  for (const [id, unit] of units) {
    const list = byLabel.get(unit.label) ?? [];
    list.push({ id, rank: seededRank(seed, id), members: unit.members });
    byLabel.set(unit.label, list);
  }
  const out = new Array<string>(samples.length);
  const labels = [...byLabel.keys()].sort();
  for (const label of labels) {
    const list = (byLabel.get(label) ?? []).sort((a, b) =>
      a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0,
    );
    const got = splits.map(() => 0);
    let total = 0;
    for (const unit of list) {
      const size = unit.members.length;
      let best = 0;
      let bestDeficit = Number.NEGATIVE_INFINITY;
      splits.forEach((sp, k) => {
        const deficit = sp.fraction * (total + size) - (got[k] as number);
        if (deficit > bestDeficit + 1e-9) {
          bestDeficit = deficit;
          best = k;
        }
      });
      got[best] = (got[best] as number) + size;
      total += size;
      for (const i of unit.members) out[i] = (splits[best] as SplitSpec).name;
    }
  }
  return out;
}
