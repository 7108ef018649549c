// Decodes one DICOM file over and over (the bench's workers path): the file URL is the worker's name.
import { exposeLoader } from '@medfusion/web';
import { DicomDecoder } from '@medfusion/web/dicom';

const decoder = new DicomDecoder();
const bytes = fetch(self.name).then(async (r) => new Uint8Array(await r.arrayBuffer()));

exposeLoader(async (_index) => (await decoder.decode(await bytes)).image.data.length);
