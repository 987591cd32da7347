import {
  DomainError,
  type ErrorBody,
  type ErrorContext,
  type HttpProblem,
  httpStatusOf,
  TooManyRequests,
  type ValidationIssue,
} from "@anvil/core";

// Gitea's error responses: `{message, url}` where url is the API's swagger page under ROOT_URL;
// 404s also carry `errors`. Duplicates of users, orgs, teams and keys are 422 in Gitea, which
// services express by throwing Invalid rather than Conflict.

/** Gitea's 412: a request whose precondition does not hold (an unknown issue state). */
export class PreconditionFailed extends DomainError {
  constructor(message: string) {
    super("bad-request", message);
  }
}

/** Gitea's 405 for a merge that may not happen now (already merged, still checked, approvals missing). */
export class NotAllowed extends DomainError {
  constructor(message: string) {
    super("bad-request", message);
  }
}

export const NOT_FOUND_MESSAGE = "The target couldn't be found.";

/** A field as Gitea's binding names it in messages (`user_filter` is `UserFilter`). */
export function pascalCase(field: string): string {
  return field
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

// Gitea's binding reports only the first failure, as `[FieldName]: RuleName`.
function bindingMessage(issue: ValidationIssue): string {
  const rule = issue.rule === "required" ? "Required" : pascalCase(issue.rule);
  return `[${pascalCase(issue.field)}]: ${rule}`;
}

export function mapForgeError(problem: HttpProblem, context: ErrorContext): ErrorBody {
  const url = new URL("api/swagger", context.rootUrl).href;
  switch (problem.kind) {
    case "domain": {
      const status =
        problem.error instanceof PreconditionFailed
          ? 412
          : problem.error instanceof NotAllowed
            ? 405
            : httpStatusOf[problem.error.kind];
      const body: Record<string, unknown> = { message: problem.error.message, url };
      if (status === 404) body.errors = [];
      // Gitea has no login limit; ours answers in its error shape, saying when to come back.
      if (problem.error instanceof TooManyRequests)
        return { status, body, headers: { "retry-after": String(problem.error.retryAfter) } };
      return { status, body };
    }
    case "validation":
      return { status: 422, body: { message: bindingMessage(problem.issues[0]), url } };
    case "route-not-found":
      if (problem.allowedMethods.length > 0) {
        return {
          status: 405,
          body: { message: "Method Not Allowed", url },
          headers: { allow: problem.allowedMethods.join(", ") },
        };
      }
      return { status: 404, body: { message: NOT_FOUND_MESSAGE, url, errors: [] } };
    case "transport":
      // A body that is not JSON fails Gitea's request binding, which answers 422.
      return {
        status: problem.reason === "malformed-json" ? 422 : problem.status,
        body: { message: problem.message, url },
      };
    case "unexpected":
      // Gitea blanks the message of a 500 in production.
      return { status: 500, body: { message: "", url } };
  }
}
