// Domain errors thrown by services; each API maps them to its own error body in one place.

export type DomainErrorKind =
  | "not-found"
  | "conflict"
  | "locked"
  | "forbidden"
  | "invalid"
  | "bad-request"
  | "unauthorized"
  | "too-many-requests";

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  /** Field-level details for `invalid` (field name -> messages), in the caller's vocabulary. */
  readonly details: Record<string, string[]>;
  constructor(kind: DomainErrorKind, message: string, details: Record<string, string[]> = {}) {
    super(message);
    this.name = new.target.name;
    this.kind = kind;
    this.details = details;
  }
}

export class NotFound extends DomainError {
  constructor(message = "not found") {
    super("not-found", message);
  }
}

export class Conflict extends DomainError {
  constructor(message: string) {
    super("conflict", message);
  }
}

/** The target exists and the caller may write to it, but it is frozen for now (HTTP 423). */
export class Locked extends DomainError {
  constructor(message: string) {
    super("locked", message);
  }
}

export class Forbidden extends DomainError {
  constructor(message = "forbidden") {
    super("forbidden", message);
  }
}

export class Unauthorized extends DomainError {
  constructor(message = "unauthorized") {
    super("unauthorized", message);
  }
}

export class Invalid extends DomainError {
  constructor(message: string, details: Record<string, string[]> = {}) {
    super("invalid", message, details);
  }
}

/** A request the API refuses as a whole rather than field by field (Gitea's 400s). */
export class BadRequest extends DomainError {
  constructor(message: string) {
    super("bad-request", message);
  }
}

/** The usual HTTP status of each kind; an API whose original differs maps it itself. */
export const httpStatusOf: Readonly<Record<DomainErrorKind, number>> = {
  "not-found": 404,
  conflict: 409,
  locked: 423,
  forbidden: 403,
  invalid: 422,
  "bad-request": 400,
  unauthorized: 401,
  "too-many-requests": 429,
};

/** Too many attempts (failed logins): refused without trying, to be retried after `retryAfter` seconds. */
export class TooManyRequests extends DomainError {
  readonly retryAfter: number;
  constructor(message: string, retryAfter: number) {
    super("too-many-requests", message);
    this.retryAfter = retryAfter;
  }
}
