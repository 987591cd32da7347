import {
  Conflict,
  type ErrorBody,
  type ErrorContext,
  Forbidden,
  type HttpProblem,
  type TooManyRequests,
  type ValidationIssue,
} from "@anvil/core";

// Snipe-IT's error responses (spec inventory-api.md §1.2, §2.3, §3): application failures are
// HTTP 200 with the envelope `{status: "error", messages, payload: null}`, where messages is a
// string or an object of field -> [messages]. Clients read `status`, not the HTTP code. A request
// with `X-Api-Strict-Status: 1` gets 404/409/422 instead of 200 for those, same body (§26).

const STRICT_STATUS_OF_KIND = {
  "not-found": 404,
  conflict: 409,
  locked: 423,
  invalid: 422,
  "bad-request": 400,
} as const;

const ENDPOINT_NOT_FOUND =
  "404 endpoint not found. Please check the API reference for the endpoint and method you want.";

function envelope(messages: unknown) {
  return { status: "error", messages, payload: null };
}

function strict(context: ErrorContext): boolean {
  return context.request?.headers["x-api-strict-status"] === "1";
}

// Laravel words validation messages as sentences about the field.
function validationMessages(issues: ValidationIssue[]): Record<string, string[]> {
  const messages: Record<string, string[]> = {};
  for (const issue of issues) {
    const text =
      issue.rule === "required"
        ? `The ${issue.field} field is required.`
        : `The ${issue.field} field ${issue.message}.`;
    messages[issue.field] = [...(messages[issue.field] ?? []), text];
  }
  return messages;
}

export function mapInventoryError(problem: HttpProblem, context: ErrorContext): ErrorBody {
  switch (problem.kind) {
    case "domain": {
      const { error } = problem;
      if (error.kind === "unauthorized")
        return { status: 401, body: { error: "Unauthorized or unauthenticated." } };
      if (error instanceof ReadOnlyToken) return { status: 403, body: envelope(error.message) };
      if (error.kind === "forbidden") return { status: 403, body: { message: error.message } };
      // As Laravel's throttle answers: 429 whatever X-Api-Strict-Status says.
      // Only TooManyRequests carries this kind: the API throttle's and the sign-in limit's.
      if (error.kind === "too-many-requests")
        return {
          status: 429,
          body: envelope("Too many requests"),
          headers: { "retry-after": String((error as TooManyRequests).retryAfter) },
        };
      if (error instanceof Refused)
        return {
          status: strict(context) ? 409 : 200,
          body: { status: "error", messages: error.message, payload: error.payload },
        };
      const messages = Object.keys(error.details).length > 0 ? error.details : error.message;
      return { status: strict(context) ? STRICT_STATUS_OF_KIND[error.kind] : 200, body: envelope(messages) };
    }
    case "validation":
      return { status: strict(context) ? 422 : 200, body: envelope(validationMessages(problem.issues)) };
    case "route-not-found":
      if (problem.allowedMethods.length > 0) {
        return {
          status: 405,
          body: envelope("Method not allowed"),
          headers: { allow: problem.allowedMethods.join(", ") },
        };
      }
      // The fallback route's quirk: a singular `message` key.
      return { status: 404, body: { status: "error", message: ENDPOINT_NOT_FOUND, payload: null } };
    case "transport":
      return {
        status: problem.reason === "malformed-json" ? 422 : problem.status,
        body: envelope(problem.reason === "malformed-json" ? "Invalid JSON" : problem.message),
      };
    case "unexpected":
      // Laravel's answer to an unhandled exception on a JSON request.
      return { status: 500, body: { message: "Server Error" } };
  }
}

/** A read-only token asked to write (our second token tier, spec §1.2): answered in the envelope. */
export class ReadOnlyToken extends Forbidden {
  constructor() {
    super("This token is read-only.");
  }
}

/** A business rule refused the request, and Snipe-IT names the thing in the payload (`{asset: tag}`). */
export class Refused extends Conflict {
  readonly payload: unknown;
  constructor(message: string, payload: unknown) {
    super(message);
    this.payload = payload;
  }
}
