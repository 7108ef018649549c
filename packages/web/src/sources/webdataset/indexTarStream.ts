import { MedFusionError, SourceFormatError, type TarMember } from '@medfusion/core';
import { createTarDecoder } from 'modern-tar';

/**
 * Index a tar stream in one pass: the names and sizes come from the tar
 * parser (modern-tar, which resolves PAX and GNU long names); the data offset
 * of each member is where its first body chunk lies in the input, found from
 * the chunk the parser hands back (it slices input chunks, never copies).
 * `onChunk` sees every input chunk (e.g. to hash the shard on the way).
 */
export async function indexTarStream(
  stream: ReadableStream<Uint8Array>,
  onChunk?: (chunk: Uint8Array) => void,
): Promise<TarMember[]> {
  const bases = new Map<ArrayBufferLike, number>();
  let position = 0;
  const tracked = stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let c = chunk;
        const known = bases.get(c.buffer);
        if (known !== undefined && known !== position - c.byteOffset) c = c.slice();
        bases.set(c.buffer, position - c.byteOffset);
        position += c.length;
        onChunk?.(c);
        controller.enqueue(c);
      },
    }),
  );
  const decoder = createTarDecoder({ strict: true });
  const entries = tracked.pipeThrough(decoder);
  const members: TarMember[] = [];
  const reader = entries.getReader();
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      const { header, body } = r.value;
      const isFile = header.type === undefined || header.type === 'file';
      let offset = -1;
      const bodyReader = body.getReader();
      for (;;) {
        const b = await bodyReader.read();
        if (b.done) break;
        if (offset < 0) {
          const base = bases.get(b.value.buffer);
          if (base === undefined) {
            throw new SourceFormatError(`cannot locate the data of tar member ${header.name}`);
          }
          offset = base + b.value.byteOffset;
        }
      }
      if (!isFile) continue;
      if (header.size > 0 && (offset < 0 || offset % 512 !== 0)) {
        throw new SourceFormatError(`tar member ${header.name} has no 512-aligned data offset`);
      }
      members.push({ name: header.name, offset: Math.max(offset, 0), size: header.size });
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    if (error instanceof MedFusionError) throw error; // ours, e.g. the stream's REQUEST_TIMEOUT
    if (error instanceof Error && /tar/i.test(error.message)) {
      throw new SourceFormatError(`not a valid tar shard: ${error.message}`, { cause: error });
    }
    throw error;
  }
  return members;
}
