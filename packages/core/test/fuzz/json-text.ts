// Request bodies are written as JSON text by hand so they can hold what JSON.stringify cannot
// produce: numbers beyond a double, duplicate keys, nesting deeper than a recursion allows.

/** JSON text that goes into a body verbatim. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** An object written with a key twice (the second value usually wins, or the parser refuses it). */
export function duplicateKeys(key: string, first: unknown, second: unknown): RawJson {
  return new RawJson(
    `{${JSON.stringify(key)}:${jsonText(first)},${JSON.stringify(key)}:${jsonText(second)}}`,
  );
}

/** Arrays and objects nested `depth` deep. */
export function nested(depth: number, kind: "array" | "object"): RawJson {
  return new RawJson(
    kind === "array"
      ? "[".repeat(depth) + "]".repeat(depth)
      : '{"a":'.repeat(depth) + "1" + "}".repeat(depth),
  );
}

export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}
