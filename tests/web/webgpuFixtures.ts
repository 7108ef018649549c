// What the WebGPU test files share: the adapter (if any), why GPU cases are skipped where there is
// none, and reading a GPUBuffer back. Chromium runs with SwiftShader's software adapter
// (vite.config.ts), so there WebGPU must work; Firefox ESR here has no adapter (navigator.gpu is
// missing) and WebKitGTK has WebGPU off, so their GPU cases are skipped with that reason in the name.
import { server } from 'vitest/browser';

/** An adapter seen at load time (for the skip decision), or null where the engine has none. */
const adapter = (await navigator.gpu?.requestAdapter().catch(() => null)) ?? null;
/** True where GPU cases must be skipped (never in Chromium, which must have SwiftShader). */
export const noWebGpu = server.browser !== 'chromium' && adapter === null;
/** Appended to a skipped describe's name: the engine and why. */
export const skipReason = noWebGpu
  ? ` [skipped in ${server.browser}: no WebGPU adapter (${navigator.gpu ? 'requestAdapter() is null' : 'navigator.gpu is missing'})]`
  : '';

/**
 * A device on a fresh adapter (an adapter gives one device, and test files share this module),
 * with the adapter's largest buffer limits.
 */
export async function newDevice(): Promise<GPUDevice> {
  if (!navigator.gpu) throw new Error('navigator.gpu missing: WebGPU flags not applied');
  const fresh = await navigator.gpu.requestAdapter();
  if (fresh === null) throw new Error('requestAdapter() returned null');
  return fresh.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: fresh.limits.maxStorageBufferBindingSize,
      maxBufferSize: fresh.limits.maxBufferSize,
    },
  });
}

/** The first `byteLength` bytes of `buffer` (usage COPY_SRC), through a mapped staging buffer. */
export async function readBack(
  device: GPUDevice,
  buffer: GPUBuffer,
  byteLength: number,
): Promise<Uint8Array> {
  const size = Math.ceil(byteLength / 4) * 4;
  const staging = device.createBuffer({
    size,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buffer, 0, staging, 0, size);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(staging.getMappedRange().slice(0, byteLength));
  staging.unmap();
  staging.destroy();
  return bytes;
}
