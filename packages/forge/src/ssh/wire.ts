// The SSH wire encoding of keys (RFC 4251 §5): length-prefixed strings and mpints. A key blob is
// client-supplied, so every read is bounds-checked and the caller decides what a failure means.

export class MalformedKey extends Error {}

export class WireReader {
  readonly #buffer: Buffer;
  #offset = 0;

  constructor(buffer: Buffer) {
    this.#buffer = buffer;
  }

  string(): Buffer {
    if (this.#offset + 4 > this.#buffer.length) throw new MalformedKey("truncated key data");
    const length = this.#buffer.readUInt32BE(this.#offset);
    const start = this.#offset + 4;
    if (length > this.#buffer.length - start) throw new MalformedKey("truncated key data");
    this.#offset = start + length;
    return this.#buffer.subarray(start, this.#offset);
  }

  text(): string {
    const bytes = this.string();
    if (!/^[\x21-\x7e]*$/.test(bytes.toString("latin1"))) throw new MalformedKey("a name is not printable");
    return bytes.toString("latin1");
  }

  /** A positive multi-precision integer, without the sign byte. */
  positiveMpint(): Buffer {
    const bytes = this.string();
    if (bytes.length === 0 || (bytes[0] & 0x80) !== 0) throw new MalformedKey("an integer is not positive");
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    return bytes.subarray(start);
  }

  end(): void {
    if (this.#offset !== this.#buffer.length) throw new MalformedKey("unexpected data after the key");
  }
}

export function wireString(value: Buffer | string): Buffer {
  const bytes = typeof value === "string" ? Buffer.from(value, "latin1") : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** An mpint for a positive integer given as big-endian bytes without sign byte. */
export function wirePositiveMpint(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return wireString((trimmed[0] & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}
