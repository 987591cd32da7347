// Reads a hooks file the way webhook does: YAML 1.1 scalars as gopkg.in/yaml.v2 resolves them, keys
// and merges as that library builds maps, so a file means here what it means to webhook.
import {
  CST,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  type Node,
  parseAllDocuments,
} from "yaml";
import { formatFloat, parseInt64, parseUint64 } from "../go/strconv.ts";

/** A hooks file cannot be used at all (webhook logs it and drops the file). */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConfigError";
  }
}

/** A decoded YAML value; `int` holds int64 and uint64 values, `line` is 1-based. */
export type YamlValue =
  | { kind: "null"; line: number }
  | { kind: "bool"; value: boolean; line: number }
  | { kind: "int"; value: bigint; line: number }
  | { kind: "float"; value: number; line: number }
  | { kind: "string"; value: string; line: number }
  | { kind: "list"; items: YamlValue[]; line: number }
  | { kind: "map"; entries: Map<string, YamlValue>; line: number };

type Scalar = Exclude<YamlValue, { kind: "list" | "map" }>;

const resolved = new Map<string, boolean | null | number>();
for (const word of ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"])
  resolved.set(word, true);
for (const word of ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"])
  resolved.set(word, false);
for (const word of ["", "~", "null", "Null", "NULL"]) resolved.set(word, null);
for (const word of [".nan", ".NaN", ".NAN"]) resolved.set(word, Number.NaN);
for (const word of [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]) resolved.set(word, Infinity);
for (const word of ["-.inf", "-.Inf", "-.INF"]) resolved.set(word, -Infinity);

/** yaml.v2's resolution of a plain scalar: null, bool, int, float or string. */
function resolvePlain(text: string, line: number): Scalar {
  const known = resolved.get(text);
  if (known !== undefined) {
    if (known === null) return { kind: "null", line };
    if (typeof known === "boolean") return { kind: "bool", value: known, line };
    return { kind: "float", value: known, line };
  }
  const first = text[0];
  if (first === ".") {
    if (/^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/.test(text)) return { kind: "float", value: Number(text), line };
  } else if (first === "+" || first === "-" || (first >= "0" && first <= "9")) {
    // yaml.v2 drops every underscore, then tries ParseInt and ParseUint with base 0.
    const plain = text.replaceAll("_", "");
    const integer = parseInt64(plain);
    if (typeof integer === "bigint") return { kind: "int", value: integer, line };
    const unsigned = parseUint64(plain);
    if (typeof unsigned === "bigint") return { kind: "int", value: unsigned, line };
    // yaml.v2 only takes floats with a signed exponent: 1e+5 is a number, 1e5 a string.
    if (/^[-+]?[0-9]*\.?[0-9]+(?:[eE][-+][0-9]+)?$/.test(plain))
      return { kind: "float", value: Number(plain), line };
  }
  return { kind: "string", value: text, line };
}

const shortTags: Record<string, string> = {
  "tag:yaml.org,2002:str": "!!str",
  "tag:yaml.org,2002:int": "!!int",
  "tag:yaml.org,2002:float": "!!float",
  "tag:yaml.org,2002:bool": "!!bool",
  "tag:yaml.org,2002:null": "!!null",
  "tag:yaml.org,2002:binary": "!!binary",
};

const kindOfTag: Record<string, Scalar["kind"]> = {
  "!!int": "int",
  "!!float": "float",
  "!!bool": "bool",
  "!!null": "null",
};

/** Walks the YAML document into plain values; aliases are expanded with a budget against alias bombs. */
class Converter {
  private readonly doc: Document;
  private readonly lines: LineCounter;
  private readonly file: string;
  private budget = 1_000_000;

  constructor(doc: Document, lines: LineCounter, file: string) {
    this.doc = doc;
    this.lines = lines;
    this.file = file;
  }

  lineOf(node: Node | null | undefined): number {
    const offset = node?.range?.[0];
    return offset === undefined ? 1 : this.lines.linePos(offset).line;
  }

  fail(line: number, message: string): never {
    throw new ConfigError(`${this.file}: line ${line}: ${message}`);
  }

  convert(node: unknown, line: number): YamlValue {
    if (--this.budget < 0) this.fail(line, "document contains excessive aliasing");
    if (node === null || node === undefined) return { kind: "null", line };
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (target === undefined) this.fail(this.lineOf(node), `unknown anchor '${node.source}' referenced`);
      return this.convert(target, this.lineOf(node));
    }
    if (isScalar(node)) return this.scalar(node.value, node.type, node.tag, this.lineOf(node));
    if (isSeq(node)) {
      const at = this.lineOf(node);
      return { kind: "list", items: node.items.map((item) => this.convert(item, at)), line: at };
    }
    if (isMap(node)) return this.mapping(node.items, this.lineOf(node));
    return this.fail(line, "unsupported YAML node");
  }

  private scalar(value: unknown, style: string | undefined, tag: string | undefined, line: number): Scalar {
    const text = Buffer.isBuffer(value) ? value.toString("base64") : String(value);
    const short = tag === undefined ? undefined : (shortTags[tag] ?? tag);
    if (short === "!!str" || short === "!") return { kind: "string", value: text, line };
    if (short === "!!binary")
      return { kind: "string", value: Buffer.from(text, "base64").toString("latin1"), line };
    const plain = style === "PLAIN" || style === undefined;
    const wanted = short === undefined ? undefined : kindOfTag[short];
    if (!plain && wanted === undefined) return { kind: "string", value: text, line };
    const result = resolvePlain(text, line);
    if (wanted !== undefined && result.kind !== wanted) {
      const found = result.kind === "string" ? "!!str" : `!!${result.kind}`;
      this.fail(line, `cannot decode ${found} \`${text}\` as a ${short}`);
    }
    return result;
  }

  private mapping(pairs: { key: unknown; value: unknown }[], line: number): YamlValue {
    const entries = new Map<string, YamlValue>();
    for (const { key, value } of pairs) {
      const keyLine = isScalar(key) || isAlias(key) ? this.lineOf(key as Node) : line;
      if (isScalar(key) && key.value === "<<" && key.type === "PLAIN" && key.tag === undefined) {
        this.merge(entries, value, keyLine);
        continue;
      }
      entries.set(this.keyString(this.convert(key, keyLine)), this.convert(value, keyLine));
    }
    return { kind: "map", entries, line };
  }

  /** `<<: *base` copies base's keys; from a list of maps the earlier ones win, as in yaml.v2. */
  private merge(entries: Map<string, YamlValue>, value: unknown, line: number): void {
    const source = this.convert(value, line);
    const maps = source.kind === "list" ? [...source.items].reverse() : [source];
    for (const map of maps) {
      if (map.kind !== "map") this.fail(line, "map merge requires map or sequence of maps as the value");
      for (const [key, item] of map.entries) entries.set(key, item);
    }
  }

  /** ghodss/yaml turns every key into a JSON string, floats the float32 way. */
  private keyString(key: YamlValue): string {
    switch (key.kind) {
      case "string":
        return key.value;
      case "int":
      case "bool":
        return String(key.value);
      case "float": {
        if (Number.isNaN(key.value)) return ".nan";
        if (!Number.isFinite(key.value)) return key.value > 0 ? ".inf" : "-.inf";
        return scalarText(key);
      }
      default:
        return this.fail(key.line, `unsupported map key of type ${key.kind}`);
    }
  }
}

/** A scalar as ghodss/yaml writes it into a string field: 1.50 -> "1.5", yes -> "true". */
export function scalarText(value: Exclude<Scalar, { kind: "null" }>): string {
  if (value.kind === "float") return formatFloat(value.value, "g", -1, 32);
  return String(value.value);
}

/** Where a quoted scalar ends in `text` (the index of its closing quote), scanning as libyaml does. */
function closingQuote(text: string, start: number): number | undefined {
  const quoteChar = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (quoteChar === '"' && c === "\\") i++;
    else if (quoteChar === "'" && c === "'" && text[i + 1] === "'") i++;
    else if (c === quoteChar) return i;
    // libyaml stops at a document marker at the start of a line.
    else if (c === "\n" && /^(?:---|\.\.\.)(?:[ \t\r\n]|$)/.test(text.slice(i + 1, i + 5))) return undefined;
  }
  return undefined;
}

/** The offset of the first quoted scalar the yaml package ends before its closing quote. */
function cutQuotedScalar(text: string): number | undefined {
  let offset = 0;
  for (const lexeme of new Lexer().lex(text)) {
    // Markers the lexer adds are not part of the text.
    if (lexeme === CST.DOCUMENT || lexeme === CST.FLOW_END || lexeme === CST.SCALAR) continue;
    const type = CST.tokenType(lexeme);
    if (type === "single-quoted-scalar" || type === "double-quoted-scalar") {
      if (closingQuote(lexeme, 0) !== lexeme.length - 1) return offset;
    }
    offset += lexeme.length;
  }
  return undefined;
}

/**
 * libyaml (under yaml.v2) reads a quoted scalar to its closing quote whatever the indentation of
 * its continuation lines, where the yaml package ends it at a line indented no deeper than its
 * mapping (`- id: t` / `  response-message: 'a` / `  b'`) and reports a missing quote. Such
 * lines are indented further here, scalar by scalar: a continuation line's leading white space is
 * not part of the value, and lines keep their numbers.
 */
function indentQuotedContinuations(text: string): string {
  for (;;) {
    const start = cutQuotedScalar(text);
    const end = start === undefined ? undefined : closingQuote(text, start);
    if (start === undefined || end === undefined) return text;
    const pad = " ".repeat(start - text.lastIndexOf("\n", start - 1));
    const inside = text.slice(start, end).replace(/\n(?=[^\r\n])/g, `\n${pad}`);
    const fixed = text.slice(0, start) + inside + text.slice(end);
    if (cutQuotedScalar(fixed) === start) return text;
    text = fixed;
  }
}

/** Parses YAML (or JSON) text into values; only the first document counts, as with yaml.v2. */
export function parseYaml(text: string, file: string): YamlValue {
  let lines = new LineCounter();
  const parse = (source: string) => {
    lines = new LineCounter();
    return parseAllDocuments(source, {
      schema: "failsafe",
      version: "1.1",
      uniqueKeys: false,
      merge: false,
      prettyErrors: false,
      lineCounter: lines,
    });
  };
  let documents = parse(text);
  if (Array.isArray(documents) && documents[0]?.errors.some((error) => error.code === "MISSING_CHAR")) {
    documents = parse(indentQuotedContinuations(text));
  }
  const doc = Array.isArray(documents) ? documents[0] : undefined;
  if (doc === undefined) return { kind: "null", line: 1 };
  const converter = new Converter(doc, lines, file);
  const [error] = doc.errors;
  if (error !== undefined) {
    const { line } = lines.linePos(error.pos[0]);
    converter.fail(line, error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, ""));
  }
  return converter.convert(doc.contents, 1);
}
