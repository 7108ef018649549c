// The decode workers of the dicom tier: each sample's .dcm member (a 512x512 CT slice, JPEG
// Lossless SV1) decoded by the library's DicomDecoder with a soft-tissue window (40/400: Rescale
// Slope/Intercept, the window to [0, 1]), resized to 224x224 by the library's bilinear resize
// (randomResizedCrop never drawn, so the whole slice: DicomDecoder has no size option), and its
// grey repeated to 3 channels: 224x224x3 floats in [0, 1], as the other encoded tiers deliver.
import { AugmentRng, exposeTransform, randomResizedCrop, runTransform } from '@medfusion/web';
import { DicomDecoder } from '@medfusion/web/dicom';
import { CHANNELS, SIDE } from './types.js';

const decoder = new DicomDecoder({ window: { center: 40, width: 400 } });
const resize = randomResizedCrop({ size: SIDE, p: 0 });
const rng = new AugmentRng();
const utf8 = new TextDecoder();

exposeTransform(async (sample, index) => {
  const bytes = sample.files.dcm;
  if (!bytes) throw new Error(`${sample.key}: no .dcm member`);
  const { image } = await decoder.decode(bytes, { where: sample.key, index });
  const grey = runTransform(resize, image, rng.reset(0, 0, index)).data;
  const rgb = new Float32Array(grey.length * CHANNELS);
  for (let p = 0, o = 0; p < grey.length; p++, o += CHANNELS) {
    const v = grey[p] as number;
    rgb[o] = v;
    rgb[o + 1] = v;
    rgb[o + 2] = v;
  }
  const cls = sample.files.cls;
  return { image: rgb, label: cls ? Number(utf8.decode(cls)) : 0 };
});
