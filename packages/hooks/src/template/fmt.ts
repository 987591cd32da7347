// Go's fmt.Sprint/Sprintln/Sprintf for the values a hooks file template can hold, so `printf` and
// `print` output is what webhook writes into the file before parsing it.
import { type FloatFormat, formatFloat, quote, quoteRune } from "../go/strconv.ts";

/** Go values of templates: string, int (bigint), float64 (number), bool, and untyped nil (null). */
export type GoValue = string | bigint | number | boolean | null;

export function goTypeName(value: GoValue): string {
  if (typeof value === "string") return "string";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float64";
  if (typeof value === "boolean") return "bool";
  return "<nil>";
}

/** The %v form. */
export function formatValue(value: GoValue): string {
  if (value === null) return "<nil>";
  if (typeof value === "number") return formatFloat(value, "g", -1);
  return String(value);
}

export function sprint(args: GoValue[]): string {
  let out = "";
  args.forEach((arg, i) => {
    // fmt adds a space between operands only when neither side is a string.
    if (i > 0 && typeof arg !== "string" && typeof args[i - 1] !== "string") out += " ";
    out += formatValue(arg);
  });
  return out;
}

export function sprintln(args: GoValue[]): string {
  return args.map(formatValue).join(" ") + "\n";
}

interface Directive {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  precision: number | undefined;
  verb: string;
}

function pad(text: string, spec: Directive, zeroAllowed = true): string {
  const length = [...text].length;
  if (spec.width === undefined || length >= spec.width) return text;
  const padding = spec.width - length;
  if (spec.minus) return text + " ".repeat(padding);
  if (spec.zero && zeroAllowed) {
    const sign = /^[+\- ]/.test(text) ? text[0] : "";
    return sign + "0".repeat(padding) + text.slice(sign.length);
  }
  return " ".repeat(padding) + text;
}

function badVerb(spec: Directive, value: GoValue): string {
  if (value === null) return `%!${spec.verb}(<nil>)`;
  return `%!${spec.verb}(${goTypeName(value)}=${formatValue(value)})`;
}

const integerBases: Record<string, [number, string]> = {
  d: [10, ""],
  v: [10, ""],
  b: [2, "0b"],
  o: [8, "0"],
  O: [8, "0o"],
  x: [16, "0x"],
  X: [16, "0X"],
};

function formatInteger(value: bigint, spec: Directive): string {
  const { verb } = spec;
  if (verb === "c") return pad(String.fromCodePoint(Number(value)), spec);
  if (verb === "q") return pad(quoteRune(Number(value), spec.plus), spec);
  if (verb === "U") {
    const hex = value.toString(16).toUpperCase().padStart(4, "0");
    return pad("U+" + hex + (spec.sharp ? ` '${String.fromCodePoint(Number(value))}'` : ""), spec);
  }
  const base = integerBases[verb];
  if (base === undefined) return badVerb(spec, value);
  const negative = value < 0n;
  const sign = negative ? "-" : spec.plus ? "+" : spec.space ? " " : "";
  let digits = (negative ? -value : value).toString(base[0]);
  if (verb === "X") digits = digits.toUpperCase();
  // %.3d and %03d both ask for leading zeros; the zero flag fills the width, less the sign, before any 0x.
  let precision = spec.precision;
  if (precision === undefined && spec.zero && spec.width !== undefined) precision = spec.width - sign.length;
  if (precision !== undefined)
    digits = precision === 0 && value === 0n ? "" : digits.padStart(precision, "0");
  let prefix = "";
  if (verb === "O") prefix = base[1];
  else if (spec.sharp && verb !== "d" && verb !== "v" && !(verb === "o" && digits.startsWith("0")))
    prefix = base[1];
  return pad(sign + prefix + digits, spec, false);
}

function formatFloatVerb(value: number, spec: Directive): string {
  const verb = spec.verb === "v" ? "g" : spec.verb;
  if (!"eEfFgG".includes(verb)) return badVerb(spec, value);
  const precision = spec.precision ?? (verb === "g" || verb === "G" ? -1 : 6);
  let text = formatFloat(value, verb as FloatFormat, precision);
  if (!text.startsWith("-")) text = (spec.space && !spec.plus ? " " : "+") + text;
  // Infinities and NaN are never zero padded, and NaN shows a sign only when asked for.
  if (text[1] === "I" || text[1] === "N") {
    return pad(text[1] === "N" && !spec.space && !spec.plus ? text.slice(1) : text, spec, false);
  }
  return pad(spec.plus || text[0] !== "+" ? text : text.slice(1), spec);
}

function hexBytes(text: string, spec: Directive): string {
  const parts = [...Buffer.from(text, "utf8")].map((byte) => {
    const hex = byte.toString(16).padStart(2, "0");
    return spec.verb === "X" ? hex.toUpperCase() : hex;
  });
  const prefix = spec.sharp ? (spec.verb === "X" ? "0X" : "0x") : "";
  if (spec.space) return parts.map((hex) => prefix + hex).join(" ");
  return prefix + parts.join("");
}

/** strconv.CanBackquote: no backquote, no control character but tab, no BOM. */
function canBackquote(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === "`" || char === "\ufeff" || code === 0x7f || (code < 0x20 && char !== "\t")) return false;
  }
  return true;
}

function formatString(value: string, spec: Directive): string {
  const text = spec.precision === undefined ? value : [...value].slice(0, spec.precision).join("");
  switch (spec.verb) {
    case "s":
    case "v":
      return pad(text, spec);
    case "q":
      if (spec.sharp && canBackquote(text)) return pad("`" + text + "`", spec);
      return pad(quote(text, spec.plus), spec);
    case "x":
    case "X":
      return pad(hexBytes(text, spec), spec);
    default:
      return badVerb(spec, value);
  }
}

function formatArg(value: GoValue, spec: Directive): string {
  if (spec.verb === "T") return pad(goTypeName(value), spec);
  if (value === null) return spec.verb === "v" ? pad("<nil>", spec) : badVerb(spec, value);
  if (typeof value === "string") return formatString(value, spec);
  if (typeof value === "bigint") return formatInteger(value, spec);
  if (typeof value === "number") return formatFloatVerb(value, spec);
  if (spec.verb === "t" || spec.verb === "v") return pad(String(value), spec);
  return badVerb(spec, value);
}

const directivePattern = /^([-+# 0]*)(\d+)?(?:\.(\d*))?/;

/** fmt.Sprintf: verbs v T s d q t x X o O b c U e E f F g G and %%, flags, width and precision. */
export function sprintf(format: string, args: GoValue[]): string {
  let out = "";
  let next = 0;
  let i = 0;
  while (i < format.length) {
    const percent = format.indexOf("%", i);
    if (percent < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, percent);
    const match = directivePattern.exec(format.slice(percent + 1))!;
    const verbAt = percent + 1 + match[0].length;
    const verb = String.fromCodePoint(format.codePointAt(verbAt) ?? 0);
    if (verbAt >= format.length) {
      out += "%!(NOVERB)";
      break;
    }
    i = verbAt + verb.length;
    if (verb === "%") {
      out += "%";
      continue;
    }
    const flags = match[1];
    const spec: Directive = {
      plus: flags.includes("+"),
      minus: flags.includes("-"),
      sharp: flags.includes("#"),
      space: flags.includes(" "),
      zero: flags.includes("0") && !flags.includes("-"),
      width: match[2] === undefined ? undefined : Number(match[2]),
      precision: match[3] === undefined ? undefined : Number(match[3] || "0"),
      verb,
    };
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatArg(args[next++], spec);
  }
  if (next < args.length) {
    const extra = args
      .slice(next)
      .map((arg) => (arg === null ? "<nil>" : `${goTypeName(arg)}=${formatValue(arg)}`));
    out += `%!(EXTRA ${extra.join(", ")})`;
  }
  return out;
}
