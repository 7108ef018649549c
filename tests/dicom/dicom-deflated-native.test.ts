// Deflated Explicit VR Little Endian is inflated by the platform's zlib (DecompressionStream) where
// there is one, and by fflate where there is none: the same pixels either way; a broken stream
// still fails with DICOM_FORMAT.
import { DicomDecoder, DicomError, TransferSyntax } from '@medfusion/web/dicom';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';

const { files, filesUrl } = inject('dicom');

async function deflatedFile(): Promise<Uint8Array> {
  const f = files.find((x) => x.syntax === TransferSyntax.DeflatedExplicitVRLittleEndian);
  if (!f) throw new Error('no Deflated fixture');
  return new Uint8Array(await (await fetch(`${filesUrl}${f.file}`)).arrayBuffer());
}

describe('Deflated DICOM: native inflate', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('inflates with DecompressionStream, and with fflate without it, to the same pixels', async () => {
    const bytes = await deflatedFile();
    const Native = globalThis.DecompressionStream;
    const formats: string[] = [];
    vi.stubGlobal(
      'DecompressionStream',
      class extends Native {
        constructor(format: CompressionFormat) {
          super(format);
          formats.push(format);
        }
      },
    );
    const native = await new DicomDecoder().decode(bytes);
    expect(formats).toEqual(['deflate-raw']);
    vi.stubGlobal('DecompressionStream', undefined);
    const fallback = await new DicomDecoder().decode(bytes);
    expect(native.image.shape).toEqual(fallback.image.shape);
    expect(native.image.data).toEqual(fallback.image.data);
    expect(native.transferSyntax).toBe(TransferSyntax.DeflatedExplicitVRLittleEndian);
  });

  it('fails a truncated deflate stream with DICOM_FORMAT', async () => {
    const bytes = await deflatedFile();
    const error = await new DicomDecoder()
      .decode(bytes.subarray(0, bytes.length >> 1))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DicomError);
    expect((error as DicomError).code).toBe('DICOM_FORMAT');
  });
});
