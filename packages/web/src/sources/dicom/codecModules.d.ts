// Minimal types of the codec packages we load (they ship none).
declare module '@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs' {
  const factory: (module?: { locateFile?: (path: string) => string }) => Promise<unknown>;
  export default factory;
}
declare module '@cornerstonejs/codec-charls/decodewasmjs' {
  const factory: (module?: { locateFile?: (path: string) => string }) => Promise<unknown>;
  export default factory;
}
declare module '@cornerstonejs/codec-openjpeg/decodewasmjs' {
  const factory: (module?: { locateFile?: (path: string) => string }) => Promise<unknown>;
  export default factory;
}
