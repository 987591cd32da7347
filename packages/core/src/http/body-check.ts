/** How deep a JSON body may nest; neither API has a body deeper than a handful of levels. */
const MAX_BODY_DEPTH = 32;

/** A JSON body nested deeper than MAX_BODY_DEPTH: a malformed body (it would overflow the stack later). */
export class BodyTooDeep extends Error {
  readonly statusCode = 400;
  readonly code = "ANVIL_JSON_TOO_DEEP";
  constructor() {
    super(`the JSON body is nested deeper than ${MAX_BODY_DEPTH} levels`);
  }
}

/** Where text with a NUL character was found, in the shape of an Ajv error so it reads as any invalid field. */
interface NulIssue {
  instancePath: string;
  keyword: "pattern";
  message: string;
  params: Record<string, never>;
}

/**
 * Request text holding a NUL character. No stored name or text can hold one, and PostgreSQL refuses
 * it outright ("invalid byte sequence"), so it is an invalid value wherever it appears; the API's
 * validation answer says which field.
 */
export class NulCharacter extends Error {
  readonly statusCode = 400;
  readonly code = "ANVIL_NUL_CHARACTER";
  readonly validation: NulIssue[];
  constructor(field: string) {
    super(`${field || "body"} must not contain NUL characters`);
    this.validation = [
      {
        instancePath: field === "" ? "" : `/${field.replaceAll(".", "/")}`,
        keyword: "pattern",
        message: "must not contain NUL characters",
        params: {},
      },
    ];
  }
}

export function hasNul(text: string): boolean {
  return text.includes("\u0000");
}

/** Throws NulCharacter naming the first value of a parsed query string that holds a NUL. */
export function refuseNul(values: unknown): void {
  checkBody(values, { nullMeansAbsent: false });
}

/**
 * Checks a decoded body in one pass, without recursion (the depth is what is being checked): no
 * deeper than MAX_BODY_DEPTH, no NUL in any key or string. With `nullMeansAbsent`, an object
 * member whose value is null is removed, as Go's decoder leaves a field it is given null for.
 */
export function checkBody(body: unknown, options: { nullMeansAbsent: boolean }): void {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [
    { value: body, path: "", depth: 0 },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === "string") {
      if (hasNul(value)) throw new NulCharacter(path);
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_BODY_DEPTH) throw new BodyTooDeep();
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (hasNul(key)) throw new NulCharacter(path);
      const member = record[key];
      if (member === null && options.nullMeansAbsent && !Array.isArray(value)) delete record[key];
      else pending.push({ value: member, path: path === "" ? key : `${path}.${key}`, depth: depth + 1 });
    }
  }
}
