/** A port nobody listens on right now (on 127.0.0.1). */
export function freePort(): Promise<number>;
