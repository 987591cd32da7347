import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import ts from "typescript";
import { GO_POINTERS } from "../support/swagger.ts";

// gitea-js types every answer with interfaces generated from Gitea's swagger; TypeScript trusts them
// without looking. This reads those declarations from the installed package and checks an answer
// against them at run time, so a field the client names never arrives with another type.

const declarations = (() => {
  const entry = createRequire(import.meta.url).resolve("gitea-js");
  const file = entry.replace(/index\.js$/, "index.d.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found = new Map<string, ts.InterfaceDeclaration | ts.TypeAliasDeclaration>();
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      found.set(statement.name.text, statement);
    }
  }
  return found;
})();

/** Asserts that `value` is what gitea-js's type `name` promises (`Repository`, `Team[]`). */
export function assertClientType(name: string, value: unknown): void {
  const problems: string[] = [];
  const list = name.endsWith("[]");
  const typeName = list ? name.slice(0, -2) : name;
  if (!declarations.has(typeName)) throw new Error(`gitea-js declares no type ${typeName}`);
  if (list) {
    if (!Array.isArray(value)) problems.push(`$: not a list`);
    else for (const [index, item] of value.entries()) checkNamed(typeName, item, `$[${index}]`, problems);
  } else checkNamed(typeName, value, "$", problems);
  assert.deepEqual(problems, [], `not a gitea-js ${name}: ${JSON.stringify(value)}`);
}

function checkNamed(name: string, value: unknown, at: string, problems: string[]): void {
  const declaration = declarations.get(name);
  if (!declaration) return;
  if (ts.isTypeAliasDeclaration(declaration)) {
    check(declaration.type, value, at, problems);
    return;
  }
  // Gitea's Go structs render nil pointers, slices and maps as null; other scalars are never null.
  if (value === null) return;
  if (typeof value !== "object" || Array.isArray(value)) {
    problems.push(`${at}: not an object`);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const member of declaration.members) {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isIdentifier(member.name)) continue;
    const field = member.name.text;
    if (!(field in record)) {
      if (!member.questionToken) problems.push(`${at}.${field}: missing`);
      continue;
    }
    // A Go *time.Time (an issue's closed_at, a milestone's due_on) renders nil as null too, and
    // so does a *string that go-swagger shows as a plain string.
    if (record[field] === null && (isDateTime(member) || GO_POINTERS[name]?.includes(field))) continue;
    check(member.type, record[field], `${at}.${field}`, problems);
  }
}

function isDateTime(member: ts.PropertySignature): boolean {
  return ts.getJSDocTags(member).some((tag) => tag.tagName.text === "format" && tag.comment === "date-time");
}

function check(type: ts.TypeNode, value: unknown, at: string, problems: string[]): void {
  switch (type.kind) {
    case ts.SyntaxKind.StringKeyword:
      if (typeof value !== "string") problems.push(`${at}: ${JSON.stringify(value)} is not a string`);
      return;
    case ts.SyntaxKind.NumberKeyword:
      if (typeof value !== "number") problems.push(`${at}: ${JSON.stringify(value)} is not a number`);
      return;
    case ts.SyntaxKind.BooleanKeyword:
      if (typeof value !== "boolean") problems.push(`${at}: ${JSON.stringify(value)} is not a boolean`);
      return;
  }
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) {
    if (value !== type.literal.text)
      problems.push(`${at}: ${JSON.stringify(value)} is not "${type.literal.text}"`);
  } else if (ts.isUnionTypeNode(type)) {
    const fits = type.types.some((member) => {
      const own: string[] = [];
      check(member, value, at, own);
      return own.length === 0;
    });
    if (!fits) problems.push(`${at}: ${JSON.stringify(value)} is none of ${type.getText()}`);
  } else if (ts.isArrayTypeNode(type)) {
    if (value === null) return;
    if (!Array.isArray(value)) problems.push(`${at}: not a list`);
    else
      for (const [index, item] of value.entries()) check(type.elementType, item, `${at}[${index}]`, problems);
  } else if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
    const name = type.typeName.text;
    if (name !== "Record") checkNamed(name, value, at, problems);
    else if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
      problems.push(`${at}: not a map`);
    } else if (value !== null && type.typeArguments?.[1]) {
      for (const [key, item] of Object.entries(value))
        check(type.typeArguments[1], item, `${at}.${key}`, problems);
    }
  }
}
