import { duplicateKeys, nested, RawJson } from "./json-text.ts";
import type { Schema } from "./openapi.ts";
import type { Random } from "./random.ts";

// The malformed values a client can send in a field, a query parameter or a path segment.

// 140,000 is past Linux's longest single command-line argument (128 KiB).
const SIZES = [256, 4096, 140_000, 1_100_000];

/** Strings that are strings but that no field should take as they come. */
export function junkString(random: Random): string {
  const size = random.pick(SIZES.slice(0, 3));
  switch (random.int(0, 12)) {
    case 0:
      return random.pick(["", " ", "\t\n", "\u0000", "a\u0000b", "\u0000".repeat(64)]);
    case 1:
      // Unicode separators, a byte-order mark, zero-width and right-to-left marks, a lone surrogate.
      return random.pick([
        "\u2028\u2029",
        "a\u0085b\u00a0c",
        "\ufeff\u200b\u200d",
        "\u202eevil",
        "\ud800",
        "e\u0301",
      ]);
    case 2:
      return random.pick(["😀", "a", "é", "\u0000", "/", "%"]).repeat(random.pick(SIZES));
    case 3:
      return random.pick([
        "..",
        ".",
        "../../../../etc/passwd",
        "..\\..\\windows",
        "a/b",
        "/abs",
        ".git",
        "CON",
        "~root",
        "%00",
        "%2e%2e%2f",
      ]);
    case 4:
      // Option and shell injection: values that reach a git command or a hook must stay arguments.
      return random.pick([
        "--upload-pack=touch /tmp/anvil-fuzz",
        "-rf",
        "$(id)",
        "`id`",
        ";id",
        "|id",
        "--help",
      ]);
    case 5:
      return random.pick([
        "' OR 1=1 --",
        '"; DROP TABLE users; --',
        "<script>alert(1)</script>",
        "{{7*7}}",
        "$" + "{7*7}",
      ]);
    case 6:
      // Inputs that make a backtracking regex run for a long time.
      return random.pick([
        "a".repeat(size) + "!",
        "a@" + "a.".repeat(size / 2),
        `${"a".repeat(size)}@${"a".repeat(size)}`,
        "ssh-rsa " + "A".repeat(size),
        "ssh-ed25519 " + "AAAA".repeat(size / 4) + " x",
        "http://" + "a.".repeat(size / 2),
        "0".repeat(size),
        " ".repeat(size) + "x",
      ]);
    case 7:
      return random.pick([
        "NaN",
        "Infinity",
        "-0",
        "0x10",
        "1e309",
        "1_000",
        "true",
        "null",
        "[]",
        "{}",
        "-1",
        "9".repeat(40),
      ]);
    case 8:
      return random.pick([
        "2024-02-30",
        "0000-00-00 00:00:00",
        "9999-99-99",
        "2024-01-01T25:61:61Z",
        "-001-01-01",
        "yesterday",
      ]);
    case 9:
      return random.pick(["refs/heads/../../x", "HEAD", "main~1", "@{-1}", "a..b", "x.lock", "refs/heads/"]);
    case 10:
      return "\r\nX-Injected: 1";
    case 11:
      return random.pick(["%ff", "%", "%zz", "\\", "\\\\server\\share", "\u00ff\u00fe"]);
    default:
      return random.pick(["a", "é", "x"]).repeat(size);
  }
}

/** Numbers at and past every boundary, some of them only expressible as JSON text. */
export function junkNumber(random: Random): unknown {
  return random.pick<unknown>([
    0,
    -1,
    -2147483649,
    2147483648,
    1e308,
    -1e308,
    0.5,
    -0.000001,
    new RawJson("9007199254740993"),
    new RawJson("123456789012345678901234567890"),
    new RawJson("1e400"),
    new RawJson("-1e400"),
    new RawJson("-0"),
    new RawJson("1.0"),
    new RawJson("1E2"),
  ]);
}

/** Arrays, objects and nesting where a scalar (or another shape) was expected. */
export function junkCompound(random: Random): unknown {
  switch (random.int(0, 7)) {
    case 0:
      return random.pick<unknown>([[], [null], {}, { a: 1 }, [[[]]], [1, "a", null, {}]]);
    case 1:
      return Array.from({ length: random.pick([1000, 20_000]) }, (_, i) => i);
    case 2:
      return nested(random.pick([64, 1000, 10_000]), random.pick(["array", "object"]));
    case 3:
      return new RawJson(
        '{"__proto__":{"admin":true,"is_admin":true},"constructor":{"prototype":{"polluted":1}}}',
      );
    case 4:
      return duplicateKeys("a", 1, "b");
    case 5:
      return Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
    case 6:
      return { id: junkNumber(random), name: junkString(random) };
    default:
      return random.pick([true, false, null]);
  }
}

function typeOf(schema: Schema | undefined): string | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== "null");
  if (schema.type) return schema.type;
  const variant = schema.anyOf ?? schema.oneOf;
  return variant ? typeOf(variant.find((item) => item.type !== "null")) : undefined;
}

/** A value of another type than the schema's. */
function wrongType(random: Random, type: string | undefined): unknown {
  const others: Record<string, () => unknown> = {
    string: () => random.pick<unknown>(["1", "true", junkString(random)]),
    number: () => junkNumber(random),
    boolean: () => random.pick([true, false]),
    array: () => random.pick<unknown>([[], ["a"], [1, 2]]),
    object: () => random.pick<unknown>([{}, { a: "b" }]),
  };
  const choices = Object.keys(others).filter(
    (name) => name !== type && !(name === "number" && type === "integer"),
  );
  return others[random.pick(choices)]();
}

/** A malformed value for a field of this schema. */
export function junkValue(random: Random, schema: Schema | undefined): unknown {
  const roll = random.next();
  if (roll < 0.15) return null;
  if (roll < 0.5) return wrongType(random, typeOf(schema));
  if (roll < 0.85) {
    const type = typeOf(schema);
    return type === "integer" || type === "number" ? junkNumber(random) : junkString(random);
  }
  return junkCompound(random);
}

/** A value a well-behaved client could send for this schema (so the others in a body get checked). */
export function plausibleValue(random: Random, schema: Schema | undefined, depth = 0): unknown {
  if (schema?.enum && schema.enum.length > 0) return random.pick(schema.enum);
  switch (typeOf(schema)) {
    case "integer":
    case "number":
      return random.int(1, 3);
    case "boolean":
      return random.chance(0.5);
    case "array":
      return depth > 2 ? [] : [plausibleValue(random, schema?.items, depth + 1)];
    case "object":
      return depth > 2 ? {} : plausibleObject(random, schema, depth + 1);
    default:
      return random.pick(["fuzz", `fuzz-${random.int(0, 999)}`, "2024-01-01", "fuzz@example.com"]);
  }
}

function plausibleObject(random: Random, schema: Schema | undefined, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {}))
    if (random.chance(0.5)) object[name] = plausibleValue(random, property, depth);
  return object;
}
