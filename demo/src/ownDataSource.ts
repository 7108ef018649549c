// The "your own data" source (training worker): the shards packFiles wrote into
// OPFS from a folder the user picked (ownData.ts), read by WebDatasetSource over
// opfsShards: no server, so it trains offline too. Images are decoded to the
// model's 64 x 64 grey input; number columns of the CSV are the tabular features.
import {
  type CsvImageSample,
  ImageDecoder,
  opfsShards,
  type ShardManifest,
  WebDatasetSource,
} from '@medfusion/web';

/** The OPFS directory the demo packs the user's folder into. */
export const OWN_DATA_DIR = 'medfusion-demo-own-data';
/** Side of the model's square grey input. */
const SIDE = 64;

/** An opened "your own data" source and what the page needs to know about it. */
export interface OwnDataSource {
  /** Samples as `{ image, tabular, label }`, shaped like the CSV source's. */
  dataset: WebDatasetSource<CsvImageSample>;
  /** Tabular feature names (the CSV's number columns); one zero feature when there are none. */
  columns: readonly string[];
  /** The manifest's fingerprint (keys the disk tier to this pack). */
  version: string;
  /** Class names, when the labels are classes. */
  classes: readonly string[] | undefined;
}

/** The manifest packFiles wrote, or an Error asking for a folder first. */
export async function ownManifest(): Promise<ShardManifest> {
  const { manifestUrl, fetch } = opfsShards(OWN_DATA_DIR);
  const res = await fetch(manifestUrl);
  if (res.status === 404) {
    throw new Error('no data of your own yet: pick or drop a folder of images and a labels CSV');
  }
  return (await res.json()) as ShardManifest;
}

/**
 * Open the packed data: `<key>.png|jpg` decoded to 64 x 64 grey, `<key>.json`'s
 * number columns as features, `<key>.cls` as the label (a class index or a number;
 * the demo's model is binary, so a label above 1 counts as 1).
 */
export async function openOwnData(): Promise<OwnDataSource> {
  const manifest = await ownManifest();
  const numeric = (manifest.columns ?? []).filter((c) => c.type === 'number').map((c) => c.name);
  const columns = numeric.length > 0 ? numeric : ['(none)'];
  const decoder = new ImageDecoder({ channels: 1, width: SIDE, height: SIDE });
  const utf8 = new TextDecoder();
  const dataset = await WebDatasetSource.open<CsvImageSample>({
    ...opfsShards(OWN_DATA_DIR),
    transform: async (sample) => {
      const { png, jpg, json, cls } = sample.files;
      const image = png ?? jpg;
      if (!image) throw new Error(`sample ${sample.key} has no .png or .jpg member`);
      const fields = json ? (JSON.parse(utf8.decode(json)) as Record<string, number>) : {};
      const tabular = new Float32Array(columns.length);
      numeric.forEach((c, k) => {
        tabular[k] = typeof fields[c] === 'number' ? fields[c] : 0;
      });
      const { data } = await decoder.decode(image);
      const label = cls ? Math.min(1, Math.max(0, Number(utf8.decode(cls)))) : 0;
      return { image: data, tabular, label };
    },
  });
  return {
    dataset,
    columns,
    version: manifest.fingerprint ?? String(manifest.count),
    classes: manifest.labels?.classes,
  };
}
