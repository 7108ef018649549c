// The part of dcmjs the DICOM fixture writer uses (dcmjs ships no types).
declare module 'dcmjs' {
  const dcmjs: {
    data: {
      DicomMetaDictionary: {
        uid(): string;
        denaturalizeDataset(dataset: Record<string, unknown>): Record<string, unknown>;
      };
      DicomDict: new (
        meta: Record<string, unknown>,
      ) => { dict: Record<string, unknown>; write(): ArrayBuffer };
    };
  };
  export default dcmjs;
}
