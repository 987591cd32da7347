// The operations of a service's own OpenAPI 3 document: what the fuzzer sends requests to.

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  schema?: Schema;
}

export interface Operation {
  method: string;
  /** The path template, e.g. /api/v1/repos/{owner}/{repo}. */
  path: string;
  parameters: Parameter[];
  /** Content type → schema of the request body, when the document declares one. */
  body: Record<string, Schema>;
}

interface Document {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }
    >
  >;
}

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/** Every (method, path) of the document, in the document's order. */
export function operationsOf(document: unknown): Operation[] {
  const paths = (document as Document).paths;
  if (!paths || typeof paths !== "object") throw new Error("an OpenAPI document without paths");
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const body: Record<string, Schema> = {};
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        body[type] = media.schema ?? {};
      operations.push({ method: method.toUpperCase(), path, parameters: operation.parameters ?? [], body });
    }
  }
  return operations;
}

/** The names of a path template's parameters, in order (`{*}` is a wildcard named "*"). */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
}
