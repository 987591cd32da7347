import { type AnyKysely, INTEGER_COLUMN, Invalid } from "@anvil/core";
import { type TSchema, Type } from "typebox";
import validator from "validator";
import type { KnownRows } from "./known-rows.ts";

// Laravel-style validation, because Snipe-IT's clients read its messages: a field's rules are one
// string as a Laravel model declares them ("required|string|min:1|max:255"), checked all at once,
// and each failing field gets Laravel's English sentence. The same rules give the OpenAPI schema.

export type Rules = Readonly<Record<string, string>>;
/** Messages that replace Laravel's for one field and rule: `{"name.required": "..."}`. */
export type CustomMessages = Readonly<Record<string, string>>;

type Kind = "string" | "integer" | "numeric" | "boolean" | "array" | "object";

interface ParsedRule {
  name: string;
  argument: string;
}

const BOOLEAN_TRUE = new Set<unknown>([true, 1, "1", "true"]);
const BOOLEAN_FALSE = new Set<unknown>([false, 0, "0", "false"]);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// A date, then optionally a time and an offset, as both databases read them.
const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
// What an integer column holds on both databases (PostgreSQL's `integer`): a value beyond it is
// refused as the field's size rule would, before any rule (`exists`) sends it to the database.
const INTEGER_BOUNDS = { min: INTEGER_COLUMN.minimum, max: INTEGER_COLUMN.maximum } as const;
// Tables whose rows are removed rather than soft-deleted: `exists` needs no deleted_at test there.
const HARD_DELETED = new Set(["permission_groups", "custom_fieldsets"]);

/**
 * A field's rules, `max` first: a value over its length limit is refused before any pattern or
 * lookup sees it, so no rule ever works on more than the limit allows.
 */
function parse(rules: string): ParsedRule[] {
  const parsed = rules.split("|").map((rule) => {
    const colon = rule.indexOf(":");
    return colon < 0
      ? { name: rule, argument: "" }
      : { name: rule.slice(0, colon), argument: rule.slice(colon + 1) };
  });
  return [...parsed.filter((rule) => rule.name === "max"), ...parsed.filter((rule) => rule.name !== "max")];
}

function kindOf(rules: ParsedRule[]): Kind {
  for (const rule of rules) {
    if (rule.name === "integer" || rule.name === "numeric" || rule.name === "boolean") return rule.name;
    if (rule.name === "array" || rule.name === "object") return rule.name;
  }
  return "string";
}

/** A field's rules as validate reads them. */
interface FieldRules {
  parsed: ParsedRule[];
  kind: Kind;
  names: ReadonlySet<string>;
}

// Rule texts are the code's own, a bounded set: each is parsed once (an import validates its rows'
// two dozen fields each, and parsing them every time was a good part of its time).
const FIELD_RULES = new Map<string, FieldRules>();

function fieldRules(text: string): FieldRules {
  let rules = FIELD_RULES.get(text);
  if (rules === undefined) {
    const parsed = parse(text);
    rules = { parsed, kind: kindOf(parsed), names: new Set(parsed.map((rule) => rule.name)) };
    FIELD_RULES.set(text, rules);
  }
  return rules;
}

/** Whether a field's rules (`"required|string"`) name this rule. */
export function hasRule(rules: string, name: string): boolean {
  return fieldRules(rules).names.has(name);
}

/** The attribute as Laravel names it in a message: underscores become spaces. */
export function attributeName(field: string): string {
  return field.replaceAll("_", " ");
}

/**
 * Whether the `date` rule accepts the text: a calendar date, or text Date.parse reads (as PHP's
 * strtotime reads loose text) naming a day of the years 1 to 9999, which both databases store.
 */
export function isValidDate(text: string): boolean {
  if (!DATE.test(text)) {
    const year = new Date(Date.parse(text)).getUTCFullYear();
    return year >= 1 && year <= 9999;
  }
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/**
 * A text the `date` rule accepted, as stored: a date or date-time in ISO form as given, loose text
 * (`March 7, 2024`, or `fuzz-985` that V8 reads as the year 985) as the `YYYY-MM-DD` it names,
 * since PostgreSQL reads no loose text as V8 does and SQLite would keep it unsortable.
 */
export function storedDate(text: string): string {
  return ISO_DATE_TIME.test(text) ? text : dayOf(text);
}

/** The `YYYY-MM-DD` a date text the `date` rule accepted names. */
export function dayOf(text: string): string {
  return new Date(Date.parse(text)).toISOString().slice(0, 10);
}

/** An e-mail address as the `email` rule accepts it (validator's check: linear, bounded to 254). */
export function isEmailAddress(text: string): boolean {
  return validator.isEmail(text);
}

export function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.hostname !== "" || url.protocol === "file:";
  } catch {
    return false;
  }
}

/** The value in the rule's type, or undefined when it is not of it. */
function coerce(kind: Kind, value: unknown): unknown {
  switch (kind) {
    case "string":
      return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
    case "integer": {
      const n = typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
      return typeof n === "number" && Number.isSafeInteger(n) ? n : undefined;
    }
    case "numeric": {
      const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      return typeof n === "number" && Number.isFinite(n) ? n : undefined;
    }
    case "boolean":
      return BOOLEAN_TRUE.has(value) ? true : BOOLEAN_FALSE.has(value) ? false : undefined;
    case "array":
      return Array.isArray(value) ? value : undefined;
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  }
}

function sizeOf(kind: Kind, value: unknown): number {
  if (kind === "integer" || kind === "numeric") return value as number;
  if (kind === "array") return (value as unknown[]).length;
  return [...String(value)].length;
}

function sizeMessage(kind: Kind, bound: "min" | "max", attribute: string, limit: string): string {
  const numeric = kind === "integer" || kind === "numeric";
  const unit = numeric ? "" : kind === "array" ? " items" : " characters";
  return bound === "min"
    ? `The ${attribute} field must be at least ${limit}${unit}.`
    : `The ${attribute} field must not be greater than ${limit}${unit}.`;
}

const TYPE_MESSAGES: Record<Kind, string> = {
  string: "must be a string",
  integer: "must be an integer",
  numeric: "must be a number",
  boolean: "must be true or false",
  array: "must be an array",
  object: "must be an array",
};

/**
 * Checks `input` against `rules`; returns the fields the input has, in their types (an empty
 * string counts as null, as Laravel's middleware makes it, and only a `nullable` field takes null,
 * so no column that must hold a value is emptied). Throws Invalid with every failing
 * field's message. `exists:table` looks the id up among the table's undeleted rows (in `known`
 * first, when a bulk write read them up front).
 */
export async function validate(
  db: AnyKysely,
  input: Record<string, unknown>,
  rules: Rules,
  messages: CustomMessages = {},
  known?: KnownRows,
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  const errors: Record<string, string[]> = {};
  for (const [field, text] of Object.entries(rules)) {
    const { parsed, kind, names } = fieldRules(text);
    const raw = input[field] === "" ? null : input[field];
    const fail = (rule: string, message: Message) => {
      errors[field] = [messages[`${field}.${rule}`] ?? message(attributeName(field))];
    };
    if (raw === undefined || raw === null) {
      if (names.has("required")) fail("required", (a) => `The ${a} field is required.`);
      else if (raw === null && names.has("nullable")) values[field] = null;
      // Without `nullable`, Laravel runs the rules on null too, and its type and `in` rules refuse it.
      else if (raw === null)
        errors[field] = emptyRefused(parsed, kind, field, attributeName(field), messages);
      continue;
    }
    const value = coerce(kind, raw);
    if (value === undefined) {
      fail(kind, (a) => `The ${a} field ${TYPE_MESSAGES[kind]}.`);
      continue;
    }
    const outside = kind === "integer" ? outOfBounds(value as number) : undefined;
    if (outside) {
      const limit = parsed.find((rule) => rule.name === outside)?.argument ?? String(INTEGER_BOUNDS[outside]);
      fail(outside, (a) => sizeMessage(kind, outside, a, limit));
      continue;
    }
    for (const rule of parsed) {
      // Only `exists` waits on the database; the other rules answer at once.
      const failed =
        rule.name === "exists"
          ? await missingRow(db, rule.argument, value, known)
          : brokenRule(rule, kind, value, input[`${field}_confirmation`]);
      if (failed) {
        fail(rule.name, failed);
        break;
      }
    }
    if (errors[field] === undefined) values[field] = names.has("date") ? storedDate(String(value)) : value;
  }
  if (Object.keys(errors).length > 0) throw new Invalid("The given data was invalid.", errors);
  return values;
}

/** Laravel's messages for an empty value of a field that may not be empty: its type's, and its `in`'s. */
function emptyRefused(
  parsed: ParsedRule[],
  kind: Kind,
  field: string,
  attribute: string,
  messages: CustomMessages,
): string[] {
  const refusals = [messages[`${field}.${kind}`] ?? `The ${attribute} field ${TYPE_MESSAGES[kind]}.`];
  if (parsed.some((rule) => rule.name === "in"))
    refusals.push(messages[`${field}.in`] ?? `The selected ${attribute} is invalid.`);
  return refusals;
}

function outOfBounds(value: number): "min" | "max" | undefined {
  return value > INTEGER_BOUNDS.max ? "max" : value < INTEGER_BOUNDS.min ? "min" : undefined;
}

type Message = (attribute: string) => string;

/** The message of `exists:table` when no undeleted row of the table has this id (`known` first). */
async function missingRow(
  db: AnyKysely,
  table: string,
  value: unknown,
  known: KnownRows | undefined,
): Promise<Message | undefined> {
  const kept = known?.row(table, "id", value);
  const found =
    kept !== undefined
      ? kept
      : await db
          .selectFrom(table)
          .select("id")
          .where("id", "=", value as number)
          .$if(!HARD_DELETED.has(table), (q) => q.where("deleted_at", "is", null))
          .executeTakeFirst();
  return found ? undefined : (a) => `The selected ${a} is invalid.`;
}

function brokenRule(
  rule: ParsedRule,
  kind: Kind,
  value: unknown,
  confirmation: unknown,
): Message | undefined {
  switch (rule.name) {
    case "confirmed":
      return confirmation === value ? undefined : (a) => `The ${a} field confirmation does not match.`;
    case "min":
    case "max": {
      const size = sizeOf(kind, value);
      const limit = Number(rule.argument);
      const broken = rule.name === "min" ? size < limit : size > limit;
      return broken ? (a) => sizeMessage(kind, rule.name as "min" | "max", a, rule.argument) : undefined;
    }
    case "email":
      return isEmailAddress(String(value))
        ? undefined
        : (a) => `The ${a} field must be a valid email address.`;
    case "url":
      return isUrl(String(value)) ? undefined : (a) => `The ${a} field must be a valid URL.`;
    case "date":
      return isValidDate(String(value)) ? undefined : (a) => `The ${a} field must be a valid date.`;
    case "in":
      return rule.argument.split(",").includes(String(value).toLowerCase())
        ? undefined
        : (a) => `The selected ${a} is invalid.`;
    default:
      return undefined;
  }
}

function schemaOf(text: string): TSchema {
  const parsed = parse(text);
  const kind = kindOf(parsed);
  const description = text;
  const options = { description };
  const base =
    kind === "integer"
      ? Type.Integer(options)
      : kind === "numeric"
        ? Type.Number(options)
        : kind === "boolean"
          ? Type.Boolean(options)
          : kind === "array"
            ? Type.Array(Type.Unknown(), options)
            : kind === "object"
              ? Type.Record(Type.String(), Type.Unknown(), options)
              : Type.String(options);
  return parsed.some((rule) => rule.name === "required")
    ? base
    : Type.Optional(Type.Union([base, Type.Null()]));
}

/** The request body the rules accept, for the OpenAPI document (the rules themselves validate). */
export function bodySchema(rules: Rules): TSchema {
  return Type.Object(
    Object.fromEntries(Object.entries(rules).map(([field, text]) => [field, schemaOf(text)])),
  );
}
