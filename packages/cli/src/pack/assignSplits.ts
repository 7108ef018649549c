import type { SampleTable } from '../input/SampleTable.js';
import { seededRank, seededRank53, sortByRank } from './rank.js';

/** One split of `--split`: its name and share of the samples. */
export interface SplitSpec {
  /** Split name (`train`, `val`, ...). */
  name: string;
  /** Share of the samples, in (0, 1]; the shares sum to 1. */
  fraction: number;
}

/**
 * The split of every sample (`result[i]` is the index in `splits` of table
 * sample `i`; only the `samples` listed are assigned): deterministic for a seed,
 * stratified by label, and grouped: the samples of one group (a DICOM patient)
 * always land in one split. Groups are taken label by label (a group's label is
 * that of its first sample), in seeded hash order, each to the split furthest
 * below its share of that label's samples so far. Typed arrays throughout: a
 * unit (a group, or a sample of none) costs ~24 bytes while this runs.
 */
export function assignSplits(
  table: SampleTable,
  samples: Uint32Array,
  splits: readonly SplitSpec[],
  seed: number,
): Uint8Array {
  const unitOfGroup = new Int32Array(table.groups.values.length).fill(-1);
  const unitOf = new Uint32Array(samples.length);
  const unitFirst = new Uint32Array(samples.length); // a unit's first sample (its label, its id)
  const unitSize = new Uint32Array(samples.length);
  let units = 0;
  samples.forEach((i, k) => {
    const g = table.groupId(i);
    let u = g >= 0 ? (unitOfGroup[g] as number) : -1;
    if (u < 0) {
      u = units++;
      unitFirst[u] = i;
      if (g >= 0) unitOfGroup[g] = u;
    }
    unitOf[k] = u;
    unitSize[u] = (unitSize[u] as number) + 1;
  });
  const idOf = (u: number) => {
    const i = unitFirst[u] as number;
    const g = table.groupId(i);
    return g >= 0 ? `g:${table.groups.values[g]}` : `k:${table.key(i)}`;
  };
  // Labels in text order (none counts as ''), units by label, then by seeded rank.
  const labelTexts = table.labels.values;
  const labelOrder = [...labelTexts.keys()].sort((a, b) => {
    const x = labelTexts[a] as string;
    const y = labelTexts[b] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const labelPlace = new Float64Array(labelTexts.length + 1); // id + 1; no label: ''
  labelOrder.forEach((id, place) => {
    labelPlace[id + 1] = labelTexts[id] === '' ? 0 : place + 1;
  });
  const unitLabel = (u: number) => labelPlace[table.labelId(unitFirst[u] as number) + 1] as number;
  const ranks = new Float64Array(units);
  const labels = new Float64Array(units);
  const order = new Uint32Array(units);
  for (let u = 0; u < units; u++) {
    ranks[u] = seededRank53(seed, idOf(u));
    labels[u] = unitLabel(u);
    order[u] = u;
  }
  sortByRank(order, ranks, (u) => seededRank(seed, idOf(u)), labels);
  const unitSplit = new Uint8Array(units);
  const got = new Float64Array(splits.length);
  let total = 0;
  let label = -1;
  for (const u of order) {
    const l = unitLabel(u);
    if (l !== label) {
      got.fill(0);
      total = 0;
      label = l;
    }
    const size = unitSize[u] as number;
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
    unitSplit[u] = best;
  }
  const out = new Uint8Array(table.count).fill(255);
  samples.forEach((i, k) => {
    out[i] = unitSplit[unitOf[k] as number] as number;
  });
  return out;
}
