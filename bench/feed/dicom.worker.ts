// The decode workers of the dicom tier: each sample's .dcm member (a 512x512 CT slice, JPEG
// Lossless SV1) decoded by the library's DicomDecoder with a soft-tissue window (40/400: Rescale
// Slope/Intercept, the window to [0, 1]), resized to 224x224 (bilinear) and its grey repeated to
// 3 channels by the decoder's width/height/channels, in the pass that writes the sample:
// 224x224x3 floats in [0, 1], as the other encoded tiers deliver.
import { exposeTransform } from '@medfusion/web';
import { DicomDecoder } from '@medfusion/web/dicom';
import { CHANNELS, SIDE } from './types.js';

const decoder = new DicomDecoder({
  window: { center: 40, width: 400 },
  width: SIDE,
  height: SIDE,
  channels: CHANNELS,
});
const utf8 = new TextDecoder();

exposeTransform(async (sample, index) => {
  const bytes = sample.files.dcm;
  if (!bytes) throw new Error(`${sample.key}: no .dcm member`);
  const { image } = await decoder.decode(bytes, { where: sample.key, index });
  const cls = sample.files.cls;
  return { image: image.data, label: cls ? Number(utf8.decode(cls)) : 0 };
});
