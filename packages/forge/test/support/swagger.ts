import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

// Every JSON body the API tests receive is checked against Gitea's swagger file, which sits in the
// shared specs beside the repository (ANVIL_SPECS_DIR overrides). CI always has it; a clone
// without it runs the tests without the shape checks and says so once.

const specsDir =
  process.env.ANVIL_SPECS_DIR ?? fileURLToPath(new URL("../../../../../shared/specs/", import.meta.url));
const specFile = `${specsDir.replace(/\/?$/, "/")}gitea-api-v1.swagger.json`;

interface Definition {
  properties?: Record<string, Record<string, unknown>>;
}

/**
 * Go sends nil pointers, slices and times as null (an issue's milestone, assignees, closed_at):
 * properties of those kinds may be null, as go-swagger does not say.
 */
function allowGoNil(definition: Definition, pointers: readonly string[] = []): void {
  for (const [name, property] of Object.entries(definition.properties ?? {}))
    if (
      "$ref" in property ||
      property.type === "array" ||
      property.format === "date-time" ||
      pointers.includes(name)
    )
      definition.properties = {
        ...definition.properties,
        [name]: { anyOf: [property, { type: "null" }] },
      };
}

/** String fields Gitea declares as *string, which go-swagger shows as plain strings. */
export const GO_POINTERS: Readonly<Record<string, readonly string[]>> = {
  ContentsResponse: [
    "encoding",
    "content",
    "target",
    "url",
    "html_url",
    "git_url",
    "download_url",
    "submodule_git_url",
  ],
  FileLinksResponse: ["self", "git", "html"],
};

function loadAjv(): Ajv | undefined {
  if (!existsSync(specFile)) {
    if (process.env.CI) throw new Error(`the Gitea swagger file is missing: ${specFile}`);
    process.emitWarning(`${specFile} not found: API tests run without checking response shapes`);
    return undefined;
  }
  const spec = JSON.parse(readFileSync(specFile, "utf8")) as { definitions: Record<string, Definition> };
  for (const [name, definition] of Object.entries(spec.definitions))
    allowGoNil(definition, GO_POINTERS[name]);
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const format of ["int64", "int32", "uint64", "float", "double"]) ajv.addFormat(format, true);
  ajv.addSchema({ $id: "gitea", definitions: spec.definitions });
  return ajv;
}

const ajv = loadAjv();
const compiled = new Map<string, ValidateFunction>();

/** Asserts that `body` has the shape of swagger definition `name`, or of a list of it (`User[]`). */
export function assertGiteaShape(name: string, body: unknown): void {
  if (!ajv) return;
  let validate = compiled.get(name);
  if (!validate) {
    const list = name.endsWith("[]");
    const ref = { $ref: `gitea#/definitions/${list ? name.slice(0, -2) : name}` };
    validate = ajv.compile(list ? { type: "array", items: ref } : ref);
    compiled.set(name, validate);
  }
  assert.ok(
    validate(body),
    `not a Gitea ${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
  );
}
