// git's pkt-line framing: four hex digits giving the length (themselves included), then the data.

/** The flush packet that ends a section. */
export const FLUSH_PACKET = Buffer.from("0000");

const MAX_PACKET_BYTES = 65520;

export function pktLine(data: string | Buffer): Buffer {
  const payload = typeof data === "string" ? Buffer.from(data) : data;
  const length = payload.length + 4;
  if (length > MAX_PACKET_BYTES) {
    throw new RangeError(`a pkt-line holds at most ${MAX_PACKET_BYTES - 4} bytes`);
  }
  return Buffer.concat([Buffer.from(length.toString(16).padStart(4, "0")), payload]);
}
