/**
 * Builds the DICOM fixtures (Node, at test time): each image of
 * tests/dicom/fixtureImages.ts is written as Explicit VR Little Endian with
 * dcmjs, then transcoded with DCMTK (dcmconv, dcmcrle, dcmcjpeg, dcmcjpls) and
 * GDCM (gdcmconv --j2k); dcmodify gives every file its own series and instance
 * UIDs (Orthanc refuses a second file with the same SOP Instance UID). Each
 * compressed file gets its truth beside it: `<file>.raw`, the samples DCMTK (GDCM
 * for JPEG 2000) decodes it to, so decoders are checked against another decoder.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import dcmjs from 'dcmjs';
import { aptInstall } from '../../scripts/chromium.mjs';
import { part10File } from '../../scripts/dicomPart10.mjs';
import {
  CD_EXPORT,
  type FixtureFile,
  type FixtureImage,
  IMAGES,
  VARIANTS,
} from '../dicom/fixtureImages.js';

const { DicomMetaDictionary } = dcmjs.data;
const TOOLS = [
  'dcmconv',
  'dcmcrle',
  'dcmcjpeg',
  'dcmcjpls',
  'dcmdrle',
  'dcmdjpeg',
  'dcmdjpls',
  'dcmodify',
  'dcmdump',
  'dcmmkdir',
  'gdcmconv',
  'gdcmraw',
];

/** Whether DCMTK and GDCM are on PATH; installs them with apt-get when root and missing. */
export function ensureDicomTools(): boolean {
  const have = () =>
    TOOLS.every((t) => ['/usr/bin', '/usr/local/bin'].some((d) => existsSync(join(d, t))));
  if (have()) return true;
  aptInstall(['dcmtk', 'libgdcm-tools']);
  return have();
}

function pixelBuffer(image: FixtureImage): ArrayBuffer {
  const n = image.frames * image.rows * image.columns * image.samplesPerPixel;
  const Array_ = image.bitsAllocated === 8 ? Uint8Array : image.signed ? Int16Array : Uint16Array;
  const px = new Array_(n);
  let k = 0;
  for (let f = 0; f < image.frames; f++)
    for (let y = 0; y < image.rows; y++)
      for (let x = 0; x < image.columns; x++)
        for (let c = 0; c < image.samplesPerPixel; c++) px[k++] = image.value(f, y, x, c);
  return px.buffer as ArrayBuffer;
}

/** `image` as a Part 10 file in Explicit VR Little Endian (dcmjs). */
export function writeExplicit(image: FixtureImage, study: string): Uint8Array {
  const sop = DicomMetaDictionary.uid();
  const sopClass =
    image.samplesPerPixel === 3 ? '1.2.840.10008.5.1.4.1.1.7' : '1.2.840.10008.5.1.4.1.1.2';
  const bits = image.bitsStored ?? image.bitsAllocated;
  const dataset: Record<string, unknown> & { SOPClassUID: string; SOPInstanceUID: string } = {
    SOPClassUID: sopClass,
    SOPInstanceUID: sop,
    StudyInstanceUID: study,
    SeriesInstanceUID: DicomMetaDictionary.uid(),
    Modality: image.samplesPerPixel === 3 ? 'OT' : 'CT',
    PatientName: 'Fixture^Synthetic',
    PatientID: 'MEDFUSION-TEST',
    PatientAge: '045Y',
    PatientSex: 'F',
    BodyPartExamined: 'CHEST',
    SamplesPerPixel: image.samplesPerPixel,
    PhotometricInterpretation: image.photometric,
    Rows: image.rows,
    Columns: image.columns,
    BitsAllocated: image.bitsAllocated,
    BitsStored: bits,
    HighBit: bits - 1,
    PixelRepresentation: image.signed ? 1 : 0,
    RescaleSlope: String(image.rescaleSlope),
    RescaleIntercept: String(image.rescaleIntercept),
    PixelSpacing: [0.5, 0.7],
    PixelData: [pixelBuffer(image)],
    _vrMap: { PixelData: image.bitsAllocated === 8 ? 'OB' : 'OW' },
  };
  if (image.samplesPerPixel === 3) dataset.PlanarConfiguration = 0;
  if (image.frames > 1) dataset.NumberOfFrames = String(image.frames);
  if (image.windowCenter !== undefined) {
    dataset.WindowCenter = String(image.windowCenter);
    dataset.WindowWidth = String(image.windowWidth);
  }
  return part10File(dataset, '1.2.826.0.1.3680043.10.1104.1');
}

/**
 * Transcode the Part 10 file `src` to `out` with DCMTK (GDCM for `j2k`): `variant` is a
 * variant name of tests/dicom/fixtureImages.ts (`rle`, `jpeg-lossless-sv1`, `j2k`, ...).
 */
export function transcode(variant: string, src: string, out: string): void {
  const run = (bin: string, args: string[]) =>
    execFileSync(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  switch (variant) {
    case 'implicit':
      return void run('dcmconv', ['+ti', src, out]);
    case 'deflated':
      return void run('dcmconv', ['+td', src, out]);
    case 'rle':
      return void run('dcmcrle', [src, out]);
    case 'jpegls':
      return void run('dcmcjpls', [src, out]);
    case 'jpegls-near':
      return void run('dcmcjpls', ['+en', '--max-deviation', '2', src, out]);
    case 'jpeg-lossless-sv1':
      return void run('dcmcjpeg', ['+e1', src, out]);
    case 'jpeg-lossless':
      return void run('dcmcjpeg', ['+el', '--selection-value', '6', src, out]);
    case 'jpeg-baseline':
      return void run('dcmcjpeg', ['+eb', '+q', '95', src, out]);
    case 'j2k':
      return void run('gdcmconv', ['--j2k', src, out]);
    default:
      throw new Error(`unknown variant ${variant}`);
  }
}

/** The tool that decodes each variant back to native pixels: DCMTK, GDCM for JPEG 2000. */
function decoderOf(variant: string): [string, string[]] | undefined {
  if (variant.startsWith('jpegls')) return ['dcmdjpls', []];
  if (variant.startsWith('jpeg')) return ['dcmdjpeg', []];
  if (variant === 'rle') return ['dcmdrle', []];
  if (variant === 'j2k') return ['gdcmconv', ['--raw']];
  return undefined;
}

/**
 * The truth for a compressed file: its Pixel Data as DCMTK (or GDCM, for JPEG 2000)
 * decodes it, native little-endian samples of every frame, written to `<file>.raw`,
 * with the rescale of the decoded file (DCMTK's lossy encoder shifts 8-bit ranges
 * and says so in Rescale Intercept). Null for native variants (they need none).
 */
function writeToolTruth(variant: string, file: string, image: FixtureImage): FixtureFile['truth'] {
  const decoder = decoderOf(variant);
  if (!decoder) return null;
  const native = `${file}.native.dcm`;
  const raw = `${file}.raw`;
  const [bin, args] = decoder;
  execFileSync(bin, [...args, file, native], { stdio: ['ignore', 'ignore', 'pipe'] });
  execFileSync('gdcmraw', ['-i', native, '-o', raw, '-t', '7fe0,0010'], { stdio: 'ignore' });
  rmSync(native);
  // Pixel Data is padded to an even length: keep the samples only.
  const bytes =
    (image.frames * image.rows * image.columns * image.samplesPerPixel * image.bitsAllocated) / 8;
  writeFileSync(raw, readFileSync(raw).subarray(0, bytes));
  const rescale = (tag: string, absent: number) => {
    const m = /\[([-0-9.eE+]+)\]/.exec(
      execFileSync('dcmdump', ['+P', tag, file], { encoding: 'utf8' }),
    );
    return m ? Number(m[1]) : absent;
  };
  return {
    raw: basename(raw),
    slope: rescale('RescaleSlope', 1),
    intercept: rescale('RescaleIntercept', 0),
  };
}

function uidOf(file: string, tag: string): string {
  const line = execFileSync('dcmdump', ['+P', tag, file], { encoding: 'utf8' });
  const m = /\[([0-9.]+)\]/.exec(line);
  if (!m) throw new Error(`${file} has no ${tag}`);
  return m[1] as string;
}

/**
 * Write every fixture file into `dir` (by default the test images and variants of
 * tests/dicom/fixtureImages.ts; the dicom bench passes its own); returns their descriptions.
 */
export function buildDicomFixtures(
  dir: string,
  images: readonly FixtureImage[] = IMAGES,
  variants: typeof VARIANTS = VARIANTS,
): FixtureFile[] {
  mkdirSync(dir, { recursive: true });
  const study = DicomMetaDictionary.uid();
  const files: FixtureFile[] = [];
  for (const image of images) {
    const base = join(dir, `${image.name}-source.dcm`);
    writeFileSync(base, writeExplicit(image, study));
    for (const [name, variant, syntax, tolerance] of variants) {
      if (name !== image.name) continue;
      const file = `${name}-${variant}.dcm`;
      const out = join(dir, file);
      if (variant === 'explicit') writeFileSync(out, writeExplicit(image, study));
      else transcode(variant, base, out);
      // New series and instance UIDs for each file; then the header tells what they are.
      const tmp = `${out}.tmp`;
      renameSync(out, tmp);
      execFileSync('dcmodify', ['-nb', '-gse', '-gin', tmp], { stdio: 'ignore' });
      renameSync(tmp, out);
      files.push({
        truth: writeToolTruth(variant, out, image),
        file,
        image: name,
        syntax,
        tolerance,
        series: uidOf(out, 'SeriesInstanceUID'),
        instance: uidOf(out, 'SOPInstanceUID'),
        study,
      });
    }
  }
  return files;
}

/**
 * A CD/DVD export as a PACS writes it, under `dir/cd`: two fixture files copied
 * to `IMAGES/IM1`, `IMAGES/IM2` and a DICOMDIR indexing them, made by DCMTK's
 * dcmmkdir (`+I` invents the type 1 attributes the fixtures lack).
 */
export function writeCdExport(dir: string): void {
  const root = join(dir, 'cd');
  mkdirSync(join(root, 'IMAGES'), { recursive: true });
  for (const [path, from] of CD_EXPORT.images) copyFileSync(join(dir, from), join(dir, path));
  execFileSync('dcmmkdir', ['--recurse', '+I', '+id', root, 'IMAGES'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}
