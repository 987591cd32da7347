// The ip-whitelist rule with Go's net package semantics: ParseIP/ParseCIDR accept exactly what Go
// accepts (no leading zeros in IPv4, no zones), a bare address gets "/32" appended even when it is
// IPv6 (webhook's quirk: "::1" admits ::/32), and IPv4-mapped IPv6 addresses compare as IPv4.
import { fields } from "../go/unicode.ts";
import { RuleError } from "../types.ts";

interface Network {
  /** 4 bytes for IPv4 networks, 16 for IPv6. */
  ip: Uint8Array;
  mask: Uint8Array;
}

/** One field of an ip-range as webhook reads it. */
export interface IpRangeEntry {
  /** The field as written. */
  field: string;
  /** What net.ParseCIDR is given: the field, or a bare address with "/32" appended. */
  cidr: string;
  /** undefined where Go's ParseCIDR fails (the rule then answers 500, unless an earlier field matched). */
  network: Network | undefined;
}

/** The fields of an ip-range (strings.Fields), each parsed as CheckIPWhitelist parses it. */
export function parseIpRange(ipRange: string): IpRangeEntry[] {
  return fields(ipRange).map((field) => {
    const cidr = field.includes("/") ? field : `${field}/32`;
    return { field, cidr, network: parseCidr(cidr) };
  });
}

/** Ranges come from hooks files, so parsing once per distinct string is enough. */
const parsedRanges = new Map<string, (Network | RuleError)[]>();

/** webhook's CheckIPWhitelist; remoteAddr is Go's `ip:port` / `[ip]:port`. */
export function checkIpWhitelist(remoteAddr: string, ipRange: string): { ok: boolean; error?: RuleError } {
  let entries = parsedRanges.get(ipRange);
  if (entries === undefined) {
    entries = parseIpRange(ipRange).map(
      ({ cidr, network }) => network ?? new RuleError("hard", `invalid CIDR address: ${cidr}`),
    );
    parsedRanges.set(ipRange, entries);
  }
  const peer = parseRemoteIp(remoteAddr);
  for (const entry of entries) {
    // Go stops at the first bad range, but only when no earlier range matched.
    if (entry instanceof RuleError) return { ok: false, error: entry };
    if (peer !== undefined && contains(entry, peer)) return { ok: true };
  }
  return { ok: false };
}

function parseRemoteIp(remoteAddr: string): Uint8Array | undefined {
  let ip = trimChars(remoteAddr, " []");
  const colon = ip.lastIndexOf(":");
  if (colon !== -1) ip = trimChars(ip.slice(0, colon), " []");
  return parseIp(ip);
}

function trimChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start])) start++;
  while (end > start && chars.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

function contains(network: Network, address: Uint8Array): boolean {
  const ip = toIpv4(address) ?? address;
  if (ip.length !== network.ip.length) return false;
  for (let i = 0; i < ip.length; i++) {
    if ((ip[i] & network.mask[i]) !== network.ip[i]) return false;
  }
  return true;
}

/** net.ParseCIDR followed by IPNet's own normalisation (a v4-mapped network compares as IPv4). */
function parseCidr(cidr: string): Network | undefined {
  const slash = cidr.indexOf("/");
  if (slash === -1) return undefined;
  const address = cidr.slice(0, slash);
  const prefix = cidr.slice(slash + 1);
  const v4 = parseIpv4(address);
  const ip = v4 ?? parseIpv6(address);
  const bits = (v4 === undefined ? 16 : 4) * 8;
  if (ip === undefined || !/^[0-9]+$/.test(prefix) || Number(prefix) > bits) return undefined;
  const mask = prefixMask(Number(prefix), bits / 8);
  const network = ip.map((byte, i) => byte & mask[i]);
  const mapped = toIpv4(network);
  if (mapped === undefined) return { ip: network, mask };
  return { ip: mapped, mask: mask.length === 16 ? mask.subarray(12) : mask };
}

function prefixMask(ones: number, length: number): Uint8Array {
  const mask = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const bits = Math.max(0, Math.min(8, ones - i * 8));
    mask[i] = (0xff00 >> bits) & 0xff;
  }
  return mask;
}

function toIpv4(ip: Uint8Array): Uint8Array | undefined {
  if (ip.length === 4) return ip;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return undefined;
  if (ip[10] !== 0xff || ip[11] !== 0xff) return undefined;
  return ip.subarray(12);
}

/** net.ParseIP: 16 bytes (IPv4 as v4-mapped), or undefined. */
function parseIp(text: string): Uint8Array | undefined {
  for (const c of text) {
    if (c === ".") {
      const v4 = parseIpv4(text);
      return v4 === undefined ? undefined : mapIpv4(v4);
    }
    if (c === ":") return parseIpv6(text);
  }
  return undefined;
}

function mapIpv4(v4: Uint8Array): Uint8Array {
  const ip = new Uint8Array(16);
  ip[10] = 0xff;
  ip[11] = 0xff;
  ip.set(v4, 12);
  return ip;
}

const IPV4_PART = /^(0|[1-9][0-9]{0,2})$/;

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const ip = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!IPV4_PART.test(parts[i]) || Number(parts[i]) > 255) return undefined;
    ip[i] = Number(parts[i]);
  }
  return ip;
}

const HEX_GROUP = /^[0-9a-fA-F]+/;

/** Go's parseIPv6: one `::`, hex groups up to 0xffff, an optional trailing dotted IPv4. */
function parseIpv6(text: string): Uint8Array | undefined {
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  let s = text;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === "") return ip;
  }
  let i = 0;
  while (i < 16) {
    const group = HEX_GROUP.exec(s)?.[0];
    if (group === undefined || Number.parseInt(group, 16) > 0xffff) return undefined;
    if (s[group.length] === ".") {
      if ((ellipsis < 0 && i !== 12) || i + 4 > 16) return undefined;
      const v4 = parseIpv4(s);
      if (v4 === undefined) return undefined;
      ip.set(v4, i);
      s = "";
      i += 4;
      break;
    }
    const value = Number.parseInt(group, 16);
    ip[i] = value >> 8;
    ip[i + 1] = value & 0xff;
    i += 2;
    s = s.slice(group.length);
    if (s === "") break;
    if (s[0] !== ":" || s.length === 1) return undefined;
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      s = s.slice(1);
      if (s === "") break;
    }
  }
  if (s !== "") return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const shift = 16 - i;
    ip.copyWithin(ellipsis + shift, ellipsis, i);
    ip.fill(0, ellipsis, ellipsis + shift);
  } else if (ellipsis >= 0) return undefined;
  return ip;
}
