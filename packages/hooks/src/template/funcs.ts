// The functions a hooks file template can call: Go text/template's builtins plus webhook's getenv,
// cat and credential, with Go's argument checks and error texts.
import { readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { isPrint } from "../go/strconv.ts";
import { type GoValue, goTypeName, sprint, sprintf, sprintln } from "./fmt.ts";

/** A failure inside a function; the executor reports it as `error calling <name>: <message>`. */
export class FunctionError extends Error {}

export type ParamKind = "string" | "any";

export interface TemplateFunction {
  /** Kinds of the parameters; with `variadic` the last one repeats (zero or more times). */
  params: ParamKind[];
  variadic: boolean;
  call(args: GoValue[]): GoValue;
}

function fixed(params: ParamKind[], call: (args: GoValue[]) => GoValue): TemplateFunction {
  return { params, variadic: false, call };
}

function variadic(params: ParamKind[], call: (args: GoValue[]) => GoValue): TemplateFunction {
  return { params, variadic: true, call };
}

/** Go's truth: false, 0, "" and nil are empty. */
export function isTrue(value: GoValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "bigint") return value !== 0n;
  if (typeof value === "number") return value !== 0;
  if (typeof value === "string") return value !== "";
  return value;
}

/** html, js and urlquery take one string as is and print anything else the fmt.Sprint way. */
function textOf(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  // Go prints a nil argument of these three as "<no value>", which then counts as a string for spacing.
  return sprint(args.map((arg) => arg ?? "<no value>"));
}

const jsEscapes: Record<string, string> = {
  "\\": "\\\\",
  "'": "\\'",
  '"': '\\"',
  "<": "\\u003C",
  ">": "\\u003E",
  "&": "\\u0026",
  "=": "\\u003D",
};

/** template.JSEscapeString. */
export function jsEscape(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const named = jsEscapes[char];
    if (named !== undefined) out += named;
    else if (code < 0x20) out += "\\u00" + code.toString(16).toUpperCase().padStart(2, "0");
    else if (code < 0x80 || isPrint(char)) out += char;
    else out += "\\u" + code.toString(16).toUpperCase().padStart(4, "0");
  }
  return out;
}

const htmlEscapes: Record<string, string> = {
  '"': "&#34;",
  "'": "&#39;",
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\0": "\uFFFD",
};

function htmlEscape(text: string): string {
  return text.replace(/["'&<>\0]/g, (char) => htmlEscapes[char]);
}

/** url.QueryEscape. */
function queryEscape(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(char)) out += char;
    else if (char === " ") out += "+";
    else out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** A file's text without its final newline, or undefined when it cannot be read. */
function readSecretFile(path: string): string | undefined {
  try {
    const text = readFileSync(normalize(path), "utf8");
    return text.endsWith("\n") ? text.slice(0, -1) : text;
  } catch {
    return undefined;
  }
}

function credential(name: string): string {
  const directory = process.env.CREDENTIALS_DIRECTORY;
  const fromFile = directory ? readSecretFile(join(directory, name)) : undefined;
  return fromFile ?? process.env[name] ?? "";
}

function indexArgument(index: GoValue, length: number): number {
  if (index === null) throw new FunctionError("cannot index slice/array with nil");
  if (typeof index !== "bigint")
    throw new FunctionError(`cannot index slice/array with type ${goTypeName(index)}`);
  if (index < 0n || index > BigInt(length)) throw new FunctionError(`index out of range: ${index}`);
  return Number(index);
}

function index(args: GoValue[]): GoValue {
  let [item] = args;
  if (item === null) throw new FunctionError("index of untyped nil");
  for (const position of args.slice(1)) {
    if (typeof item !== "string") throw new FunctionError(`can't index item of type ${goTypeName(item)}`);
    const bytes: Buffer = Buffer.from(item, "utf8");
    const at = indexArgument(position, bytes.length);
    if (at === bytes.length) throw new FunctionError(`index out of range: ${at}`);
    item = BigInt(bytes[at]);
  }
  return item;
}

function slice(args: GoValue[]): GoValue {
  const [item, ...indexes] = args;
  if (item === null) throw new FunctionError("slice of untyped nil");
  if (indexes.length > 3) throw new FunctionError(`too many slice indexes: ${indexes.length}`);
  if (typeof item !== "string") throw new FunctionError(`can't slice item of type ${goTypeName(item)}`);
  if (indexes.length === 3) throw new FunctionError("cannot 3-index slice a string");
  const bytes = Buffer.from(item, "utf8");
  const bounds = [0, bytes.length];
  indexes.forEach((position, i) => {
    bounds[i] = indexArgument(position, bytes.length);
  });
  if (bounds[0] > bounds[1]) throw new FunctionError(`invalid slice index: ${bounds[0]} > ${bounds[1]}`);
  return bytes.subarray(bounds[0], bounds[1]).toString("utf8");
}

function length(args: GoValue[]): GoValue {
  const [item] = args;
  if (item === null) throw new FunctionError("len of nil pointer");
  if (typeof item !== "string") throw new FunctionError(`len of type ${goTypeName(item)}`);
  return BigInt(Buffer.byteLength(item, "utf8"));
}

type BasicKind = "bool" | "int" | "float" | "string";

function basicKind(value: GoValue): BasicKind | undefined {
  if (value === null) return undefined;
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float";
  if (typeof value === "string") return "string";
  return "bool";
}

function equal(args: GoValue[]): boolean {
  const [first, ...others] = args;
  if (others.length === 0) throw new FunctionError("missing argument for comparison");
  for (const other of others) {
    if (first === null || other === null) {
      if (first === other) return true;
      continue;
    }
    if (basicKind(first) !== basicKind(other)) throw new FunctionError("incompatible types for comparison");
    if (first === other) return true;
  }
  return false;
}

function lessThan(left: GoValue, right: GoValue): boolean {
  const kind = basicKind(left);
  if (
    kind === undefined ||
    kind === "bool" ||
    basicKind(right) === undefined ||
    basicKind(right) === "bool"
  ) {
    throw new FunctionError("invalid type for comparison");
  }
  if (kind !== basicKind(right)) throw new FunctionError("incompatible types for comparison");
  // Go compares strings byte by byte, which differs from UTF-16 order past the BMP.
  if (kind === "string") return Buffer.compare(Buffer.from(left as string), Buffer.from(right as string)) < 0;
  return (left as number | bigint) < (right as number | bigint);
}

function callFunction(args: GoValue[]): GoValue {
  const [fn] = args;
  throw new FunctionError(fn === null ? "call of nil" : `non-function of type ${goTypeName(fn)}`);
}

/** `and` and `or` are listed for arity checks; the executor evaluates them lazily, as Go does. */
export const templateFunctions: ReadonlyMap<string, TemplateFunction> = new Map([
  ["and", variadic(["any", "any"], (args) => args[0])],
  ["or", variadic(["any", "any"], (args) => args[0])],
  ["not", fixed(["any"], ([value]) => !isTrue(value))],
  ["call", variadic(["any", "any"], callFunction)],
  ["html", variadic(["any"], (args) => htmlEscape(textOf(args)))],
  ["js", variadic(["any"], (args) => jsEscape(textOf(args)))],
  ["urlquery", variadic(["any"], (args) => queryEscape(textOf(args)))],
  ["print", variadic(["any"], sprint)],
  ["println", variadic(["any"], sprintln)],
  ["printf", variadic(["string", "any"], ([format, ...args]) => sprintf(format as string, args))],
  ["len", fixed(["any"], length)],
  ["index", variadic(["any", "any"], index)],
  ["slice", variadic(["any", "any"], slice)],
  ["eq", variadic(["any", "any"], equal)],
  ["ne", fixed(["any", "any"], (args) => !equal(args))],
  ["lt", fixed(["any", "any"], ([a, b]) => lessThan(a, b))],
  ["le", fixed(["any", "any"], ([a, b]) => lessThan(a, b) || equal([a, b]))],
  ["gt", fixed(["any", "any"], ([a, b]) => !(lessThan(a, b) || equal([a, b])))],
  ["ge", fixed(["any", "any"], ([a, b]) => !lessThan(a, b))],
  ["getenv", fixed(["string"], ([name]) => process.env[name as string] ?? "")],
  ["cat", fixed(["string"], ([path]) => readSecretFile(path as string) ?? "")],
  ["credential", fixed(["string"], ([name]) => credential(name as string))],
]);
