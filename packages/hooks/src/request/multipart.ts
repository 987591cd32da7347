// multipart/form-data the way Go's net/http ParseMultipartForm reads it for webhook: the same
// boundary rules, header parsing and errors (webhook answers 500 on any of them). Busboy cannot be
// used here: it normalises part content types (webhook compares them exactly), treats
// application/octet-stream fields as files and truncates long names and values.
import { quote } from "../go/strconv.ts";
import { trimLeftSpace, trimSpace } from "../go/unicode.ts";
import { pathUnescape } from "../go/url.ts";
import { decodeGoString } from "../go/utf8.ts";

export interface MultipartFile {
  /** Every Content-Type header value of the part, as sent. */
  contentTypes: string[];
  data: Buffer;
}

export interface MultipartForm {
  /** First value of each plain field, in arrival order. */
  values: Map<string, string>;
  /** First file part of each name. */
  files: Map<string, MultipartFile>;
}

export type MultipartResult = { form: MultipartForm } | { error: string };

/** Go's peekBufferSize: a preamble or boundary line longer than this fails. */
const LINE_LIMIT = 4096;
const MAX_PARTS = 1000;
/** ReadForm's extra allowance for non-file parts, and its per-entry overhead. */
const VALUE_ALLOWANCE = 10 << 20;
const ENTRY_OVERHEAD = 200;

export function readMultipartForm(contentType: string, body: Buffer, maxMemory: number): MultipartResult {
  const media = parseMediaType(contentType);
  if (media === undefined || media.type !== "multipart/form-data") {
    return { error: "request Content-Type isn't multipart/form-data" };
  }
  const boundary = media.params.get("boundary");
  if (boundary === undefined) return { error: "no multipart boundary param in Content-Type" };
  if (boundary === "") return { error: "multipart: boundary is empty" };
  try {
    return { form: readForm(new PartReader(body, boundary), maxMemory) };
  } catch (error) {
    if (error instanceof MultipartError) return { error: error.message };
    throw error;
  }
}

class MultipartError extends Error {}

function readForm(reader: PartReader, maxMemory: number): MultipartForm {
  const form: MultipartForm = { values: new Map(), files: new Map() };
  let memoryLeft = maxMemory + VALUE_ALLOWANCE;
  if (memoryLeft <= 0) memoryLeft = maxMemory < 0 ? 0 : Number.MAX_SAFE_INTEGER;
  for (let parts = 0; ; parts++) {
    const part = reader.nextPart();
    if (part === undefined) return form;
    if (parts >= MAX_PARTS) throw new MultipartError("multipart: message too large");
    const disposition = parseMediaType(part.header("content-disposition")[0] ?? "");
    const name = disposition?.type === "form-data" ? (disposition.params.get("name") ?? "") : "";
    const data = reader.partData();
    if (name === "") continue;
    memoryLeft -= Buffer.byteLength(name) + ENTRY_OVERHEAD;
    const filename = disposition?.params.get("filename") ?? "";
    if (filename === "") {
      memoryLeft -= data.length;
      if (memoryLeft < 0) throw new MultipartError("multipart: message too large");
      if (!form.values.has(name)) form.values.set(name, decodeGoString(data));
    } else if (!form.files.has(name)) {
      form.files.set(name, { contentTypes: part.header("content-type"), data });
    }
  }
}

interface PartHeaders {
  header(lowerName: string): string[];
}

class PartReader {
  readonly body: Buffer;
  pos = 0;
  partsRead = 0;
  nl = Buffer.from("\r\n");
  nlDashBoundary: Buffer;
  readonly dashBoundary: Buffer;
  readonly dashBoundaryDash: Buffer;

  constructor(body: Buffer, boundary: string) {
    this.body = body;
    this.dashBoundary = Buffer.from("--" + boundary);
    this.dashBoundaryDash = Buffer.from("--" + boundary + "--");
    this.nlDashBoundary = Buffer.from("\r\n--" + boundary);
  }

  /** multipart.Reader.NextPart; undefined at the end of the form. */
  nextPart(): PartHeaders | undefined {
    let expectNewPart = false;
    for (;;) {
      const { line, eof } = this.readLine();
      if (eof && this.isFinalBoundary(line)) return undefined;
      if (eof) throw new MultipartError("multipart: NextPart: EOF");
      if (this.isBoundaryDelimiterLine(line)) {
        this.partsRead++;
        return this.readHeaders();
      }
      if (this.isFinalBoundary(line)) return undefined;
      if (expectNewPart) {
        throw new MultipartError(
          `multipart: expecting a new Part; got line ${quote(line.toString("latin1"))}`,
        );
      }
      if (this.partsRead === 0) continue;
      if (line.equals(this.nl)) {
        expectNewPart = true;
        continue;
      }
      throw new MultipartError(`multipart: unexpected line in Next(): ${quote(line.toString("latin1"))}`);
    }
  }

  readLine(): { line: Buffer; eof: boolean } {
    const newline = this.body.indexOf(0x0a, this.pos);
    const end = newline === -1 ? this.body.length : newline + 1;
    if (end - this.pos > LINE_LIMIT || (newline === -1 && end - this.pos === LINE_LIMIT)) {
      throw new MultipartError("multipart: NextPart: bufio: buffer full");
    }
    const line = this.body.subarray(this.pos, end);
    this.pos = end;
    return { line, eof: newline === -1 };
  }

  isBoundaryDelimiterLine(line: Buffer): boolean {
    if (!startsWith(line, this.dashBoundary)) return false;
    const rest = skipLinearWhitespace(line.subarray(this.dashBoundary.length));
    // Lines ending in a bare \n on the first boundary switch the reader to \n mode, as Go does.
    if (this.partsRead === 0 && rest.length === 1 && rest[0] === 0x0a) {
      this.nl = this.nl.subarray(1);
      this.nlDashBoundary = this.nlDashBoundary.subarray(1);
    }
    return rest.equals(this.nl);
  }

  isFinalBoundary(line: Buffer): boolean {
    if (!startsWith(line, this.dashBoundaryDash)) return false;
    const rest = skipLinearWhitespace(line.subarray(this.dashBoundaryDash.length));
    return rest.length === 0 || rest.equals(this.nl);
  }

  /** textproto.ReadMIMEHeader; running out of input here ends the form quietly, as in Go. */
  readHeaders(): PartHeaders | undefined {
    const headers = new Map<string, string[]>();
    const first = this.body[this.pos];
    if (first === 0x20 || first === 0x09) {
      const { line } = this.readHeaderLine();
      throw new MultipartError(`malformed MIME header initial line: ${line}`);
    }
    for (;;) {
      const { line, eof } = this.readHeaderLine();
      if (line === "") {
        if (eof) return undefined;
        return { header: (name) => headers.get(name) ?? [] };
      }
      const colon = line.indexOf(":");
      const key = line.slice(0, colon).toLowerCase();
      if (key === "") continue;
      const value = line.slice(colon + 1).replace(/^[ \t]+/, "");
      const values = headers.get(key);
      if (values === undefined) headers.set(key, [value]);
      else values.push(value);
    }
  }

  /** One header line with its continuation lines folded in, trailing white space trimmed. */
  readHeaderLine(): { line: string; eof: boolean } {
    let line = this.readRawLine();
    if (line === undefined) return { line: "", eof: true };
    line = line.replace(/[ \t]+$/, "");
    if (line === "") return { line, eof: false };
    if (!line.includes(":")) throw new MultipartError(`malformed MIME header: missing colon: ${quote(line)}`);
    for (;;) {
      const next = this.body[this.pos];
      if (next !== 0x20 && next !== 0x09) return { line, eof: false };
      const continuation = this.readRawLine() ?? "";
      line += " " + continuation.trim();
    }
  }

  readRawLine(): string | undefined {
    if (this.pos >= this.body.length) return undefined;
    const newline = this.body.indexOf(0x0a, this.pos);
    const end = newline === -1 ? this.body.length : newline;
    let text = this.body.toString("utf8", this.pos, end);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    this.pos = newline === -1 ? end : end + 1;
    return text;
  }

  /** The part's bytes up to the next boundary (Go's scanUntilBoundary on the whole body). */
  partData(): Buffer {
    const start = this.pos;
    if (startsWith(this.body.subarray(start), this.dashBoundary)) {
      if (this.endsDelimiter(start + this.dashBoundary.length)) return this.body.subarray(start, start);
    }
    let from = start;
    for (;;) {
      const at = this.body.indexOf(this.nlDashBoundary, from);
      if (at === -1) {
        this.pos = this.body.length;
        throw new MultipartError("unexpected EOF");
      }
      if (this.endsDelimiter(at + this.nlDashBoundary.length)) {
        this.pos = at;
        return this.body.subarray(start, at);
      }
      from = at + this.nlDashBoundary.length;
    }
  }

  /** "--foo" ends a part only when followed by a dash, white space, a line end or the end of input. */
  endsDelimiter(index: number): boolean {
    if (index >= this.body.length) return true;
    const c = this.body[index];
    return c === 0x2d || c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
  }
}

function startsWith(buffer: Buffer, prefix: Buffer): boolean {
  return buffer.length >= prefix.length && buffer.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

function skipLinearWhitespace(buffer: Buffer): Buffer {
  let i = 0;
  while (i < buffer.length && (buffer[i] === 0x20 || buffer[i] === 0x09)) i++;
  return buffer.subarray(i);
}

export interface MediaType {
  /** Lower-cased `type/subtype` (or disposition type). */
  type: string;
  /** Lower-cased parameter names; RFC 2231 continuations and charsets decoded. */
  params: Map<string, string>;
}

// Go's isTokenChar: printable ASCII except white space and tspecials (so `{` and `}` are allowed).
const TOKEN = /^[!#$%&'*+\-.^_`|~{}0-9A-Za-z]+/;
const TSPECIALS = '()<>@,;:\\"/[]?=';

/** mime.ParseMediaType; undefined where Go returns an error (no usable parameters either way). */
export function parseMediaType(value: string): MediaType | undefined {
  const semicolon = value.indexOf(";");
  const base = semicolon === -1 ? value : value.slice(0, semicolon);
  const type = trimSpace(base.toLowerCase());
  if (!isMediaType(type)) return undefined;
  const params = new Map<string, string>();
  const pieces = new Map<string, Map<string, string>>();
  let rest = value.slice(base.length);
  for (;;) {
    rest = trimLeftSpace(rest);
    if (rest === "") break;
    const param = consumeMediaParam(rest);
    if (param === undefined) {
      if (trimSpace(rest) === ";") break;
      return undefined;
    }
    const star = param.key.indexOf("*");
    let target = params;
    if (star !== -1) {
      const baseName = param.key.slice(0, star);
      target = pieces.get(baseName) ?? new Map();
      pieces.set(baseName, target);
    }
    // Go 1.19 (Debian's webhook) rejects any repeated parameter, even with the same value.
    if (target.has(param.key)) return undefined;
    target.set(param.key, param.value);
    rest = param.rest;
  }
  for (const [key, pieceMap] of pieces) {
    const single = pieceMap.get(key + "*");
    if (single !== undefined) {
      const decoded = decodeRfc2231(single);
      if (decoded !== undefined) params.set(key, decoded);
      continue;
    }
    let joined = "";
    let valid = false;
    for (let n = 0; ; n++) {
      const plain = pieceMap.get(`${key}*${n}`);
      if (plain !== undefined) {
        valid = true;
        joined += plain;
        continue;
      }
      const encoded = pieceMap.get(`${key}*${n}*`);
      if (encoded === undefined) break;
      valid = true;
      joined += (n === 0 ? decodeRfc2231(encoded) : pathUnescape(encoded)) ?? "";
    }
    if (valid) params.set(key, joined);
  }
  return { type, params };
}

function isMediaType(type: string): boolean {
  const major = TOKEN.exec(type)?.[0];
  if (major === undefined) return false;
  if (major.length === type.length) return true;
  if (type[major.length] !== "/") return false;
  const minor = TOKEN.exec(type.slice(major.length + 1))?.[0];
  return minor !== undefined && major.length + 1 + minor.length === type.length;
}

function consumeMediaParam(text: string): { key: string; value: string; rest: string } | undefined {
  let rest = trimLeftSpace(text);
  if (!rest.startsWith(";")) return undefined;
  rest = trimLeftSpace(rest.slice(1));
  const key = TOKEN.exec(rest)?.[0];
  if (key === undefined) return undefined;
  rest = trimLeftSpace(rest.slice(key.length));
  if (!rest.startsWith("=")) return undefined;
  rest = trimLeftSpace(rest.slice(1));
  const value = consumeValue(rest);
  if (value === undefined) return undefined;
  return { key: key.toLowerCase(), value: value.value, rest: value.rest };
}

function consumeValue(text: string): { value: string; rest: string } | undefined {
  if (text[0] !== '"') {
    const token = TOKEN.exec(text)?.[0];
    return token === undefined ? undefined : { value: token, rest: text.slice(token.length) };
  }
  let value = "";
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return { value, rest: text.slice(i + 1) };
    // Go keeps a backslash before a non-special character (MSIE sends raw Windows paths).
    if (c === "\\" && i + 1 < text.length && TSPECIALS.includes(text[i + 1])) {
      value += text[++i];
      continue;
    }
    if (c === "\r" || c === "\n") return undefined;
    value += c;
  }
  return undefined;
}

function decodeRfc2231(value: string): string | undefined {
  const parts = value.split("'");
  if (parts.length < 3) return undefined;
  const charset = parts[0].toLowerCase();
  if (charset !== "us-ascii" && charset !== "utf-8") return undefined;
  return pathUnescape(parts.slice(2).join("'"));
}
