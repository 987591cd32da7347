// webhook's -template: a hooks file is executed as a Go text/template (with nil data) before it is
// parsed, so secrets can come from the environment, files or systemd credentials.
import { formatValue, type GoValue, goTypeName } from "./fmt.ts";
import { FunctionError, isTrue, type ParamKind, templateFunctions } from "./funcs.ts";
import { TemplateError } from "./lex.ts";
import { type Command, type Node, type Operand, type Pipeline, parseTemplate } from "./parse.ts";

export { TemplateError } from "./lex.ts";

/** A template value; undefined is Go's "no value" (the nil dot, a field of nothing). */
type Value = GoValue | undefined;

/** Marks "no value piped in", distinct from a piped-in "no value". */
const NOTHING_PIPED = Symbol("nothing piped");
type Piped = Value | typeof NOTHING_PIPED;

const maxDepth = 1000;

function operandText(operand: Operand): string {
  switch (operand.type) {
    case "string":
      return JSON.stringify(operand.value);
    case "number":
      return operand.text;
    case "bool":
      return String(operand.value);
    case "nil":
      return "nil";
    case "dot":
      return ".";
    case "identifier":
      return operand.name;
    case "field":
      return operand.fields.map((field) => "." + field).join("");
    case "variable":
      return operand.name + operand.fields.map((field) => "." + field).join("");
    default:
      return "(...)";
  }
}

class Execution {
  private readonly file: string;
  private readonly defined: Map<string, Node[]>;
  private vars: { name: string; value: Value }[] = [];
  private depth = 0;
  private line = 1;
  readonly out: string[] = [];

  constructor(file: string, defined: Map<string, Node[]>) {
    this.file = file;
    this.defined = defined;
  }

  private fail(detail: string): never {
    throw new TemplateError(this.file, this.line, detail);
  }

  run(list: Node[], dot: Value): void {
    const outer = this.vars;
    this.vars = [{ name: "$", value: dot }];
    this.walkList(list, dot);
    this.vars = outer;
  }

  private walkList(list: Node[], dot: Value): void {
    for (const node of list) this.walk(node, dot);
  }

  private walk(node: Node, dot: Value): void {
    if (node.type === "text") {
      this.out.push(node.text);
      return;
    }
    this.line = node.line;
    if (node.type === "action") {
      const value = this.evalPipeline(dot, node.pipe);
      if (node.pipe.decl.length === 0) this.out.push(value === undefined ? "<no value>" : formatValue(value));
    } else if (node.type === "if" || node.type === "with" || node.type === "range")
      this.walkControl(node, dot);
    else if (node.type === "template") this.walkTemplate(node.name, node.pipe, dot);
    // break and continue only occur inside range, whose body never runs on a hooks file's nil data.
  }

  private walkControl(node: Extract<Node, { type: "if" | "with" | "range" }>, dot: Value): void {
    const mark = this.vars.length;
    const value = this.evalPipeline(dot, node.pipe);
    if (node.type === "range" && value !== undefined && value !== null) {
      this.fail(`range can't iterate over ${formatValue(value)}`);
    }
    if (node.type !== "range" && isTrue(value)) this.walkList(node.list, node.type === "with" ? value : dot);
    else if (node.elseList !== undefined) this.walkList(node.elseList, dot);
    this.vars.length = mark;
  }

  private walkTemplate(name: string, pipe: Pipeline | undefined, dot: Value): void {
    const list = this.defined.get(name);
    if (list === undefined) this.fail(`template "${name}" not defined`);
    if (++this.depth > maxDepth) this.fail(`exceeded maximum template depth (${maxDepth})`);
    this.run(list, pipe === undefined ? undefined : this.evalPipeline(dot, pipe));
    this.depth--;
  }

  private evalPipeline(dot: Value, pipe: Pipeline): Value {
    let value: Piped = NOTHING_PIPED;
    for (const command of pipe.commands) value = this.evalCommand(dot, command, value);
    const result = value === NOTHING_PIPED ? undefined : value;
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVariable(name, result);
      else this.vars.push({ name, value: result });
    }
    return result;
  }

  private setVariable(name: string, value: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    this.fail(`undefined variable: ${name}`);
  }

  private variable(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return this.fail(`undefined variable: ${name}`);
  }

  private evalCommand(dot: Value, command: Command, piped: Piped): Value {
    this.line = command.line;
    const [head, ...args] = command.args;
    if (head.type === "identifier") return this.evalFunction(dot, head.name, args, piped);
    if (args.length > 0 || piped !== NOTHING_PIPED) {
      this.fail(`can't give argument to non-function ${operandText(head)}`);
    }
    if (head.type === "nil") this.fail("nil is not a command");
    return this.evalOperand(dot, head);
  }

  private evalOperand(dot: Value, operand: Operand): Value {
    switch (operand.type) {
      case "string":
      case "number":
      case "bool":
        return operand.value;
      case "nil":
        return null;
      case "dot":
        return dot;
      case "field":
        return this.evalFields(dot, operand.fields);
      case "variable":
        return this.evalFields(this.variable(operand.name), operand.fields);
      case "identifier":
        return this.evalFunction(dot, operand.name, [], NOTHING_PIPED);
      case "pipe":
        return this.evalPipeline(dot, operand.pipe);
      case "chain":
        return this.evalFields(this.evalOperand(dot, operand.operand), operand.fields);
    }
  }

  /** Fields of nothing are nothing (Go's nil data); the values a template can build have no fields. */
  private evalFields(receiver: Value, fields: string[]): Value {
    for (const field of fields) {
      if (receiver === undefined || receiver === null) return undefined;
      this.fail(`can't evaluate field ${field} in type ${goTypeName(receiver)}`);
    }
    return receiver;
  }

  private evalArg(dot: Value, kind: ParamKind, operand: Operand): GoValue {
    if (kind === "string" && (operand.type === "number" || operand.type === "bool")) {
      this.fail(`expected string; found ${operandText(operand)}`);
    }
    if (kind === "string" && operand.type === "nil") this.fail("cannot assign nil to string");
    return this.checkType(this.evalOperand(dot, operand), kind);
  }

  private checkType(value: Value, kind: ParamKind): GoValue {
    if (kind === "any") return value ?? null;
    if (value === undefined || value === null) this.fail("invalid value; expected string");
    if (typeof value !== "string")
      this.fail(`wrong type for value; expected string; got ${goTypeName(value)}`);
    return value;
  }

  private evalFunction(dot: Value, name: string, args: Operand[], piped: Piped): Value {
    const fn = templateFunctions.get(name)!;
    const given = args.length + (piped === NOTHING_PIPED ? 0 : 1);
    const required = fn.variadic ? fn.params.length - 1 : fn.params.length;
    if (fn.variadic ? given < required : given !== required) {
      const want = fn.variadic ? `at least ${required}` : String(required);
      this.fail(`wrong number of args for ${name}: want ${want} got ${given}`);
    }
    const kindAt = (i: number) => fn.params[Math.min(i, fn.params.length - 1)];
    if (name === "and" || name === "or") return this.evalShortCircuit(dot, name, args, piped);
    const values = args.map((arg, i) => this.evalArg(dot, kindAt(i), arg));
    if (piped !== NOTHING_PIPED) values.push(this.checkType(piped, kindAt(args.length)));
    try {
      return fn.call(values);
    } catch (error) {
      if (error instanceof FunctionError) this.fail(`error calling ${name}: ${error.message}`);
      throw error;
    }
  }

  /** and/or stop at the first argument that decides the result and return that argument. */
  private evalShortCircuit(dot: Value, name: "and" | "or", args: Operand[], piped: Piped): Value {
    let value: Value;
    for (const arg of args) {
      value = this.evalArg(dot, "any", arg);
      if (isTrue(value) === (name === "or")) return value;
    }
    if (piped !== NOTHING_PIPED) value = piped ?? null;
    return value;
  }
}

const functionNames: ReadonlySet<string> = new Set(templateFunctions.keys());

/** Executes a hooks file as a Go text/template with nil data; throws TemplateError naming file:line. */
export function renderTemplate(text: string, file: string): string {
  const { root, defined } = parseTemplate(text, file, functionNames);
  const execution = new Execution(file, defined);
  execution.run(root, undefined);
  return execution.out.join("");
}
