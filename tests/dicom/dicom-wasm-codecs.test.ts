// The WASM codecs (loaded once per realm): frames of different images and syntaxes decoded in any
// order (calls in flight interleaved) give the same pixels as one at a time; a broken codestream
// fails with DICOM_FORMAT instead of handing out the previous frame's pixels, and the next frame
// decodes; the codecs print nothing to the console (OpenJPEG logged 3 lines per frame).
import { DicomDecoder, DicomError, TransferSyntax } from '@medfusion/web/dicom';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';

const { files, filesUrl } = inject('dicom');
const WASM: readonly string[] = [
  TransferSyntax.JPEGBaseline,
  TransferSyntax.JPEGLSLossless,
  TransferSyntax.JPEGLSNearLossless,
  TransferSyntax.JPEG2000Lossless,
  TransferSyntax.JPEG2000,
];

async function bytesOf(file: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${filesUrl}${file}`)).arrayBuffer());
}

describe('DICOM WASM codecs', () => {
  afterEach(() => vi.restoreAllMocks());

  // first: Emscripten binds console.log when the module is made, so the spies must be there then
  it('prints nothing to the console while decoding', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => {}),
    );
    const decoder = new DicomDecoder();
    for (const f of files.filter((x) => WASM.includes(x.syntax))) {
      await decoder.decode(await bytesOf(f.file));
    }
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('decodes interleaved frames of every WASM syntax like one at a time', async () => {
    const wasm = files.filter((f) => WASM.includes(f.syntax));
    expect(wasm.length).toBeGreaterThanOrEqual(5);
    const decoder = new DicomDecoder();
    const bytes = await Promise.all(wasm.map((f) => bytesOf(f.file)));
    const alone: Float32Array[] = [];
    for (const b of bytes) alone.push((await decoder.decode(b)).image.data);
    // every file twice, all calls in flight at once, in reverse order
    const order = [...bytes.keys(), ...bytes.keys()].reverse();
    const mixed = await Promise.all(order.map((i) => decoder.decode(bytes[i] as Uint8Array)));
    for (const [k, i] of order.entries()) {
      expect(mixed[k]?.image.data, wasm[i]?.file).toEqual(alone[i]);
    }
  });

  it('fails a broken JPEG 2000 frame with DICOM_FORMAT, not the last pixels, then decodes the next', async () => {
    const f = files.find((x) => x.syntax === TransferSyntax.JPEG2000Lossless);
    if (!f) throw new Error('no JPEG 2000 fixture');
    const good = await bytesOf(f.file);
    const decoder = new DicomDecoder();
    const want = (await decoder.decode(good)).image.data;
    // wipe the codestream's start (FF 4F = SOC, FF 51 = SIZ): OpenJPEG cannot read its main header
    const bad = good.slice();
    let at = -1;
    for (let i = 0; i + 3 < bad.length; i++) {
      if (bad[i] === 0xff && bad[i + 1] === 0x4f && bad[i + 2] === 0xff && bad[i + 3] === 0x51) {
        at = i;
        break;
      }
    }
    expect(at).toBeGreaterThan(0);
    bad.fill(0, at, at + 40);
    const error = await decoder.decode(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DicomError);
    expect((error as DicomError).code).toBe('DICOM_FORMAT');
    expect((await decoder.decode(good)).image.data).toEqual(want);
  });
});
