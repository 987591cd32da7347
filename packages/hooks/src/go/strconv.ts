// Go's strconv number and quoting rules, for text webhook reads and produces through Go: flag and
// hooks file integers, hooks file scalars decoded into strings (ghodss/yaml formats floats as
// float32 'g') and template output (fmt, js).

/** strconv's ErrSyntax and ErrRange texts. */
export type NumError = "invalid syntax" | "value out of range";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Base 0: a sign, then 0x/0o/0b prefixes or a leading-0 octal, or decimal; `_` checked after. */
const BASE_0 = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/;

function parseBase0(text: string): { sign: string; magnitude: bigint } | undefined {
  const match = BASE_0.exec(text);
  if (match === null) return undefined;
  const [, sign, body] = match;
  // Go allows `_` only between digits or right after a base prefix.
  if (/__|_$/.test(body)) return undefined;
  const digits = body.replaceAll("_", "");
  return { sign, magnitude: BigInt(/^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits) };
}

/** strconv.ParseInt(text, 0, 64). */
export function parseInt64(text: string): bigint | NumError {
  const parsed = parseBase0(text);
  if (parsed === undefined) return "invalid syntax";
  const value = parsed.sign === "-" ? -parsed.magnitude : parsed.magnitude;
  return value < INT64_MIN || value > INT64_MAX ? "value out of range" : value;
}

/** strconv.ParseUint(text, 0, 64): no sign at all. */
export function parseUint64(text: string): bigint | NumError {
  const parsed = parseBase0(text);
  if (parsed === undefined || parsed.sign !== "") return "invalid syntax";
  return parsed.magnitude > UINT64_MAX ? "value out of range" : parsed.magnitude;
}

export type FloatFormat = "e" | "E" | "f" | "F" | "g" | "G";

/** A decimal as Go's strconv rounds it: significant digits without trailing zeros, point position. */
interface Decimal {
  digits: string;
  point: number;
}

function toDecimal(text: string): Decimal {
  const [mantissa, exponent = "0"] = text.toLowerCase().split("e");
  const dot = mantissa.indexOf(".");
  const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
  let digits = intPart + (dot < 0 ? "" : mantissa.slice(dot + 1));
  let point = intPart.length + Number(exponent);
  const lead = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(lead).replace(/0+$/, "");
  point -= lead;
  return digits === "" ? { digits: "", point: 0 } : { digits, point };
}

/** Shortest digits that read back as the same value (float32 when bitSize is 32). */
function shortestDecimal(abs: number, bitSize: 32 | 64): Decimal {
  if (bitSize === 64) return toDecimal(abs.toExponential());
  const single = Math.fround(abs);
  for (let precision = 1; precision < 9; precision++) {
    const text = single.toPrecision(precision);
    if (Math.fround(Number(text)) === single) return toDecimal(text);
  }
  return toDecimal(single.toPrecision(9));
}

/** The exact decimal value of a float64 (every binary fraction terminates in decimal). */
function exactDecimal(abs: number): Decimal {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, abs);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  if (biased !== 0) mantissa |= 1n << 52n;
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return toDecimal((mantissa << BigInt(exponent)).toString());
  return toDecimal(`${mantissa * 5n ** BigInt(-exponent)}e${exponent}`);
}

/** Go's decimal rounding to `count` significant digits: half away from zero, exact halves to even. */
function roundDecimal({ digits, point }: Decimal, count: number): Decimal {
  if (count < 0 || count >= digits.length) return { digits, point };
  const next = digits[count];
  const exactHalf = next === "5" && count + 1 === digits.length;
  const up = exactHalf ? count > 0 && Number(digits[count - 1]) % 2 === 1 : next >= "5";
  if (!up) return toDecimal(`0.${digits.slice(0, count)}e${point}`);
  let i = count - 1;
  while (i >= 0 && digits[i] === "9") i--;
  if (i < 0) return { digits: "1", point: point + 1 };
  return toDecimal(`0.${digits.slice(0, i)}${Number(digits[i]) + 1}e${point}`);
}

function layoutExponent(digits: string, point: number, precision: number, letter: string): string {
  let text = digits[0] ?? "0";
  if (precision > 0) text += "." + digits.slice(1, precision + 1).padEnd(precision, "0");
  const exp = digits === "" ? 0 : point - 1;
  const sign = exp < 0 ? "-" : "+";
  return text + letter + sign + String(Math.abs(exp)).padStart(2, "0");
}

function layoutFixed(digits: string, point: number, precision: number): string {
  let text = point > 0 ? digits.slice(0, point).padEnd(point, "0") : "0";
  if (precision > 0) {
    let fraction = "";
    for (let i = 1; i <= precision; i++) {
      const index = point + i - 1;
      fraction += index >= 0 && index < digits.length ? digits[index] : "0";
    }
    text += "." + fraction;
  }
  return text;
}

/** strconv.FormatFloat: precision -1 means the shortest representation that reads back exactly. */
export function formatFloat(
  value: number,
  format: FloatFormat,
  precision: number,
  bitSize: 32 | 64 = 64,
): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  const negative = value < 0 || Object.is(value, -0);
  const abs = Math.abs(bitSize === 32 ? Math.fround(value) : value);
  const shortest = precision < 0;
  const lower = format.toLowerCase();
  let decimal: Decimal;
  if (shortest) decimal = shortestDecimal(abs, bitSize);
  else {
    const exact = exactDecimal(abs);
    const significant =
      lower === "f" ? exact.point + precision : lower === "e" ? precision + 1 : Math.max(precision, 1);
    decimal = roundDecimal(exact, significant);
  }
  const { digits, point } = decimal;
  const letter = format === "E" || format === "G" ? "E" : "e";
  let text: string;
  if (lower === "e")
    text = layoutExponent(digits, point, shortest ? Math.max(digits.length - 1, 0) : precision, letter);
  else if (lower === "f")
    text = layoutFixed(digits, point, shortest ? Math.max(digits.length - point, 0) : precision);
  else {
    let wanted = shortest ? digits.length : Math.max(precision, 1);
    let exponentFrom = wanted;
    if (exponentFrom > digits.length && digits.length >= point) exponentFrom = digits.length;
    if (shortest) exponentFrom = 6;
    const exp = point - 1;
    if (digits !== "" && (exp < -4 || exp >= exponentFrom)) {
      if (wanted > digits.length) wanted = digits.length;
      text = layoutExponent(digits, point, wanted - 1, letter);
    } else {
      if (wanted > point) wanted = digits.length;
      text = layoutFixed(digits, point, Math.max(wanted - point, 0));
    }
  }
  return negative ? "-" + text : text;
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrint(char: string): boolean {
  return printable.test(char);
}

const namedEscapes: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
};

function escapeRune(char: string, quote: string, asciiOnly: boolean): string {
  if (char === quote || char === "\\") return "\\" + char;
  const code = char.codePointAt(0)!;
  if (asciiOnly ? code < 0x80 && isPrint(char) : isPrint(char)) return char;
  const named = namedEscapes[char];
  if (named !== undefined) return named;
  if (code < 0x20 || code === 0x7f) return "\\x" + code.toString(16).padStart(2, "0");
  // A byte that was not valid UTF-8 (utf8.ts): Go quotes the byte itself.
  if (code >= 0xdc80 && code <= 0xdcff) return "\\x" + (code - 0xdc00).toString(16);
  if (code >= 0xd800 && code <= 0xdfff) return "\\ufffd";
  if (code < 0x10000) return "\\u" + code.toString(16).padStart(4, "0");
  return "\\U" + code.toString(16).padStart(8, "0");
}

/** unicode.IsPrint of each BMP code unit, learnt as met: 0 not yet known, 1 printable, 2 not. */
const printableUnit = new Uint8Array(0x10000);

function isPrintUnit(code: number): boolean {
  let known = printableUnit[code];
  if (known === 0) {
    known = isPrint(String.fromCharCode(code)) ? 1 : 2;
    printableUnit[code] = known;
  }
  return known === 1;
}

/** Quote's escape of each ASCII character that needs one (index: the character code). */
const ASCII_ESCAPES: string[] = [];
for (let code = 0; code < 0x80; code++) ASCII_ESCAPES.push(escapeRune(String.fromCharCode(code), '"', true));

/** Text gathered as UTF-16 code units in one growing buffer, rather than as a string per piece. */
class Utf16Writer {
  #bytes: Buffer;
  #length = 0;

  constructor(units: number) {
    this.#bytes = Buffer.allocUnsafe(units * 2 + 64);
  }

  write(text: string): void {
    const needed = this.#length + text.length * 2;
    if (needed > this.#bytes.length) {
      const larger = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
      this.#bytes.copy(larger, 0, 0, this.#length);
      this.#bytes = larger;
    }
    this.#length += this.#bytes.write(text, this.#length, "utf16le");
  }

  toString(): string {
    return this.#bytes.toString("utf16le", 0, this.#length);
  }
}

/**
 * strconv.Quote (QuoteToASCII when asciiOnly). One pass: runs that need no escape are copied
 * whole into one buffer, so a large value costs time in proportion to its length.
 */
export function quote(text: string, asciiOnly = false): string {
  let out: Utf16Writer | undefined;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue;
    const at = i;
    let escaped: string;
    if (c < 0x80) escaped = ASCII_ESCAPES[c];
    else {
      const pair = c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (!asciiOnly && !pair && (c < 0xd800 || c > 0xdfff) && isPrintUnit(c)) continue;
      escaped = escapeRune(pair ? text.slice(i, i + 2) : text[i], '"', asciiOnly);
      if (pair) i++;
    }
    if (out === undefined) {
      out = new Utf16Writer(text.length + 2);
      out.write('"');
    }
    out.write(text.slice(run, at));
    out.write(escaped);
    run = i + 1;
  }
  if (out === undefined) return `"${text}"`;
  out.write(text.slice(run));
  out.write('"');
  return out.toString();
}

/** strconv.QuoteRune. */
export function quoteRune(code: number, asciiOnly = false): string {
  const valid = code >= 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
  return "'" + escapeRune(String.fromCodePoint(valid ? code : 0xfffd), "'", asciiOnly) + "'";
}

const simpleUnescapes: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92 };

/**
 * strconv.Unquote for a Go interpreted literal ("..." or '...'): \x and octal escapes are bytes, so
 * "\xc3\xa9" is "é". Returns undefined for invalid syntax.
 */
export function unquote(literal: string): string | undefined {
  const quoteChar = literal[0];
  if (literal.length < 2 || literal[literal.length - 1] !== quoteChar) return undefined;
  const body = literal.slice(1, -1);
  if (quoteChar === "`") return body.includes("`") ? undefined : body.replaceAll("\r", "");
  const bytes: number[] = [];
  const pushText = (text: string) => {
    for (const byte of Buffer.from(text, "utf8")) bytes.push(byte);
  };
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === quoteChar || char === "\n") return undefined;
    if (char !== "\\") {
      pushText(char);
      continue;
    }
    const kind = body[++i];
    if (kind === undefined) return undefined;
    if (simpleUnescapes[kind] !== undefined) bytes.push(simpleUnescapes[kind]);
    else if (kind === quoteChar) bytes.push(kind.charCodeAt(0));
    else if (kind === "x" || kind === "u" || kind === "U") {
      const length = kind === "x" ? 2 : kind === "u" ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + length);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length) return undefined;
      i += length;
      const code = Number.parseInt(hex, 16);
      if (kind === "x") bytes.push(code);
      else if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
      else pushText(String.fromCodePoint(code));
    } else if (kind >= "0" && kind <= "7") {
      const octal = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(octal) || Number.parseInt(octal, 8) > 255) return undefined;
      i += 2;
      bytes.push(Number.parseInt(octal, 8));
    } else return undefined;
  }
  const text = Buffer.from(bytes).toString("utf8");
  if (quoteChar === "'" && [...text].length !== 1) return undefined;
  return text;
}
