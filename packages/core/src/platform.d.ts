// The platform globals core relies on, declared by shape. Every runtime core
// targets (browsers, workers, Node >= 18, Deno, Bun) has them; core compiles
// without DOM or Node types so it cannot use any other platform API by
// accident. Public signatures name the global `AbortSignal`, so a user's
// program (with DOM or Node types) sees its own platform type: no casts.
// This file is not emitted; the built .d.ts files refer to the global.

interface AbortSignal {
  /** True once the operation was aborted. */
  readonly aborted: boolean;
  /** Why it was aborted (usually a DOMException named `AbortError`). */
  // biome-ignore lint/suspicious/noExplicitAny: matches the platform's declaration
  readonly reason: any;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  throwIfAborted(): void;
}

declare var AbortSignal: {
  prototype: AbortSignal;
  // biome-ignore lint/suspicious/noExplicitAny: matches the platform's declaration
  abort(reason?: any): AbortSignal;
  timeout(milliseconds: number): AbortSignal;
  any(signals: AbortSignal[]): AbortSignal;
};

interface AbortController {
  readonly signal: AbortSignal;
  // biome-ignore lint/suspicious/noExplicitAny: matches the platform's declaration
  abort(reason?: any): void;
}

declare var AbortController: {
  prototype: AbortController;
  new (): AbortController;
};

interface TextEncoder {
  /** UTF-8 bytes of `input`. */
  encode(input?: string): Uint8Array;
}

declare var TextEncoder: {
  prototype: TextEncoder;
  new (): TextEncoder;
};

interface TextDecoder {
  /** The text of UTF-8 `input`. */
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoder;
};
