// The decode workers of the shards-png and shards-jpeg tiers: the library's ImageDecoder on each
// sample's image member (exposeTransform), 224x224x3 uint8 as in the file (a quarter of
// float32's bytes back to the page; the tier's toFloat32 then normalises once: scale 1/255,
// ImageNet's mean/std).
import { exposeTransform, ImageDecoder } from '@medfusion/web';

const decoder = new ImageDecoder({ channels: 3, dtype: 'uint8' });
const utf8 = new TextDecoder();

exposeTransform(async (sample) => {
  const bytes = sample.files.png ?? sample.files.jpg;
  if (!bytes) throw new Error(`${sample.key}: no .png or .jpg member`);
  const { data } = await decoder.decode(bytes, sample.key);
  const cls = sample.files.cls;
  return { image: data, label: cls ? Number(utf8.decode(cls)) : 0 };
});
