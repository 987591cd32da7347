// JSON the way webhook's Go code reads and writes it: json.Decoder with UseNumber (number literals
// kept, only the first value read) and encoding/json's Marshal (sorted keys, HTML-safe escapes).
import { quote } from "../go/strconv.ts";
import { JsonNumber, type JsonObject, type JsonValue } from "../types.ts";

/**
 * Go's nil map[string]interface{}: what webhook stores when a parse-parameters-as-json value or a
 * multipart JSON part decodes to `null` or fails. Unlike JSON null (printed `<nil>`) it prints and
 * encodes as `null`, and has no keys.
 */
export const NIL_MAP: JsonValue = new JsonNumber("null");

/** Go's limit on nesting (encoding/json maxNestingDepth). */
const MAX_DEPTH = 10000;

/** json.Decoder.Decode of the first value; anything after it is never read. Throws SyntaxError. */
export function parseJson(text: string): JsonValue {
  const parser = new Parser(text);
  parser.skipSpace();
  if (parser.pos >= text.length) throw new SyntaxError("EOF");
  return parser.value();
}

export type DecodedObject = { value: JsonObject | undefined } | { error: string };

/**
 * Decode into a Go map[string]interface{}: an object, or `null` (value undefined, Go's nil map).
 * Other values are Go's "cannot unmarshal" errors; the message is webhook's log text.
 */
export function decodeJsonObject(text: string): DecodedObject {
  let value: JsonValue;
  try {
    value = parseJson(text);
  } catch (error) {
    return { error: (error as Error).message };
  }
  if (value === null) return { value: undefined };
  if (isJsonObject(value)) return { value };
  return { error: `json: cannot unmarshal ${goKind(value)} into Go value of type map[string]interface {}` };
}

function goKind(value: JsonValue): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (value instanceof JsonNumber) return "number";
  return "array";
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber)
  );
}

// Request maps are plain objects (null-prototype ones are several times slower to fill), so every
// key goes through these two: `__proto__` stays an ordinary key, inherited members never show.

/** Adds or replaces an own property, `__proto__` included. */
export function setOwn(object: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else object[key] = value;
}

/** Own property lookup. */
export function getOwn(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

const WHITESPACE = new Uint8Array(128);
for (const c of " \t\n\r") WHITESPACE[c.charCodeAt(0)] = 1;

class Parser {
  readonly text: string;
  pos = 0;

  constructor(text: string) {
    this.text = text;
  }

  skipSpace(): void {
    const { text } = this;
    let pos = this.pos;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c >= 128 || WHITESPACE[c] === 0) break;
      pos++;
    }
    this.pos = pos;
  }

  fail(context: string): never {
    if (this.pos >= this.text.length) throw new SyntaxError("unexpected EOF");
    throw new SyntaxError(`invalid character ${quoteChar(this.text[this.pos])} ${context}`);
  }

  /**
   * One value, containers included. Iterative, so Go's full nesting depth cannot overflow the
   * JavaScript stack.
   */
  value(): JsonValue {
    const containers: (JsonValue[] | JsonObject)[] = [];
    const keys: string[] = [];
    for (;;) {
      let value: JsonValue;
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x7b || c === 0x5b) {
        const isObject = c === 0x7b;
        if (containers.length >= MAX_DEPTH) throw new SyntaxError("exceeded max depth");
        this.pos++;
        this.skipSpace();
        if (this.text.charCodeAt(this.pos) === (isObject ? 0x7d : 0x5d)) {
          this.pos++;
          value = isObject ? {} : [];
        } else {
          containers.push(isObject ? {} : []);
          if (isObject) keys.push(this.key());
          continue;
        }
      } else value = this.scalar(c);
      // Attach the finished value; closing brackets finish their containers in turn.
      for (;;) {
        const parent = containers.at(-1);
        if (parent === undefined) return value;
        if (Array.isArray(parent)) parent.push(value);
        else setOwn(parent, keys.pop() as string, value);
        this.skipSpace();
        const next = this.text.charCodeAt(this.pos);
        const close = Array.isArray(parent) ? 0x5d : 0x7d;
        if (next === close) {
          this.pos++;
          value = containers.pop() as JsonValue;
          continue;
        }
        if (next !== 0x2c)
          this.fail(Array.isArray(parent) ? "after array element" : "after object key:value pair");
        this.pos++;
        this.skipSpace();
        if (!Array.isArray(parent)) keys.push(this.key());
        break;
      }
    }
  }

  /** An object key and its colon, leaving the position at the value. */
  key(): string {
    if (this.text.charCodeAt(this.pos) !== 0x22) this.fail("looking for beginning of object key string");
    const key = this.string();
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("after object key");
    this.pos++;
    this.skipSpace();
    return key;
  }

  scalar(c: number): JsonValue {
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (c === 0x74) return this.literal("true", true);
    if (c === 0x66) return this.literal("false", false);
    if (c === 0x6e) return this.literal("null", null);
    return this.fail("looking for beginning of value");
  }

  literal<T extends JsonValue>(word: string, result: T): T {
    for (let i = 1; i < word.length; i++) {
      this.pos++;
      if (this.text[this.pos] !== word[i]) this.fail(`in literal ${word} (expecting ${quoteChar(word[i])})`);
    }
    this.pos++;
    return result;
  }

  number(): JsonNumber {
    const { text } = this;
    const start = this.pos;
    if (text.charCodeAt(this.pos) === 0x2d) this.pos++;
    if (text.charCodeAt(this.pos) === 0x30) this.pos++;
    else if (!this.digits()) this.fail("in numeric literal");
    if (text.charCodeAt(this.pos) === 0x2e) {
      this.pos++;
      if (!this.digits()) this.fail("after decimal point in numeric literal");
    }
    const e = text.charCodeAt(this.pos);
    if (e === 0x65 || e === 0x45) {
      this.pos++;
      const sign = text.charCodeAt(this.pos);
      if (sign === 0x2b || sign === 0x2d) this.pos++;
      if (!this.digits()) this.fail("in exponent of numeric literal");
    }
    return new JsonNumber(text.slice(start, this.pos));
  }

  digits(): boolean {
    const start = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c < 0x30 || c > 0x39) break;
      this.pos++;
    }
    return this.pos > start;
  }

  string(): string {
    const { text } = this;
    const start = ++this.pos;
    // Fast path: no escapes.
    for (let pos = start; pos < text.length; pos++) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return text.slice(start, pos);
      }
      if (c === 0x5c || c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) break;
    }
    let out = "";
    let chunk = start;
    for (;;) {
      if (this.pos >= text.length) this.fail("in string literal");
      const c = text.charCodeAt(this.pos);
      if (c === 0x22) {
        out += text.slice(chunk, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail("in string literal");
      if (c >= 0xd800 && c <= 0xdfff) {
        // A lone surrogate cannot come from UTF-8 input; Go would see U+FFFD there.
        const pair = c <= 0xdbff && isLowSurrogate(text.charCodeAt(this.pos + 1));
        if (!pair) {
          out += text.slice(chunk, this.pos) + "\ufffd";
          chunk = this.pos + 1;
        }
        this.pos += pair ? 2 : 1;
        continue;
      }
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += text.slice(chunk, this.pos);
      this.pos++;
      out += this.escape();
      chunk = this.pos;
    }
  }

  escape(): string {
    const c = this.text[this.pos++];
    switch (c) {
      case '"':
      case "\\":
      case "/":
        return c;
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const unit = this.hex4();
        if (unit < 0xd800 || unit > 0xdfff) return String.fromCharCode(unit);
        // Go pairs a high surrogate only with an immediately following \u low surrogate.
        if (unit <= 0xdbff && this.text.startsWith("\\u", this.pos)) {
          const save = this.pos;
          this.pos += 2;
          const low = this.hex4();
          if (isLowSurrogate(low)) return String.fromCharCode(unit, low);
          this.pos = save;
        }
        return "\ufffd";
      }
      default:
        this.pos--;
        return this.fail("in string escape code");
    }
  }

  hex4(): number {
    let value = 0;
    for (let i = 0; i < 4; i++) {
      const digit = Number.parseInt(this.text[this.pos] ?? "", 16);
      if (Number.isNaN(digit)) this.fail("in \\u hexadecimal character escape");
      value = value * 16 + digit;
      this.pos++;
    }
    return value;
  }
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Go's quoteChar for syntax errors: `'x'`, `'\''`, `'"'`, `'\x01'`. */
function quoteChar(char: string): string {
  if (char === "'") return "'\\''";
  if (char === '"') return "'\"'";
  return "'" + quote(char).slice(1, -1) + "'";
}

// Characters encoding/json escapes with HTML escaping on (json.Marshal's default), and surrogates:
// a lone one stands for a byte that is not valid UTF-8 (go/utf8.ts), which Go writes as \ufffd.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what Go escapes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

function encodeString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return '"' + text + '"';
  let out = '"';
  let chunk = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x3c && c !== 0x3e && c !== 0x26 && c < 0x2028)
      continue;
    if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      i++;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += text.slice(chunk, i) + "\\ufffd";
      chunk = i + 1;
      continue;
    }
    if (c > 0x2029) continue;
    // Go 1.19 writes \b and \f as \u0008 and \u000c.
    const escaped = SHORT_ESCAPES[char] ?? "\\u" + c.toString(16).padStart(4, "0");
    out += text.slice(chunk, i) + escaped;
    chunk = i + 1;
  }
  return out + text.slice(chunk) + '"';
}

/** Go orders map keys by their UTF-8 bytes, which differs from UTF-16 order only for astral characters. */
function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate && Math.max(x, y) >= 0xe000) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function encodeScalar(value: Exclude<JsonValue, JsonValue[] | JsonObject> | undefined): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return encodeString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return value.literal;
}

interface EncodeFrame {
  array: JsonValue[] | undefined;
  object: JsonObject | undefined;
  /** The object's keys in Go's order. */
  keys: string[];
  next: number;
}

function openFrame(value: JsonValue[] | JsonObject): EncodeFrame {
  if (Array.isArray(value)) return { array: value, object: undefined, keys: [], next: 0 };
  return { array: undefined, object: value, keys: Object.keys(value).sort(compareKeys), next: 0 };
}

/** json.Marshal: compact, keys sorted, `<>&` and U+2028/2029 escaped, numbers as written. */
export function encodeGoJson(value: JsonValue | undefined): string {
  if (typeof value !== "object" || value === null || value instanceof JsonNumber) return encodeScalar(value);
  // Iterative, for the same reason as the parser.
  let out = Array.isArray(value) ? "[" : "{";
  const stack = [openFrame(value)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const { array, object, keys } = frame;
    if (frame.next === (array === undefined ? keys.length : array.length)) {
      out += array === undefined ? "}" : "]";
      stack.pop();
      continue;
    }
    if (frame.next > 0) out += ",";
    let item: JsonValue;
    if (array !== undefined) item = array[frame.next];
    else {
      const key = keys[frame.next];
      out += encodeString(key) + ":";
      item = (object as JsonObject)[key];
    }
    frame.next++;
    if (typeof item === "object" && item !== null && !(item instanceof JsonNumber)) {
      out += Array.isArray(item) ? "[" : "{";
      stack.push(openFrame(item));
    } else out += encodeScalar(item);
  }
  return out;
}

/** fmt's %v of a decoded value as webhook passes it on; objects and arrays become JSON. */
export function valueToString(value: JsonValue): string {
  if (typeof value === "string") return value;
  if (value instanceof JsonNumber) return value.literal;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value === null) return "<nil>";
  return encodeGoJson(value);
}
