// Lexer for Go's text/template language: text, actions and their tokens, with the `{{-` / `-}}` trim
// markers applied to the text around them. Errors name the file and line as Go's lexer reports them.

export class TemplateError extends Error {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, detail: string) {
    super(`template: ${file}:${line}: ${detail}`);
    this.name = "TemplateError";
    this.file = file;
    this.line = line;
  }
}

export type TokenKind =
  | "text"
  | "left"
  | "right"
  | "space"
  | "identifier"
  | "keyword"
  | "field"
  | "variable"
  | "dot"
  | "string"
  | "char"
  | "number"
  | "bool"
  | "nil"
  | "pipe"
  | "lparen"
  | "rparen"
  | "declare"
  | "assign"
  | "comma"
  | "eof";

export interface Token {
  kind: TokenKind;
  text: string;
  line: number;
}

const keywords = new Set([
  "if",
  "else",
  "end",
  "range",
  "with",
  "define",
  "template",
  "block",
  "break",
  "continue",
]);

function isSpace(char: string | undefined): boolean {
  return char === " " || char === "\t" || char === "\r" || char === "\n";
}

function isAlphaNumeric(char: string | undefined): boolean {
  return char !== undefined && /^[\p{L}\p{Nd}_]$/u.test(char);
}

function countLines(text: string): number {
  let count = 0;
  for (const char of text) if (char === "\n") count++;
  return count;
}

function describeChar(char: string): string {
  const code = char.codePointAt(0)!;
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")} '${char}'`;
}

const numberPattern =
  /^[+-]?(?:0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]+)?|0[oObB][0-9_]*|[0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)i?/;

/** Splits a template into text and action tokens, applying the `{{-` / `-}}` trim markers to the text. */
export function lex(input: string, file: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let line = 1;
  let trimNextText = false;
  const fail = (detail: string): never => {
    throw new TemplateError(file, line, detail);
  };
  const atRightDelim = (): number => {
    if (input.startsWith("}}", pos)) return 2;
    if (isSpace(input[pos]) && input[pos + 1] === "-" && input.startsWith("}}", pos + 2)) return 4;
    return 0;
  };
  while (pos < input.length) {
    const left = input.indexOf("{{", pos);
    const end = left < 0 ? input.length : left;
    const leftTrim = left >= 0 && input[left + 2] === "-" && isSpace(input[left + 3]);
    let text = input.slice(pos, end);
    if (trimNextText) text = text.replace(/^[ \t\r\n]+/, "");
    if (leftTrim) text = text.replace(/[ \t\r\n]+$/, "");
    if (text !== "") tokens.push({ kind: "text", text, line });
    line += countLines(input.slice(pos, end));
    trimNextText = false;
    if (left < 0) break;
    pos = left + (leftTrim ? 4 : 2);
    const actionLine = line;
    if (input.startsWith("/*", pos)) {
      const close = input.indexOf("*/", pos + 2);
      if (close < 0) fail("unclosed comment");
      line += countLines(input.slice(pos, close));
      pos = close + 2;
      const delim = atRightDelim();
      if (delim === 0) fail("comment ends before closing delimiter");
      trimNextText = delim === 4;
      pos += delim;
      continue;
    }
    tokens.push({ kind: "left", text: "{{", line });
    let parenDepth = 0;
    for (;;) {
      const delim = atRightDelim();
      if (delim > 0) {
        if (parenDepth > 0) fail("unclosed left paren");
        tokens.push({ kind: "right", text: "}}", line });
        trimNextText = delim === 4;
        pos += delim;
        break;
      }
      const start = pos;
      const char = input[pos];
      const push = (kind: TokenKind, length: number) => {
        tokens.push({ kind, text: input.slice(start, start + length), line });
        pos = start + length;
      };
      if (char === undefined) fail(`unclosed action started at ${file}:${actionLine}`);
      else if (isSpace(char)) {
        let length = 0;
        while (isSpace(input[pos + length])) {
          if (input[pos + length + 1] === "-" && input.startsWith("}}", pos + length + 2)) break;
          length++;
        }
        const spaces = input.slice(pos, pos + length);
        push("space", length);
        line += countLines(spaces);
      } else if (char === "=") push("assign", 1);
      else if (char === ":") {
        if (input[pos + 1] !== "=") fail("expected :=");
        push("declare", 2);
      } else if (char === "|") push("pipe", 1);
      else if (char === ",") push("comma", 1);
      else if (char === "(") {
        parenDepth++;
        push("lparen", 1);
      } else if (char === ")") {
        if (--parenDepth < 0) fail(`unexpected right paren ${describeChar(char)}`);
        push("rparen", 1);
      } else if (char === '"' || char === "'") {
        let i = pos + 1;
        while (input[i] !== char) {
          if (input[i] === "\\") i++;
          if (input[i] === undefined || input[i] === "\n") {
            fail(char === '"' ? "unterminated quoted string" : "unterminated character constant");
          }
          i++;
        }
        push(char === '"' ? "string" : "char", i + 1 - pos);
      } else if (char === "`") {
        const close = input.indexOf("`", pos + 1);
        if (close < 0) fail("unterminated raw quoted string");
        push("string", close + 1 - pos);
        line += countLines(input.slice(start, close));
      } else if (char === "$") {
        let length = 1;
        while (isAlphaNumeric(input[pos + length])) length++;
        push("variable", length);
      } else if (
        (char >= "0" && char <= "9") ||
        ((char === "." || char === "+" || char === "-") && /^[+-]?\.?[0-9]/.test(input.slice(pos, pos + 3)))
      ) {
        const length = numberPattern.exec(input.slice(pos))![0].length;
        if (isAlphaNumeric(input[pos + length]))
          fail(`bad number syntax: "${input.slice(pos, pos + length + 1)}"`);
        push("number", length);
      } else if (char === ".") {
        let length = 1;
        while (isAlphaNumeric(input[pos + length])) length++;
        push(length === 1 ? "dot" : "field", length);
      } else if (isAlphaNumeric(char)) {
        let length = 1;
        while (isAlphaNumeric(input[pos + length])) length++;
        const word = input.slice(pos, pos + length);
        const kind = keywords.has(word)
          ? "keyword"
          : word === "true" || word === "false"
            ? "bool"
            : word === "nil"
              ? "nil"
              : "identifier";
        push(kind, length);
      } else
        fail(
          `unrecognized character in action: ${describeChar(String.fromCodePoint(input.codePointAt(pos)!))}`,
        );
    }
  }
  tokens.push({ kind: "eof", text: "", line });
  return tokens;
}
