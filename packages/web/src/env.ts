/** Whether the page is cross-origin isolated (SharedArrayBuffer available). */
export function isCrossOriginIsolated(): boolean {
  return globalThis.crossOriginIsolated === true;
}
