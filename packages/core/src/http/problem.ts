import type { FastifyError, FastifyRequest } from "fastify";
import { DomainError } from "../errors.ts";

// How a service turns failures into its API's error bodies.
//
// Every failure of a request reaches the service's ErrorMapper once, as an HttpProblem that says
// what happened, so that each API can answer as its original does: the forge with Gitea's
// `{message, url}` and a 4xx/5xx status, the inventory with Snipe-IT's `{status, messages,
// payload}` envelope and HTTP 200 for domain errors. The kinds:
//
// - `domain`: a service threw a DomainError (NotFound, Conflict, Forbidden, Invalid, Unauthorized).
// - `validation`: the request did not match the route's schema; `issues` lists every failure with
//   its field and the JSON-schema keyword that failed (Gitea reports `[Field]: Rule`).
// - `route-not-found`: no route has this path and method; `allowedMethods` lists the methods that
//   the path does have (empty when the path is unknown), so an API can answer 405.
// - `transport`: the request itself could not be read: malformed JSON, another malformed body
//   (form, multipart), a body over the limit, an unsupported media type. `status` is the HTTP status the transport layer chose (400, 413, 415).
// - `unexpected`: anything else. It has already been logged with the request id; the mapper gets
//   only that id, so no stack, SQL or message can leak into a response.

export interface ValidationIssue {
  /** Dotted path of the field (`name`, `owner.id`), or `body`/`query`/`params` for the whole part. */
  field: string;
  /** The JSON-schema keyword that failed: required, type, minLength, format, … */
  rule: string;
  message: string;
}

export type TransportReason =
  | "malformed-json"
  | "malformed-body"
  | "body-too-large"
  | "unsupported-media-type"
  | "bad-request";

export type HttpProblem =
  | { kind: "domain"; error: DomainError }
  | { kind: "validation"; issues: ValidationIssue[] }
  | { kind: "route-not-found"; method: string; path: string; allowedMethods: string[] }
  | { kind: "transport"; status: number; reason: TransportReason; message: string }
  | { kind: "unexpected"; requestId: string };

export interface ErrorBody {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ErrorContext {
  /** Absent when Node could not read the request at all (see client-errors.ts). */
  request?: FastifyRequest;
  /** The service's public root URL (the `root-url` setting), for absolute URLs in error bodies. */
  rootUrl: URL;
}

/** Turns what went wrong into the API's own error response; one per service. */
export type ErrorMapper = (problem: HttpProblem, context: ErrorContext) => ErrorBody;

const MALFORMED_JSON = new Set([
  "FST_ERR_CTP_INVALID_JSON_BODY",
  "FST_ERR_CTP_EMPTY_JSON_BODY",
  "ANVIL_JSON_TOO_DEEP",
]);
const MALFORMED_BODY = new Set([
  "FST_ERR_CTP_INVALID_CONTENT_LENGTH",
  "FST_MP_PREMATURE_CLOSE",
  "FST_PROTO_VIOLATION",
  "ANVIL_MALFORMED_BODY",
]);

function transportReason(error: FastifyError, status: number): TransportReason {
  if (status === 413) return "body-too-large";
  if (status === 415) return "unsupported-media-type";
  if (MALFORMED_JSON.has(error.code)) return "malformed-json";
  if (MALFORMED_BODY.has(error.code)) return "malformed-body";
  return "bad-request";
}

function validationIssues(error: FastifyError): ValidationIssue[] {
  return (error.validation ?? []).map((issue) => {
    const missing = issue.params?.missingProperty;
    const path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
    const field =
      typeof missing === "string" ? (path === "" ? missing : `${path}.${missing}`) : path || "body";
    return { field, rule: issue.keyword, message: issue.message ?? "is invalid" };
  });
}

/**
 * What a thrown error means for the client. Errors without a status, or with a 5xx one, are
 * unexpected; fastify's and its plugins' 4xx errors are transport problems with their status kept.
 */
export function classifyError(error: unknown, request: FastifyRequest): HttpProblem {
  if (error instanceof DomainError) return { kind: "domain", error };
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) return { kind: "validation", issues: validationIssues(fastifyError) };
  const status = fastifyError?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return {
      kind: "transport",
      status,
      reason: transportReason(fastifyError, status),
      message: fastifyError.message,
    };
  }
  return { kind: "unexpected", requestId: String(request.id) };
}
