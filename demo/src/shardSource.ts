// The "remote shards" source: the same synthetic samples, packed by the data
// generator into WebDataset tar shards (`/data/shards/`), read with merged
// HTTP range requests by WebDatasetSource. Decoding runs in the training worker
// (the Workers setting applies to the CSV source only).
import { type CsvImageSample, checksum, ImageDecoder, WebDatasetSource } from '@medfusion/web';
import { fetchWithOfflineCopy, type ManifestText } from './manifest.js';

/** Where the data server publishes the shards' manifest. */
export const SHARDS_MANIFEST_PATH = '/data/shards/manifest.json';

/** The generator's shard manifest: the shard list plus the tabular columns' statistics. */
interface ShardsManifest {
  shards: { url: string; samples: number }[];
  tabular: { columns: string[]; mean: number[]; std: number[] };
}

/** An opened shard source and what the page needs to know about it. */
export interface ShardSource {
  /** Samples as `{ image, tabular, label }`, shaped like the CSV source's. */
  dataset: WebDatasetSource<CsvImageSample>;
  /** Tabular feature names, in `tabular` order. */
  columns: readonly string[];
  /** Checksum of the manifest (keys the disk tier to this version of the shards). */
  version: string;
  /** Whether the manifest came from the network or the offline copy. */
  from: ManifestText['from'];
}

/**
 * Open `/data/shards/manifest.json` as a {@link WebDatasetSource} whose
 * transform decodes `<key>.png` like `CsvImageDataset` (grayscale, [0, 1]),
 * standardises `<key>.json`'s features with the manifest's mean and std (as
 * `standardizeTabular: true` does for the CSV) and reads the label from `<key>.cls`.
 */
export async function openShardSource(
  origin: string,
  online = navigator.onLine,
): Promise<ShardSource> {
  const manifestUrl = new URL(SHARDS_MANIFEST_PATH, origin).href;
  const { text, from } = await fetchWithOfflineCopy(manifestUrl, 'application/json', online);
  const manifest = JSON.parse(text) as ShardsManifest;
  const { columns, mean, std } = manifest.tabular;
  const decoder = new ImageDecoder({ channels: 1 });
  const utf8 = new TextDecoder();
  const dataset = await WebDatasetSource.open<CsvImageSample>({
    manifestUrl,
    transform: async (sample) => {
      const { png, json, cls } = sample.files;
      if (!png || !json || !cls) {
        throw new Error(`shard sample ${sample.key} lacks one of .png, .json, .cls`);
      }
      const features = JSON.parse(utf8.decode(json)) as Record<string, number>;
      const tabular = new Float32Array(columns.length);
      for (let c = 0; c < columns.length; c++) {
        tabular[c] =
          ((features[columns[c] as string] as number) - (mean[c] as number)) / (std[c] as number);
      }
      const { data } = await decoder.decode(png);
      return { image: data, tabular, label: Number(utf8.decode(cls)) };
    },
  });
  return {
    dataset,
    columns,
    version: checksum(new TextEncoder().encode(text)).toString(16),
    from,
  };
}
