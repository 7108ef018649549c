import { DicomError } from './DicomError.js';
import type { DicomImageInfo } from './imageInfo.js';

/**
 * JPEG Lossless, Huffman coded (ITU T.81 process 14, DICOM 1.2.840.10008.1.2.4.57
 * and .70): predictors 1-7, 2-16 bits, point transform, restart intervals, one or
 * several scans. Written for DICOM because the decoder it replaces guessed the end
 * of the entropy-coded data from a look-ahead and dropped the last pixel of some
 * frames without an error. Here the bit reader knows where the coded data ends:
 * a marker stops it, and a sample that would need bits past the end fails the
 * frame (`DICOM_FORMAT`) instead of decoding zeros.
 *
 * The output is the frame's samples, interleaved, in a buffer reused per realm
 * (valid until the next call): `Uint8Array` for precision ≤ 8, else `Uint16Array`
 * holding the values modulo 2^16, as the stored bits (signed images keep their
 * two's complement bit pattern).
 */
export function decodeJpegLossless(
  data: Uint8Array,
  info: Pick<DicomImageInfo, 'rows' | 'columns' | 'samplesPerPixel'>,
): Uint8Array | Uint16Array {
  return new LosslessDecoder(data, info).decode();
}

/** Samples of the last frame, reused: frames of one series have one size. */
let scratch = new Uint16Array(0);

/** Largest frame accepted: 2^30 samples, more than any DICOM frame holds. */
const MAX_SAMPLES = 2 ** 30;

interface Component {
  id: number;
  /** Index of the component in the output's interleaving. */
  slot: number;
}

/** A canonical Huffman table (T.81 C and F.2.2.3) with a 9-bit look-up. */
interface HuffmanTable {
  /** `(length << 8) | value` for codes up to 9 bits, by their next 9 bits; 0 = longer. */
  fast: Uint16Array;
  /** Largest code of each length 1-16 (-1 when none), index = length. */
  maxCode: Int32Array;
  /** Value index of each length's first code minus that code. */
  offset: Int32Array;
  values: Uint8Array;
}

const FAST_BITS = 9;

function fail(message: string): never {
  throw new DicomError('DICOM_FORMAT', `JPEG Lossless: ${message}`);
}

function buildTable(counts: Uint8Array, values: Uint8Array): HuffmanTable {
  const fast = new Uint16Array(1 << FAST_BITS);
  const maxCode = new Int32Array(18).fill(-1);
  const offset = new Int32Array(18);
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    const n = counts[length - 1] as number;
    offset[length] = k - code;
    for (let i = 0; i < n; i++, k++, code++) {
      if (length <= FAST_BITS) {
        const shift = FAST_BITS - length;
        const base = code << shift;
        for (let j = 0; j < 1 << shift; j++) fast[base + j] = (length << 8) | (values[k] as number);
      }
    }
    if (n > 0) maxCode[length] = code - 1;
    if (code > 1 << length) fail('a Huffman table has more codes than its lengths allow');
    code <<= 1;
  }
  maxCode[17] = 0x7fffffff;
  return { fast, maxCode, offset, values };
}

class LosslessDecoder {
  private pos = 0;
  private readonly tables: (HuffmanTable | undefined)[] = [];
  private precision = 0;
  private rows = 0;
  private columns = 0;
  private readonly components: Component[] = [];
  private restartInterval = 0;
  private out: Uint16Array = scratch;
  private framed = false;
  // Bit reader: `acc` holds `bits` unread bits (low end); `ended` once a marker stopped it.
  private acc = 0;
  private bits = 0;
  private ended = false;
  /** Zero bits in `acc` that were handed out past the end of the coded data. */
  private zeros = 0;
  /** Such zero bits taken as if they were data: the frame is truncated. */
  private overrun = 0;

  constructor(
    private readonly data: Uint8Array,
    private readonly info: Pick<DicomImageInfo, 'rows' | 'columns' | 'samplesPerPixel'>,
  ) {}

  decode(): Uint8Array | Uint16Array {
    const d = this.data;
    if (d.length < 4 || d[0] !== 0xff || d[1] !== 0xd8) fail('the frame does not start with SOI');
    this.pos = 2;
    let scans = 0;
    for (;;) {
      // Some writers end the frame after the last scan without EOI.
      if (this.pos >= d.length && scans > 0) break;
      const marker = this.nextMarker();
      if (marker === 0xd9) break; // EOI
      if (marker >= 0xd0 && marker <= 0xd7) fail('a restart marker outside a scan');
      const length = this.u16();
      const end = this.pos + length - 2;
      if (length < 2 || end > d.length) fail(`segment FF${hex(marker)} runs past the frame`);
      if (marker === 0xc4) this.readHuffmanTables(end);
      else if (marker === 0xc3) this.readFrameHeader(end);
      else if (marker === 0xdd) this.restartInterval = this.u16();
      else if (marker === 0xda) {
        this.decodeScan(end);
        scans++;
        continue;
      } else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc8 && marker !== 0xcc) {
        throw new DicomError(
          'DICOM_UNSUPPORTED',
          `JPEG Lossless: frame type SOF${marker - 0xc0} is not lossless process 14`,
        );
      }
      this.pos = end;
    }
    if (scans === 0) fail('no scan before EOI');
    const n = this.rows * this.columns * this.components.length;
    return this.precision > 8 ? this.out.subarray(0, n) : this.bytes(n);
  }

  /** Samples narrowed to bytes for precision ≤ 8, in the scratch buffer's memory. */
  private bytes(n: number): Uint8Array {
    const b = new Uint8Array(this.out.buffer, 0, n);
    for (let i = 0; i < n; i++) b[i] = (this.out[i] as number) & 0xff;
    return b;
  }

  private nextMarker(): number {
    const d = this.data;
    // Fill bytes (0xFF runs) may precede a marker; anything else between segments is an error.
    if (this.pos >= d.length) fail('the frame ends before EOI');
    if (d[this.pos] !== 0xff) fail(`expected a marker at byte ${this.pos}`);
    while (this.pos < d.length && d[this.pos] === 0xff) this.pos++;
    if (this.pos >= d.length) fail('the frame ends before EOI');
    return d[this.pos++] as number;
  }

  private u16(): number {
    const d = this.data;
    if (this.pos + 2 > d.length) fail('the frame ends inside a segment');
    const v = ((d[this.pos] as number) << 8) | (d[this.pos + 1] as number);
    this.pos += 2;
    return v;
  }

  private readHuffmanTables(end: number): void {
    const d = this.data;
    while (this.pos < end) {
      const id = (d[this.pos] as number) & 0x0f;
      if (id > 3 || this.pos + 17 > end) fail('a DHT segment is malformed');
      const counts = d.subarray(this.pos + 1, this.pos + 17);
      let total = 0;
      for (const c of counts) total += c;
      const start = this.pos + 17;
      if (start + total > end) fail('a DHT segment is shorter than its counts');
      this.tables[id] = buildTable(counts, d.subarray(start, start + total));
      this.pos = start + total;
    }
  }

  private readFrameHeader(end: number): void {
    if (this.framed) fail('a second frame header');
    this.framed = true;
    const d = this.data;
    this.precision = d[this.pos] as number;
    this.rows = ((d[this.pos + 1] as number) << 8) | (d[this.pos + 2] as number);
    this.columns = ((d[this.pos + 3] as number) << 8) | (d[this.pos + 4] as number);
    const count = d[this.pos + 5] as number;
    if (this.precision < 2 || this.precision > 16) fail(`precision ${this.precision} bits`);
    if (this.rows === 0) fail('a frame of 0 rows (DNL) is not supported');
    if (this.columns === 0 || count < 1 || count > 4) fail('a frame of 0 columns or components');
    if (this.pos + 6 + count * 3 > end) fail('the frame header is shorter than its components');
    for (let c = 0; c < count; c++) {
      const at = this.pos + 6 + c * 3;
      if (d[at + 1] !== 0x11) fail('subsampled components are not lossless DICOM');
      this.components.push({ id: d[at] as number, slot: c });
    }
    const { rows, columns, samplesPerPixel } = this.info;
    if (this.rows !== rows || this.columns !== columns || count !== samplesPerPixel) {
      fail(
        `the frame is ${this.columns}x${this.rows}x${count}, the header says ${columns}x${rows}x${samplesPerPixel}`,
      );
    }
    const n = this.rows * this.columns * count;
    if (n > MAX_SAMPLES) fail(`${this.columns}x${this.rows}x${count} samples is too large`);
    if (scratch.length < n) scratch = new Uint16Array(n);
    this.out = scratch;
  }

  private decodeScan(end: number): void {
    if (!this.framed) fail('a scan before the frame header');
    const d = this.data;
    const ns = d[this.pos] as number;
    if (ns < 1 || ns > this.components.length || this.pos + 1 + ns * 2 + 3 > end) {
      fail('the scan header is malformed');
    }
    const slots = new Int32Array(ns);
    const tables: HuffmanTable[] = [];
    for (let i = 0; i < ns; i++) {
      const id = d[this.pos + 1 + i * 2] as number;
      const component = this.components.find((c) => c.id === id);
      const table = this.tables[(d[this.pos + 2 + i * 2] as number) >> 4];
      if (!component) fail(`the scan names component ${id}, which the frame lacks`);
      if (!table) fail(`component ${id} uses a Huffman table that was not defined`);
      slots[i] = component.slot;
      tables.push(table);
    }
    const predictor = d[this.pos + 1 + ns * 2] as number;
    const pt = (d[this.pos + 3 + ns * 2] as number) & 0x0f;
    if (predictor < 1 || predictor > 7) fail(`predictor ${predictor}`);
    if (pt >= this.precision) fail(`point transform ${pt}`);
    this.pos = end;
    this.resetBits();
    this.overrun = 0;
    this.scan(slots, tables, predictor, pt);
    if (this.overrun > 0) fail(`the coded data ends ${this.overrun} bits before the last sample`);
    this.toMarker();
  }

  private scan(slots: Int32Array, tables: HuffmanTable[], predictor: number, pt: number): void {
    const out = this.out;
    const { rows, columns } = this;
    const stride = this.components.length;
    const ns = slots.length;
    const initial = 1 << (this.precision - pt - 1);
    const rowStride = columns * stride;
    const interval = this.restartInterval;
    let left = interval;
    // The predicted values are kept before the point transform; outputs are shifted back.
    let restartRow = true; // the first line of the scan or of a restart interval
    for (let y = 0; y < rows; y++) {
      for (let x = 0; x < columns; x++) {
        if (interval > 0) {
          if (left === 0) {
            this.restart();
            left = interval;
            restartRow = true;
          }
          left--;
        }
        const at = (y * columns + x) * stride;
        for (let i = 0; i < ns; i++) {
          const o = at + (slots[i] as number);
          let p: number;
          if (restartRow && x === 0) p = initial;
          else if (restartRow) p = (out[o - stride] as number) >> pt;
          else if (x === 0) p = (out[o - rowStride] as number) >> pt;
          else {
            const ra = (out[o - stride] as number) >> pt;
            const rb = (out[o - rowStride] as number) >> pt;
            const rc = (out[o - rowStride - stride] as number) >> pt;
            p = predict(predictor, ra, rb, rc);
          }
          out[o] = ((p + this.difference(tables[i] as HuffmanTable)) & 0xffff) << pt;
        }
      }
      // A restart's first line ends with its row (restarts come at row starts in DICOM files).
      restartRow = false;
    }
  }

  /** One coded difference (T.81 H.1.2.2): a Huffman-coded size, then that many bits. */
  private difference(table: HuffmanTable): number {
    const size = this.huffman(table);
    if (size === 0) return 0;
    if (size === 16) return 32768;
    if (size > 16) fail(`difference size ${size}`);
    const v = this.take(size);
    return v < 1 << (size - 1) ? v - (1 << size) + 1 : v;
  }

  private huffman(table: HuffmanTable): number {
    if (this.bits < 16) this.fill();
    const peek = (this.acc >>> (this.bits - FAST_BITS)) & ((1 << FAST_BITS) - 1);
    const hit = table.fast[peek] as number;
    if (hit !== 0) {
      this.bits -= hit >> 8;
      this.spent();
      return hit & 0xff;
    }
    let code = 0;
    for (let length = 1; length <= 16; length++) {
      code = (code << 1) | ((this.acc >>> (this.bits - length)) & 1);
      if (code <= (table.maxCode[length] as number)) {
        this.bits -= length;
        this.spent();
        return table.values[code + (table.offset[length] as number)] as number;
      }
    }
    return fail('a code that is in no Huffman table');
  }

  private take(n: number): number {
    if (this.bits < n) this.fill();
    this.bits -= n;
    const v = (this.acc >>> this.bits) & ((1 << n) - 1);
    this.spent();
    return v;
  }

  /** Counts the bits just taken that were zeros handed out past the coded data. */
  private spent(): void {
    if (this.bits < this.zeros) {
      this.overrun += this.zeros - this.bits;
      this.zeros = this.bits;
    }
  }

  /** Tops the reader up to more than 24 bits; zeros once a marker ends the coded data. */
  private fill(): void {
    const d = this.data;
    while (this.bits <= 24) {
      let byte = 0;
      if (!this.ended) {
        const b = this.pos < d.length ? (d[this.pos] as number) : -1;
        if (b === 0xff && d[this.pos + 1] === 0x00) {
          byte = 0xff; // a stuffed 0xFF data byte
          this.pos += 2;
        } else if (b === -1 || b === 0xff) {
          this.ended = true; // a marker (or the frame's end): the coded data stops here
        } else {
          byte = b;
          this.pos++;
        }
      }
      if (this.ended) this.zeros += 8;
      this.acc = ((this.acc << 8) | byte) >>> 0;
      this.bits += 8;
    }
  }

  /** Skips what is left of the coded data (the last byte's padding) up to the next marker. */
  private toMarker(): void {
    const d = this.data;
    while (this.pos < d.length && !(d[this.pos] === 0xff && d[this.pos + 1] !== 0x00)) {
      this.pos += d[this.pos] === 0xff ? 2 : 1;
    }
    this.resetBits();
  }

  private resetBits(): void {
    this.acc = 0;
    this.bits = 0;
    this.zeros = 0;
    this.ended = false;
  }

  /** At a restart interval's end: the byte-aligned RSTn marker, then fresh bits. */
  private restart(): void {
    const d = this.data;
    this.toMarker();
    const m = d[this.pos + 1];
    if (d[this.pos] !== 0xff || m === undefined || m < 0xd0 || m > 0xd7) {
      fail(`a restart marker is missing at byte ${this.pos}`);
    }
    this.pos += 2;
  }
}

function predict(predictor: number, ra: number, rb: number, rc: number): number {
  switch (predictor) {
    case 1:
      return ra;
    case 2:
      return rb;
    case 3:
      return rc;
    case 4:
      return ra + rb - rc;
    case 5:
      return ra + ((rb - rc) >> 1);
    case 6:
      return rb + ((ra - rc) >> 1);
    default:
      return (ra + rb) >> 1;
  }
}

function hex(n: number): string {
  return n.toString(16).toUpperCase().padStart(2, '0');
}
