// Writes a DICOM Part 10 file with dcmjs: shared by the demo's data generator
// (demo/scripts/generate-data.mjs) and the DICOM test fixtures (tests/setup/dicomFixtures.ts).
import dcmjs from 'dcmjs';

/**
 * `dataset` (dcmjs "naturalized" attributes, with SOPClassUID and SOPInstanceUID)
 * as a Part 10 file in Explicit VR Little Endian; `implementationClassUID` names the
 * writer in the file meta information.
 */
export function part10File(dataset, implementationClassUID) {
  const { DicomDict, DicomMetaDictionary } = dcmjs.data;
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: dataset.SOPClassUID,
    MediaStorageSOPInstanceUID: dataset.SOPInstanceUID,
    TransferSyntaxUID: '1.2.840.10008.1.2.1',
    ImplementationClassUID: implementationClassUID,
  };
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
  return new Uint8Array(dict.write());
}
