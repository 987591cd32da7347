import { Ajv } from "ajv";
import addFormats from "ajv-formats";

type SchemaNode = Record<string | symbol, unknown>;

// Both databases' id columns are 64-bit, and a JS number is exact only up to 2^53 - 1: an integer
// beyond that cannot name a row, and would reach PostgreSQL as a value its column refuses. A
// number must be finite: Ajv converts the text `1e400` to Infinity, which no column holds.
const LARGEST = { integer: Number.MAX_SAFE_INTEGER, number: Number.MAX_VALUE } as const;

/**
 * The bounds of an `integer` column on both databases (PostgreSQL's is 32-bit), for a schema whose
 * field is stored in one: a value beyond them is the client's error, not the database's.
 */
export const INTEGER_COLUMN = { minimum: -2147483648, maximum: 2147483647 } as const;

function isNode(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null;
}

function numericType(node: SchemaNode): keyof typeof LARGEST | undefined {
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.includes("integer") ? "integer" : types.includes("number") ? "number" : undefined;
}

/**
 * A copy of a route's schema where every integer is bounded to what a JS number holds exactly and
 * every number to a finite one, keeping any tighter bounds the schema declares. The route's own
 * schema (its OpenAPI document) is left as written.
 */
export function boundNumbers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(boundNumbers) as T;
  if (!isNode(schema)) return schema;
  const copy: SchemaNode = { ...schema };
  for (const key of Object.keys(copy)) copy[key] = boundNumbers(copy[key]);
  const type = numericType(copy);
  if (type) {
    const largest = LARGEST[type];
    copy.minimum = Math.max(typeof copy.minimum === "number" ? copy.minimum : -largest, -largest);
    copy.maximum = Math.min(typeof copy.maximum === "number" ? copy.maximum : largest, largest);
  }
  return copy as T;
}

/**
 * fastify's own validator settings, but every invalid field is reported at once (Snipe-IT lists
 * them all; bodies are size-limited) and body coercion is the service's choice. Schemas are
 * compiled through boundNumbers.
 */
export function createValidator(coerceTypes: false | "array"): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: true,
    allErrors: true,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}
