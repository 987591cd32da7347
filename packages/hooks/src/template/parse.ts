// Parser for the Go text/template language, as webhook's -template flag applies it to a hooks file.
// Errors name the file and line the way Go's parser reports them.
import { unquote } from "../go/strconv.ts";
import { lex, TemplateError, type Token, type TokenKind } from "./lex.ts";

/** A literal, a name or a parenthesised pipeline, as an argument or the head of a command. */
export type Operand =
  | { type: "string"; value: string }
  | { type: "number"; value: bigint | number; text: string }
  | { type: "bool"; value: boolean }
  | { type: "nil" }
  | { type: "dot" }
  | { type: "field"; fields: string[] }
  | { type: "variable"; name: string; fields: string[] }
  | { type: "identifier"; name: string }
  | { type: "pipe"; pipe: Pipeline }
  | { type: "chain"; operand: Operand; fields: string[] };

export interface Command {
  line: number;
  args: Operand[];
}

export interface Pipeline {
  line: number;
  /** Variables declared (`$x :=`) or assigned (`$x =`) by the pipeline. */
  decl: string[];
  isAssign: boolean;
  commands: Command[];
}

export type Node =
  | { type: "text"; text: string }
  | { type: "action"; line: number; pipe: Pipeline }
  | {
      type: "if" | "with" | "range";
      line: number;
      pipe: Pipeline;
      list: Node[];
      elseList: Node[] | undefined;
    }
  | { type: "template"; line: number; name: string; pipe: Pipeline | undefined }
  | { type: "break" | "continue"; line: number };

export interface ParsedTemplate {
  root: Node[];
  /** Templates named by {{define}} or {{block}}. */
  defined: Map<string, Node[]>;
}

type ListEnd = "end" | "else" | "else-if";

/** Go parses numbers as ints unless they are written as floats; hex ints and runes stay ints. */
function parseNumber(text: string): bigint | number | undefined {
  if (/i$/.test(text)) return undefined;
  const sign = text.startsWith("-") ? -1n : 1n;
  const body = text.replace(/^[+-]/, "").replaceAll("_", "");
  const isHex = /^0[xX]/.test(body);
  const hexFloat = /^0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(body);
  if (hexFloat && hexFloat[1] + hexFloat[2] !== "") {
    const mantissa = Number.parseInt(hexFloat[1] + hexFloat[2], 16) / 16 ** hexFloat[2].length;
    return Number(sign) * mantissa * 2 ** Number(hexFloat[3]);
  }
  if (!isHex && /[.eE]/.test(body)) {
    const value = Number(body);
    return /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(body) ? Number(sign) * value : undefined;
  }
  if (/[pP.]/.test(body)) return undefined;
  const octal = /^0[0-7]+$/.test(body) ? "0o" + body.slice(1) : body;
  if (!/^(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/.test(octal)) return undefined;
  return sign * BigInt(octal);
}

function parseChar(literal: string): bigint | undefined {
  const byteEscape = /^'\\(?:x([0-9a-fA-F]{2})|([0-7]{3}))'$/.exec(literal);
  if (byteEscape) return BigInt(Number.parseInt(byteEscape[1] ?? byteEscape[2], byteEscape[1] ? 16 : 8));
  const text = unquote(literal);
  return text === undefined ? undefined : BigInt(text.codePointAt(0)!);
}

class Parser {
  private readonly tokens: Token[];
  private readonly file: string;
  private readonly functions: ReadonlySet<string>;
  private pos = 0;
  private vars: string[] = ["$"];
  private rangeDepth = 0;
  readonly defined = new Map<string, Node[]>();

  constructor(tokens: Token[], file: string, functions: ReadonlySet<string>) {
    this.tokens = tokens;
    this.file = file;
    this.functions = functions;
  }

  private fail(detail: string, line = this.tokens[Math.min(this.pos, this.tokens.length - 1)].line): never {
    throw new TemplateError(this.file, line, detail);
  }

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private next(): Token {
    return this.tokens[this.pos++];
  }

  private peekNonSpace(): Token {
    while (this.peek().kind === "space") this.pos++;
    return this.peek();
  }

  private nextNonSpace(): Token {
    this.peekNonSpace();
    return this.next();
  }

  private expect(kind: TokenKind, context: string): Token {
    const token = this.nextNonSpace();
    if (token.kind !== kind) this.unexpected(token, context);
    return token;
  }

  private unexpected(token: Token, context: string): never {
    const shown = token.kind === "eof" ? "EOF" : `"${token.text}"`;
    return this.fail(`unexpected ${shown} in ${context}`, token.line);
  }

  parse(): Node[] {
    const root: Node[] = [];
    while (this.peek().kind !== "eof") {
      if (this.peek().kind === "left") {
        const mark = this.pos;
        this.next();
        const word = this.nextNonSpace();
        if (word.kind === "keyword" && word.text === "define") {
          this.parseDefinition("define");
          continue;
        }
        this.pos = mark;
      }
      const { node, end } = this.textOrAction();
      if (end !== undefined) this.fail(`unexpected {{${end === "end" ? "end" : "else"}}}`);
      if (node !== undefined) root.push(node);
    }
    return root;
  }

  private parseDefinition(context: string): string {
    const nameToken = this.nextNonSpace();
    if (nameToken.kind !== "string") this.unexpected(nameToken, context);
    const name = unquote(nameToken.text) ?? this.fail("invalid syntax");
    this.expect("right", context);
    const outerVars = this.vars;
    this.vars = ["$"];
    const { list, end } = this.itemList();
    this.vars = outerVars;
    if (end !== "end") this.fail(`unexpected {{else}} in ${context}`);
    this.defined.set(name, list);
    return name;
  }

  /** Nodes up to the {{end}} or {{else}} that closes the current block. */
  private itemList(): { list: Node[]; end: ListEnd } {
    const list: Node[] = [];
    while (this.peekNonSpace().kind !== "eof") {
      const { node, end } = this.textOrAction();
      if (end !== undefined) return { list, end };
      if (node !== undefined) list.push(node);
    }
    return this.fail("unexpected EOF");
  }

  private textOrAction(): { node?: Node; end?: ListEnd } {
    const token = this.nextNonSpace();
    if (token.kind === "text") return { node: { type: "text", text: token.text } };
    if (token.kind !== "left") return this.unexpected(token, "input");
    return this.action();
  }

  private action(): { node?: Node; end?: ListEnd } {
    const token = this.nextNonSpace();
    if (token.kind === "keyword") {
      switch (token.text) {
        case "end":
          this.expect("right", "end");
          return { end: "end" };
        case "else":
          if (this.peekNonSpace().kind === "keyword" && this.peek().text === "if") {
            this.next();
            return { end: "else-if" };
          }
          this.expect("right", "else");
          return { end: "else" };
        case "if":
        case "with":
        case "range":
          return { node: this.control(token.text, token.line) };
        case "template":
          return { node: this.templateCall(token.line) };
        case "block":
          return { node: this.parseBlock(token.line) };
        case "break":
        case "continue":
          if (this.rangeDepth === 0) this.fail(`{{${token.text}}} outside {{range}}`);
          this.expect("right", token.text);
          return { node: { type: token.text, line: token.line } };
        default:
          this.fail(`unexpected "${token.text}" in command`);
      }
    }
    this.pos--;
    return { node: { type: "action", line: token.line, pipe: this.pipeline("command", "right") } };
  }

  private control(kind: "if" | "with" | "range", line: number): Node {
    const depth = this.vars.length;
    const pipe = this.pipeline(kind, "right");
    if (kind === "range") this.rangeDepth++;
    const body = this.itemList();
    if (kind === "range") this.rangeDepth--;
    let elseList: Node[] | undefined;
    if (body.end === "else-if") {
      if (kind !== "if") this.fail(`unexpected "if" in else`);
      // {{if a}}x{{else if b}}y{{end}} is {{if a}}x{{else}}{{if b}}y{{end}}{{end}}: one {{end}} closes both.
      elseList = [this.control("if", this.tokens[this.pos - 1].line)];
    } else if (body.end === "else") {
      const rest = this.itemList();
      if (rest.end !== "end") this.fail("expected end; found {{else}}");
      elseList = rest.list;
    }
    this.vars.length = depth;
    return { type: kind, line, pipe, list: body.list, elseList };
  }

  private templateCall(line: number): Node {
    const nameToken = this.nextNonSpace();
    if (nameToken.kind !== "string") this.unexpected(nameToken, "template clause");
    const name = unquote(nameToken.text) ?? this.fail("invalid syntax");
    let pipe: Pipeline | undefined;
    if (this.nextNonSpace().kind !== "right") {
      this.pos--;
      pipe = this.pipeline("template clause", "right");
    }
    return { type: "template", line, name, pipe };
  }

  /** {{block "name" pipeline}}body{{end}} defines "name" and calls it in place. */
  private parseBlock(line: number): Node {
    const nameToken = this.nextNonSpace();
    if (nameToken.kind !== "string") this.unexpected(nameToken, "block clause");
    const name = unquote(nameToken.text) ?? this.fail("invalid syntax");
    let pipe: Pipeline | undefined;
    if (this.nextNonSpace().kind !== "right") {
      this.pos--;
      pipe = this.pipeline("block clause", "right");
    }
    const outerVars = this.vars;
    this.vars = ["$"];
    const { list, end } = this.itemList();
    this.vars = outerVars;
    if (end !== "end") this.fail("unexpected {{else}} in block clause");
    this.defined.set(name, list);
    return { type: "template", line, name, pipe };
  }

  private pipeline(context: string, end: "right" | "rparen"): Pipeline {
    const line = this.peekNonSpace().line;
    const pipe: Pipeline = { line, decl: [], isAssign: false, commands: [] };
    for (;;) {
      const variable = this.peekNonSpace();
      if (variable.kind !== "variable") break;
      const mark = this.pos;
      this.next();
      const after = this.peekNonSpace();
      if (after.kind === "declare" || after.kind === "assign") {
        this.next();
        pipe.isAssign = after.kind === "assign";
        if (pipe.isAssign && !this.vars.includes(variable.text))
          this.fail(`undefined variable "${variable.text}"`);
        pipe.decl.push(variable.text);
        this.vars.push(variable.text);
        break;
      }
      if (after.kind === "comma") {
        this.next();
        pipe.decl.push(variable.text);
        this.vars.push(variable.text);
        if (context !== "range" || pipe.decl.length >= 2) this.fail(`too many declarations in ${context}`);
        const second = this.peekNonSpace().kind;
        if (second !== "variable" && second !== "right" && second !== "rparen") {
          this.fail("range can only initialize variables");
        }
        continue;
      }
      this.pos = mark;
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      if (token.kind === end) {
        if (pipe.commands.length === 0) this.fail(`missing value for ${context}`);
        pipe.commands.forEach((command, index) => {
          const head = command.args[0].type;
          if (index > 0 && ["bool", "dot", "nil", "number", "string"].includes(head)) {
            this.fail(`non executable command in pipeline stage ${index + 1}`);
          }
        });
        return pipe;
      }
      if (
        ![
          "bool",
          "char",
          "dot",
          "field",
          "identifier",
          "number",
          "nil",
          "string",
          "variable",
          "lparen",
        ].includes(token.kind)
      ) {
        this.unexpected(token, context);
      }
      this.pos--;
      pipe.commands.push(this.command());
    }
  }

  private command(): Command {
    const command: Command = { line: this.peekNonSpace().line, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== undefined) command.args.push(operand);
      const token = this.next();
      if (token.kind === "space") continue;
      if (token.kind === "right" || token.kind === "rparen") this.pos--;
      else if (token.kind !== "pipe") this.unexpected(token, "operand");
      break;
    }
    if (command.args.length === 0) this.fail("empty command");
    return command;
  }

  private operand(): Operand | undefined {
    const term = this.term();
    if (term === undefined) return undefined;
    if (this.peek().kind !== "field") return term;
    const fields: string[] = [];
    while (this.peek().kind === "field") fields.push(this.next().text.slice(1));
    if (term.type === "field") return { type: "field", fields: [...term.fields, ...fields] };
    if (term.type === "variable")
      return { type: "variable", name: term.name, fields: [...term.fields, ...fields] };
    if (["bool", "string", "number", "nil", "dot"].includes(term.type)) {
      this.fail(`unexpected . after term ${JSON.stringify(this.tokens[this.pos - fields.length - 1].text)}`);
    }
    return { type: "chain", operand: term, fields };
  }

  private term(): Operand | undefined {
    const token = this.nextNonSpace();
    switch (token.kind) {
      case "identifier":
        if (!this.functions.has(token.text)) this.fail(`function "${token.text}" not defined`, token.line);
        return { type: "identifier", name: token.text };
      case "dot":
        return { type: "dot" };
      case "nil":
        return { type: "nil" };
      case "variable": {
        if (!this.vars.includes(token.text)) this.fail(`undefined variable "${token.text}"`, token.line);
        return { type: "variable", name: token.text, fields: [] };
      }
      case "field":
        return { type: "field", fields: [token.text.slice(1)] };
      case "bool":
        return { type: "bool", value: token.text === "true" };
      case "number": {
        const value = parseNumber(token.text);
        if (value === undefined) this.fail(`illegal number syntax: "${token.text}"`, token.line);
        if (typeof value === "bigint" && (value > 2n ** 63n - 1n || value < -(2n ** 63n))) {
          this.fail(`${token.text} overflows int`, token.line);
        }
        return { type: "number", value, text: token.text };
      }
      case "char": {
        const value = parseChar(token.text);
        if (value === undefined) this.fail(`malformed character constant: ${token.text}`, token.line);
        return { type: "number", value, text: token.text };
      }
      case "lparen":
        return { type: "pipe", pipe: this.pipeline("parenthesized pipeline", "rparen") };
      case "string": {
        const value = unquote(token.text);
        if (value === undefined) this.fail("invalid syntax", token.line);
        return { type: "string", value };
      }
    }
    this.pos--;
    return undefined;
  }
}

export function parseTemplate(text: string, file: string, functions: ReadonlySet<string>): ParsedTemplate {
  const parser = new Parser(lex(text, file), file, functions);
  const root = parser.parse();
  return { root, defined: parser.defined };
}
