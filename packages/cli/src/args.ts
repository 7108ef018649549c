import { DICOM_KEYWORDS } from './input/imageKind.js';
import type { SplitSpec } from './pack/assignSplits.js';

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** `64MB`, `1.5GiB`, `500kb`, `1048576` → bytes. A RangeError naming `--shard-size` otherwise. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = UNITS[(m?.[2] || 'b').toLowerCase()];
  const bytes = m && unit ? Math.floor(Number(m[1]) * unit) : Number.NaN;
  if (!Number.isFinite(bytes) || bytes < 1024) {
    throw new RangeError(
      `--shard-size must be a size of at least 1kB like 64MB or 1GiB, got ${JSON.stringify(text)}`,
    );
  }
  return bytes;
}

/** `train=0.8,val=0.1,test=0.1` → splits whose shares sum to 1. A RangeError naming `--split` otherwise. */
export function parseSplit(text: string): SplitSpec[] {
  const splits = text.split(',').map((part) => {
    const m = /^\s*([A-Za-z0-9_-]+)\s*=\s*(\d*\.?\d+)\s*$/.exec(part);
    if (!m)
      throw new RangeError(
        `--split must look like train=0.8,val=0.1,test=0.1, got ${JSON.stringify(text)}`,
      );
    return { name: m[1] as string, fraction: Number(m[2]) };
  });
  const names = new Set(splits.map((s) => s.name));
  const sum = splits.reduce((a, s) => a + s.fraction, 0);
  if (
    names.size !== splits.length ||
    Math.abs(sum - 1) > 1e-6 ||
    splits.some((s) => s.fraction <= 0)
  ) {
    throw new RangeError(
      `--split needs distinct names and positive shares summing to 1, got ${JSON.stringify(text)} (sum ${sum})`,
    );
  }
  return splits;
}

/** `Modality,PatientAge` → keywords, each one `--keep-tags` knows. */
export function parseKeepTags(text: string | undefined): string[] {
  if (!text) return [];
  const tags = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of tags) {
    if (!(t in DICOM_KEYWORDS)) {
      throw new RangeError(
        `--keep-tags: unknown DICOM keyword ${JSON.stringify(t)} (known: ${Object.keys(DICOM_KEYWORDS).join(', ')})`,
      );
    }
  }
  return [...new Set(tags)].sort();
}

/** A non-negative integer option. */
export function parseInteger(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new RangeError(`${name} must be an integer >= ${min}, got ${JSON.stringify(text)}`);
  return n;
}

/** `224x224` → width and height (each 1..65535). A RangeError naming `--size` otherwise. */
export function parseImageSize(text: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/i.exec(text.trim());
  const width = Number(m?.[1]);
  const height = Number(m?.[2]);
  if (!m || width < 1 || height < 1 || width > 65535 || height > 65535) {
    throw new RangeError(
      `--size must look like 224x224 (width x height), got ${JSON.stringify(text)}`,
    );
  }
  return { width, height };
}
