import { isIP } from "node:net";

// Where deliveries may go, in the syntax of Gitea's [webhook] ALLOWED_HOST_LIST: a comma-separated
// list of host name globs ("example.com", "*.example.org", "*"), CIDRs ("10.0.0.0/8", "fd00::/8")
// and the keywords "loopback", "private" and "external". A delivery is allowed when its URL's
// host name matches a glob, or else when each address it connects to matches a glob, a CIDR or a
// keyword — as Gitea decides, so a list written for Gitea means the same here. Where Gitea counts
// an address as public that no public server has (0.0.0.0/8, 240.0.0.0/4, the deprecated
// IPv4-compatible ::/96), "external" leaves it out.

/** Decides which hosts and addresses deliveries may go to. */
export interface AllowedHosts {
  /** Whether a delivery to the URL host `host` may connect to `address` (an IP `host` resolved to, or `host` itself when it is an IP). */
  allows(host: string, address: string): boolean;
}

interface Network {
  bytes: Uint8Array;
  prefix: number;
}

function parseIPv4(text: string): Uint8Array {
  return Uint8Array.from(text.split(".").map(Number));
}

function parseIPv6(text: string): Uint8Array {
  const bytes = new Uint8Array(16);
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const groups = (part: string): number[] => {
    if (part === "") return [];
    const words: number[] = [];
    for (const group of part.split(":")) {
      if (group.includes(".")) {
        const v4 = parseIPv4(group);
        words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        words.push(Number.parseInt(group, 16));
      }
    }
    return words;
  };
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/**
 * An IP address as its bytes, 4 for IPv4 and 16 for IPv6, an IPv4-mapped IPv6 address (which
 * connects to the IPv4 one) as its IPv4 bytes; undefined when `text` is no IP address.
 */
function parseIp(text: string): Uint8Array | undefined {
  const address = text.replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 4) return parseIPv4(address);
  if (family !== 6) return undefined;
  const bytes = parseIPv6(address);
  return V4_MAPPED_PREFIX.every((byte, i) => bytes[i] === byte) ? bytes.slice(12) : bytes;
}

function parseCidr(text: string): Network | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const bytes = parseIp(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (bytes === undefined || !/^\d{1,3}$/.test(bits)) return undefined;
  const written = isIP(text.slice(0, slash).replace(/%.*$/, "")) === 6 ? 128 : 32;
  // A mapped IPv4 network written in IPv6 ("::ffff:10.0.0.0/104") counts its prefix in IPv6 bits.
  const prefix = Number(bits) - (written - bytes.length * 8);
  if (Number(bits) > written || prefix < 0) return undefined;
  return { bytes, prefix };
}

function contains(network: Network, ip: Uint8Array): boolean {
  if (network.bytes.length !== ip.length) return false;
  const whole = Math.floor(network.prefix / 8);
  for (let i = 0; i < whole; i++) if (network.bytes[i] !== ip[i]) return false;
  const rest = network.prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (network.bytes[whole] & mask) === (ip[whole] & mask);
}

function networks(...cidrs: string[]): Network[] {
  return cidrs.map((cidr) => {
    const network = parseCidr(cidr);
    if (network === undefined) throw new Error(`bad built-in network ${cidr}`);
    return network;
  });
}

const LOOPBACK = networks("127.0.0.0/8", "::1/128");
// RFC 1918 and RFC 4193, plus the special-purpose ranges Gitea counts here so that "external"
// never reaches them: carrier-grade NAT, Azure's metadata address, IETF and documentation
// ranges, benchmarking, 6to4 and NAT64 (both embed IPv4 addresses), Teredo, ORCHID, discard.
const PRIVATE = networks(
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "fc00::/7",
  "100.64.0.0/10",
  "168.63.129.16/32",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "100::/64",
  "64:ff9b::/96",
  "64:ff9b:1::/48",
  "2001::/32",
  "2001:10::/28",
  "2001:20::/28",
  "2001:db8::/32",
  "2002::/16",
);
// Not global unicast: unspecified, "this network", link-local (cloud metadata lives at
// 169.254.169.254), multicast, reserved and broadcast, IPv4-compatible IPv6.
const NOT_GLOBAL_UNICAST = networks(
  "0.0.0.0/8",
  "169.254.0.0/16",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/96",
  "fe80::/10",
  "ff00::/8",
);

function within(list: Network[], ip: Uint8Array): boolean {
  return list.some((network) => contains(network, ip));
}

const KEYWORDS: Record<string, (ip: Uint8Array) => boolean> = {
  loopback: (ip) => within(LOOPBACK, ip),
  private: (ip) => within(PRIVATE, ip),
  external: (ip) => !within(NOT_GLOBAL_UNICAST, ip) && !within(LOOPBACK, ip) && !within(PRIVATE, ip),
};

// One position of a glob: `*`, `?`, a character class or one character.
type GlobToken =
  | { kind: "star" }
  | { kind: "one" }
  | { kind: "class"; negated: boolean; ranges: [string, string][] }
  | { kind: "char"; char: string };

/** A glob's tokens, as Go's path.Match reads them; undefined for a malformed glob (Go matches nothing then). */
function parseGlob(pattern: string): GlobToken[] | undefined {
  const tokens: GlobToken[] = [];
  let i = 0;
  const literal = (): string | undefined => {
    if (pattern[i] === "\\") i++;
    return i < pattern.length ? pattern[i++] : undefined;
  };
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "*") {
      i++;
      tokens.push({ kind: "star" });
    } else if (c === "?") {
      i++;
      tokens.push({ kind: "one" });
    } else if (c === "[") {
      i++;
      const negated = pattern[i] === "^";
      if (negated) i++;
      const ranges: [string, string][] = [];
      while (pattern[i] !== "]" || ranges.length === 0) {
        if (i >= pattern.length || pattern[i] === "]") return undefined;
        const low = literal();
        let high = low;
        if (pattern[i] === "-") {
          i++;
          high = literal();
        }
        if (low === undefined || high === undefined) return undefined;
        ranges.push([low, high]);
      }
      i++;
      tokens.push({ kind: "class", negated, ranges });
    } else {
      const char = literal();
      if (char === undefined) return undefined;
      tokens.push({ kind: "char", char });
    }
  }
  return tokens;
}

function matchesOne(token: GlobToken, char: string): boolean {
  if (token.kind === "one") return true;
  if (token.kind === "char") return token.char === char;
  if (token.kind === "class") {
    return token.ranges.some(([low, high]) => low <= char && char <= high) !== token.negated;
  }
  return false;
}

/**
 * Whether `text` matches a glob as Go's path.Match does for names without a slash: `*` any run of
 * characters, `?` one, `[a-z]` / `[^0-9]` one of a class, a backslash escapes. Iterative with one
 * backtrack point, so it takes time proportional to the lengths' product at worst.
 */
function globMatch(tokens: GlobToken[], text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < tokens.length && tokens[p].kind === "star") {
      star = p++;
      resume = t;
    } else if (p < tokens.length && matchesOne(tokens[p], text[t])) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < tokens.length && tokens[p].kind === "star") p++;
  return p === tokens.length;
}

/** Parses an allowed-host list (see above); an empty list allows nothing. */
export function parseAllowedHostList(list: string): AllowedHosts {
  const patterns: GlobToken[][] = [];
  let anything = false;
  const cidrs: Network[] = [];
  const keywords: ((ip: Uint8Array) => boolean)[] = [];
  for (const raw of list.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    const network = parseCidr(entry);
    if (network !== undefined) cidrs.push(network);
    else if (Object.hasOwn(KEYWORDS, entry)) keywords.push(KEYWORDS[entry]);
    else {
      const glob = parseGlob(entry);
      if (glob !== undefined) patterns.push(glob);
      anything ||= entry === "*";
    }
  }
  const matchesPattern = (name: string) => patterns.some((pattern) => globMatch(pattern, name));
  return {
    allows(host, address) {
      if (matchesPattern(host.toLowerCase()) || matchesPattern(address.toLowerCase())) return true;
      const ip = parseIp(address);
      if (ip === undefined) return false;
      return anything || keywords.some((keyword) => keyword(ip)) || cidrs.some((cidr) => contains(cidr, ip));
    },
  };
}
