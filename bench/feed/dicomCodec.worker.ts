// The codec ceiling of the dicom tier: the library's JPEG Lossless decoder alone (the codec step
// of DicomDecoder, no rescale, window, resize or float conversion) on the same slices, in as many
// workers as the tier decodes in. 'load' gets the .dcm files and cuts each one's frame out
// (parsed before the clock), then 'run' decodes every frame into the codec's reused buffer.
import { decodeJpegLossless } from '../../packages/web/src/sources/dicom/jpegLossless.js';
import { parsePart10 } from '../../packages/web/src/sources/dicom/parsePart10.js';

let frames: { bytes: Uint8Array; rows: number; columns: number; samplesPerPixel: number }[] = [];

self.onmessage = (e: MessageEvent<{ cmd: 'load'; images: Uint8Array[] } | { cmd: 'run' }>) => {
  try {
    if (e.data.cmd === 'load') {
      frames = e.data.images.map((bytes, i) => {
        const file = parsePart10(bytes, `slice ${i}`);
        return { bytes: file.frame(0), ...file.info };
      });
    } else {
      let samples = 0;
      for (const f of frames) samples += decodeJpegLossless(f.bytes, f).length;
      if (samples === 0) throw new Error('no samples decoded');
    }
    postMessage({ ok: true });
  } catch (err) {
    postMessage({ error: String(err) });
  }
};
