// The decode workers of the dicom tier: each sample's .dcm member (a 512x512 CT slice, JPEG
// Lossless SV1) decoded by the library's DicomDecoder with a soft-tissue window (40/400: Rescale
// Slope/Intercept, the window to [0, 1]), resized to 224x224 (bilinear) and its grey repeated to
// 3 channels by the decoder's width/height/channels, in the pass that writes the sample:
// 224x224x3 floats in [0, 1], as the other encoded tiers deliver; with the driver's --dtype
// uint8 (posted by the page before the first call), uint8 (dtype 'uint8': round(value × 255)).
import { exposeTransform } from '@medfusion/web';
import { DicomDecoder } from '@medfusion/web/dicom';
import { CHANNELS, SIDE } from './types.js';

const options = {
  window: { center: 40, width: 400 },
  width: SIDE,
  height: SIDE,
  channels: CHANNELS,
} as const;
const decoders = {
  float32: new DicomDecoder(options),
  uint8: new DicomDecoder({ ...options, dtype: 'uint8' }),
};
let dtype: keyof typeof decoders = 'float32';
self.addEventListener('message', (e: MessageEvent) => {
  const asked = (e.data as { dicomDtype?: keyof typeof decoders } | null)?.dicomDtype;
  if (asked) dtype = asked;
});
const utf8 = new TextDecoder();

exposeTransform(async (sample, index) => {
  const bytes = sample.files.dcm;
  if (!bytes) throw new Error(`${sample.key}: no .dcm member`);
  const { image } = await decoders[dtype].decode(bytes, { where: sample.key, index });
  const cls = sample.files.cls;
  return { image: image.data, label: cls ? Number(utf8.decode(cls)) : 0 };
});
