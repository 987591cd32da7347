// XML bodies as webhook reads them: Go's strict encoding/xml tokenizer feeding clbanning/mxj's
// map builder (the v1 release Debian ships). Shapes, all values strings:
//   <r a="1">t</r>           -> {"r": {"-a": "1", "#text": "t"}}
//   <r><u>1</u><u>2</u></r>  -> {"r": {"u": ["1", "2"]}}
//   <r>t<c>1</c></r>         -> {"r": "t"}   (text before the first child wins, children dropped)
//   <r><c>1</c>t</r>         -> {"r": {"c": "1", "#text": "t"}}
// Names lose their namespace prefix; only the first root element is read.
import { quote } from "../go/strconv.ts";
import type { JsonObject, JsonValue } from "../types.ts";
import { getOwn, setOwn } from "./json.ts";

type Token =
  | { kind: "start"; name: string; attributes: [string, string][] }
  | { kind: "end"; name: string }
  | { kind: "text"; text: string }
  | { kind: "other" };

/** Throws an Error with mxj's message ("EOF", "xml.Decoder.Token() - XML syntax error on line 1: ..."). */
export function parseXmlPayload(text: string): JsonObject {
  const tokenizer = new Tokenizer(text);
  let token = tokenizer.next();
  while (token.kind !== "start") token = tokenizer.next();
  // Iterative, so deep documents cannot overflow the stack (Go's goroutine stacks grow instead).
  const open = [openElement(token)];
  for (;;) {
    token = tokenizer.next();
    const element = open[open.length - 1];
    if (token.kind === "start") open.push(openElement(token));
    else if (token.kind === "text") addText(element, token.text);
    else if (token.kind === "end") {
      open.pop();
      // mxj keeps a simple element's text and drops any children that came after it.
      const value = element.simpleText ?? element.nodes ?? "";
      const parent = open.at(-1);
      if (parent === undefined) {
        const payload: JsonObject = {};
        setOwn(payload, element.key, value);
        return payload;
      }
      addChild(parent, element.key, value);
    }
  }
}

interface Element {
  key: string;
  /** Attributes and children; mxj creates it on the first of them. */
  nodes: JsonObject | undefined;
  /** Text seen while the element had no attributes or children yet. */
  simpleText: string | undefined;
}

function openElement(start: { name: string; attributes: [string, string][] }): Element {
  const element: Element = { key: localName(start.name), nodes: undefined, simpleText: undefined };
  for (const [name, value] of start.attributes) {
    element.nodes ??= {};
    element.nodes["-" + localName(name)] = value;
  }
  return element;
}

function addChild(element: Element, key: string, value: JsonValue): void {
  element.nodes ??= {};
  const existing = getOwn(element.nodes, key);
  if (existing === undefined) setOwn(element.nodes, key, value);
  else if (Array.isArray(existing)) existing.push(value);
  else setOwn(element.nodes, key, [existing, value]);
}

// mxj trims this noise from character data.
const TRIMMED = /^[\t\r\b\n ]+|[\t\r\b\n ]+$/g;

function addText(element: Element, text: string): void {
  const trimmed = text.replace(TRIMMED, "");
  if (trimmed === "") return;
  if (element.nodes !== undefined) element.nodes["#text"] = trimmed;
  else element.simpleText = trimmed;
}

/** encoding/xml splits `prefix:local` at a single inner colon; mxj keeps only the local part. */
function localName(name: string): string {
  const colon = name.indexOf(":");
  if (colon < 1 || colon > name.length - 2 || name.indexOf(":", colon + 1) !== -1) return name;
  return name.slice(colon + 1);
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", apos: "'", quot: '"' };
const NAME = /^[\p{L}_:][\p{L}\p{N}\p{M}_:.\-\u00b7]*$/u;
const NAME_BYTES = /[A-Za-z0-9_:.\-\u0080-\uffff]/y;

class Tokenizer {
  readonly text: string;
  pos = 0;
  /** The end token of a self-closing element, returned next. */
  pending: Token | undefined;
  readonly open: string[] = [];

  constructor(text: string) {
    this.text = text;
  }

  error(message: string): never {
    let line = 1;
    for (let i = 0; i < this.pos && i < this.text.length; i++) if (this.text.charCodeAt(i) === 10) line++;
    throw new Error(`xml.Decoder.Token() - XML syntax error on line ${line}: ${message}`);
  }

  eof(): never {
    if (this.open.length === 0) throw new Error("EOF");
    return this.error("unexpected EOF");
  }

  next(): Token {
    if (this.pending !== undefined) {
      const token = this.pending;
      this.pending = undefined;
      this.open.pop();
      return token;
    }
    if (this.pos >= this.text.length) this.eof();
    if (this.text[this.pos] !== "<") return { kind: "text", text: this.readText(-1) };
    this.pos++;
    const c = this.text[this.pos];
    if (c === "/") return this.endTag();
    if (c === "?") return this.processingInstruction();
    if (c === "!") return this.markupDeclaration();
    return this.startTag();
  }

  startTag(): Token {
    const name = this.name();
    const attributes: [string, string][] = [];
    for (;;) {
      this.space();
      const c = this.mustGet();
      if (c === "/") {
        if (this.mustGet() !== ">") this.error(`expected /> in element`);
        this.open.push(name);
        this.pending = { kind: "end", name };
        return { kind: "start", name, attributes };
      }
      if (c === ">") {
        this.open.push(name);
        return { kind: "start", name, attributes };
      }
      this.pos--;
      const attribute = this.name();
      this.space();
      if (this.mustGet() !== "=") this.error("attribute name without = in element");
      this.space();
      const quoteChar = this.mustGet();
      if (quoteChar !== '"' && quoteChar !== "'")
        this.error("unquoted or missing attribute value in element");
      attributes.push([attribute, this.readText(quoteChar.charCodeAt(0))]);
    }
  }

  endTag(): Token {
    this.pos++;
    const name = this.name();
    this.space();
    if (this.mustGet() !== ">") this.error(`invalid characters between </${name} and >`);
    const expected = this.open.pop();
    if (expected === undefined) this.error(`unexpected end element </${name}>`);
    if (expected !== name) this.error(`element <${expected}> closed by </${name}>`);
    return { kind: "end", name };
  }

  processingInstruction(): Token {
    this.pos++;
    const target = this.name();
    const end = this.text.indexOf("?>", this.pos);
    if (end === -1) this.eofInside();
    const content = this.text.slice(this.pos, end);
    this.pos = end + 2;
    if (target === "xml") {
      const version = declaredParameter("version", content);
      if (version !== "" && version !== "1.0") {
        throw new Error(`xml: unsupported version ${quote(version)}; only version 1.0 is supported`);
      }
      const encoding = declaredParameter("encoding", content);
      if (encoding !== "" && encoding.toLowerCase() !== "utf-8") {
        throw new Error(`xml: encoding ${quote(encoding)} declared but Decoder.CharsetReader is nil`);
      }
    }
    return { kind: "other" };
  }

  markupDeclaration(): Token {
    this.pos++;
    if (this.text[this.pos] === "-") {
      if (this.text[this.pos + 1] !== "-") this.error("invalid sequence <!- not part of <!--");
      this.pos += 2;
      const end = this.text.indexOf("--", this.pos);
      if (end === -1) this.eofInside();
      this.pos = end + 2;
      if (this.mustGet() !== ">") this.error(`invalid sequence "--" not allowed in comments`);
      return { kind: "other" };
    }
    if (this.text[this.pos] === "[") {
      if (!this.text.startsWith("[CDATA[", this.pos)) this.error("invalid <![ sequence");
      this.pos += 7;
      const end = this.text.indexOf("]]>", this.pos);
      if (end === -1) this.eofInside();
      const data = this.text.slice(this.pos, end);
      this.pos = end + 3;
      return { kind: "text", text: checkCharacters(this, normalizeNewlines(data)) };
    }
    // A directive (<!DOCTYPE ...>): skipped, honouring quotes and nested brackets.
    let quoteChar = "";
    let depth = 0;
    for (;;) {
      const c = this.mustGet();
      if (quoteChar !== "") {
        if (c === quoteChar) quoteChar = "";
      } else if (c === '"' || c === "'") quoteChar = c;
      else if (c === "<") depth++;
      else if (c === ">") {
        if (depth === 0) return { kind: "other" };
        depth--;
      }
    }
  }

  eofInside(): never {
    this.pos = this.text.length;
    return this.error("unexpected EOF");
  }

  mustGet(): string {
    if (this.pos >= this.text.length) this.eofInside();
    return this.text[this.pos++];
  }

  space(): void {
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") return;
      this.pos++;
    }
  }

  name(): string {
    const start = this.pos;
    NAME_BYTES.lastIndex = this.pos;
    while (this.pos < this.text.length && NAME_BYTES.test(this.text)) {
      this.pos++;
      NAME_BYTES.lastIndex = this.pos;
    }
    const name = this.text.slice(start, this.pos);
    if (this.pos >= this.text.length) this.eofInside();
    if (name === "" || !NAME.test(name)) this.error(`invalid XML name: ${name}`);
    return name;
  }

  /** Character data up to `<` (quote < 0) or up to the closing quote of an attribute value. */
  readText(quoteCode: number): string {
    const { text } = this;
    let out = "";
    let chunk = this.pos;
    for (;;) {
      if (this.pos >= text.length) {
        if (quoteCode >= 0) this.eofInside();
        break;
      }
      const c = text.charCodeAt(this.pos);
      if (c === quoteCode) {
        out += text.slice(chunk, this.pos);
        this.pos++;
        break;
      }
      if (c === 0x3c) {
        if (quoteCode >= 0) this.error("unescaped < inside quoted string");
        break;
      }
      if (c === 0x3e && this.pos - 2 >= chunk && text.startsWith("]]", this.pos - 2)) {
        this.error("unescaped ]]> not in CDATA section");
      }
      if (c !== 0x26) {
        this.pos++;
        continue;
      }
      out += text.slice(chunk, this.pos) + this.entity();
      chunk = this.pos;
    }
    if (quoteCode < 0) out += text.slice(chunk, this.pos);
    return checkCharacters(this, normalizeNewlines(out));
  }

  entity(): string {
    const start = this.pos;
    const semicolon = this.text.indexOf(";", start);
    const reference = semicolon === -1 ? "" : this.text.slice(start + 1, semicolon);
    let value: string | undefined;
    const numeric = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(reference);
    if (numeric !== null) {
      const code = Number.parseInt(numeric[1] ?? numeric[2], numeric[1] !== undefined ? 16 : 10);
      if (code <= 0x10ffff) value = code >= 0xd800 && code <= 0xdfff ? "\ufffd" : String.fromCodePoint(code);
    } else if (Object.hasOwn(ENTITIES, reference)) value = ENTITIES[reference];
    if (value === undefined) {
      const shown =
        semicolon === -1 ? this.text.slice(start, start + 1) + " (no semicolon)" : `&${reference};`;
      this.error(`invalid character entity ${shown}`);
    }
    this.pos = semicolon + 1;
    return value;
  }
}

function normalizeNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

// XML 1.0 Char production; Go rejects anything else in character data.
const ILLEGAL_CHARACTER = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

function checkCharacters(tokenizer: Tokenizer, text: string): string {
  const illegal = ILLEGAL_CHARACTER.exec(text);
  if (illegal !== null) {
    const code = illegal[0].codePointAt(0) ?? 0;
    tokenizer.error(`illegal character code U+${code.toString(16).toUpperCase().padStart(4, "0")}`);
  }
  return text;
}

/** encoding/xml's procInst: the quoted value after `param=` in an <?xml ...?> declaration. */
function declaredParameter(param: string, content: string): string {
  const at = content.indexOf(param + "=");
  if (at === -1) return "";
  const rest = content.slice(at + param.length + 1);
  const quoteChar = rest[0];
  if (quoteChar !== "'" && quoteChar !== '"') return "";
  const end = rest.indexOf(quoteChar, 1);
  return end === -1 ? "" : rest.slice(1, end);
}
