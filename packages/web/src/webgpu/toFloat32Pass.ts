import type { ToFloat32Plan } from '@medfusion/core/internal';

const USAGE_STORAGE = 0x80;
const USAGE_UNIFORM = 0x40;
const USAGE_COPY_DST = 0x08;
const SHADER_STAGE_COMPUTE = 0x4;
const WORKGROUP = 64;

/**
 * `dst[j] = f32(byte j of src) * table[c] + table[channels + c]`, `c = j mod channels`:
 * collate's `toFloat32` (`x * scale / std - mean / std`, coefficients rounded to f32 once).
 * One invocation per 4 source bytes (one u32, little-endian), bounded by `n`, so any
 * byte count works; a second dispatch dimension takes counts past the per-dimension limit.
 */
const SHADER = /* wgsl */ `
struct Params { n: u32, channels: u32, rowThreads: u32, pad: u32 }
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read> table: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let word = id.x + id.y * params.rowThreads;
  let first = word * 4u;
  if (first >= params.n) { return; }
  let packed = src[word];
  var c = first % params.channels;
  for (var k = 0u; k < 4u; k++) {
    let j = first + k;
    if (j >= params.n) { break; }
    let x = f32((packed >> (8u * k)) & 0xffu);
    dst[j] = x * table[c] + table[params.channels + c];
    c = c + 1u;
    if (c == params.channels) { c = 0u; }
  }
}
`;

/** One slot's conversion of one field: its uint8 input, float32 output and bind group. */
export interface ToFloat32Target {
  /** Where the CPU writes the field's uint8 bytes (usage STORAGE | COPY_DST). */
  input: GPUBuffer;
  /** Where the pass writes float32 values (the buffer handed to the caller). */
  output: GPUBuffer;
  params: GPUBuffer;
  bindGroup: GPUBindGroup;
}

/**
 * The compute pass behind `UploadRing`'s `toFloat32`: one pipeline and one
 * coefficient table per ring; per slot and field a {@link ToFloat32Target}
 * made once (when its buffers are made), so a batch costs one parameter write
 * and one dispatch, no new buffers.
 */
export class ToFloat32Pass {
  /** Channels of the coefficient table (1: the same for every value). */
  readonly channels: number;
  /** The fields converted. */
  readonly fields: ReadonlySet<string>;
  private readonly device: GPUDevice;
  private readonly pipeline: GPUComputePipeline;
  private readonly table: GPUBuffer;
  private readonly params = new Uint32Array(4);
  private readonly maxGroups: number;

  constructor(device: GPUDevice, plan: ToFloat32Plan, label: string) {
    this.device = device;
    this.channels = plan.mul.length;
    this.fields = plan.fields;
    this.maxGroups = device.limits?.maxComputeWorkgroupsPerDimension ?? 65_535;
    const layout = device.createBindGroupLayout({
      label: `${label}:toFloat32`,
      entries: [
        { binding: 0, visibility: SHADER_STAGE_COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 1, visibility: SHADER_STAGE_COMPUTE, buffer: { type: 'storage' } },
        { binding: 2, visibility: SHADER_STAGE_COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 3, visibility: SHADER_STAGE_COMPUTE, buffer: { type: 'uniform' } },
      ],
    });
    this.pipeline = device.createComputePipeline({
      label: `${label}:toFloat32`,
      layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module: device.createShaderModule({ code: SHADER }), entryPoint: 'main' },
    });
    const table = new Float32Array(2 * this.channels);
    table.set(plan.mul);
    table.set(plan.add, this.channels);
    this.table = device.createBuffer({
      label: `${label}:toFloat32:table`,
      size: table.byteLength,
      usage: USAGE_STORAGE | USAGE_COPY_DST,
    });
    device.queue.writeBuffer(this.table, 0, table);
  }

  /** Make the input, parameter buffer and bind group for `output` (`bytes` uint8 values). */
  target(output: GPUBuffer, bytes: number, label: string): ToFloat32Target {
    const input = this.device.createBuffer({
      label: `${label}:uint8`,
      size: Math.max(4, Math.ceil(bytes / 4) * 4),
      usage: USAGE_STORAGE | USAGE_COPY_DST,
    });
    const params = this.device.createBuffer({
      label: `${label}:params`,
      size: 16,
      usage: USAGE_UNIFORM | USAGE_COPY_DST,
    });
    const bindGroup = this.device.createBindGroup({
      layout: this.pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: input } },
        { binding: 1, resource: { buffer: output } },
        { binding: 2, resource: { buffer: this.table } },
        { binding: 3, resource: { buffer: params } },
      ],
    });
    return { input, output, params, bindGroup };
  }

  /**
   * Convert the first `n` bytes of `t.input` into `t.output`: writes the
   * parameters (queue order puts them before this submission) and records one
   * dispatch into `pass`.
   */
  encode(pass: GPUComputePassEncoder, t: ToFloat32Target, n: number): void {
    const threads = Math.ceil(n / 4);
    const groups = Math.max(1, Math.ceil(threads / WORKGROUP));
    const x = Math.min(groups, this.maxGroups);
    const y = Math.ceil(groups / x);
    this.params[0] = n;
    this.params[1] = this.channels;
    this.params[2] = x * WORKGROUP;
    this.device.queue.writeBuffer(t.params, 0, this.params);
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, t.bindGroup);
    pass.dispatchWorkgroups(x, y);
  }

  /** Destroy the buffers of `t` that the pass made (not its output). */
  static release(t: ToFloat32Target): void {
    t.input.destroy();
    t.params.destroy();
  }

  /** Destroy the coefficient table. */
  destroy(): void {
    this.table.destroy();
  }
}
