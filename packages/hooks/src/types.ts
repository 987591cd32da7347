// Shared shapes of the hook runner. Field names follow webhook's hooks file vocabulary
// (kebab-case keys become camelCase here); config/ is the only place that reads raw files.

/** A JSON number kept as its source text, so `1.50` and 20-digit ids reach commands unchanged. */
export class JsonNumber {
  readonly literal: string;
  constructor(literal: string) {
    this.literal = literal;
  }
}

export type JsonValue = string | JsonNumber | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** One request value reference: `{source, name, envname, base64decode}` in a hooks file. */
export interface Argument {
  source: string;
  name: string;
  envname: string;
  base64decode: boolean;
}

export interface MatchRule {
  type: string;
  regex: string;
  secret: string;
  value: string;
  ipRange: string;
  parameter: Argument;
}

/** webhook checks and, or, not, match in that order; an object with none of them never fires. */
export type Rule =
  | { kind: "and"; rules: Rule[] }
  | { kind: "or"; rules: Rule[] }
  | { kind: "not"; rule: Rule }
  | { kind: "match"; match: MatchRule }
  | { kind: "empty" };

export interface ResponseHeader {
  name: string;
  value: string;
}

export interface Hook {
  id: string;
  executeCommand: string;
  commandWorkingDirectory: string;
  responseMessage: string;
  responseHeaders: ResponseHeader[];
  captureCommandOutput: boolean;
  captureCommandOutputOnError: boolean;
  passEnvironmentToCommand: Argument[];
  passArgumentsToCommand: Argument[];
  passFileToCommand: Argument[];
  jsonStringParameters: Argument[];
  /** undefined: no trigger-rule key, the hook always fires. */
  triggerRule: Rule | undefined;
  triggerRuleMismatchHttpResponseCode: number;
  successHttpResponseCode: number;
  /** Trimmed and upper-cased; empty means "not set". */
  httpMethods: string[];
  incomingPayloadContentType: string;
  triggerSignatureSoftFailures: boolean;
  // Beyond webhook (opt-in; absent in a webhook hooks file means webhook's behaviour).
  /** Milliseconds; 0 = no timeout (falls back to the global -command-timeout). */
  commandTimeout: number;
  /** 0 = unlimited, as webhook. */
  maxConcurrency: number;
  /** Requests allowed to wait for a slot when maxConcurrency is reached; 0 = answer 429 at once. */
  maxQueue: number;
  /** Stream the command's combined output to the client as it is produced (capture mode). */
  streamCommandOutput: boolean;
  /** Where the hook was defined, for log and validation messages. */
  source: string;
}

/** The three maps webhook builds from a request, plus what rules and commands may read. */
export interface HookRequest {
  /** Log request id (6 hex chars, or the client's X-Request-Id with -x-request-id). */
  id: string;
  method: string;
  /** Peer address the Go way: `127.0.0.1:54321`, `[::1]:54321`. */
  remoteAddr: string;
  /** Canonical MIME header names (`X-Foo-Bar`), first value only, without Host. */
  headers: JsonObject;
  /** First value of each query parameter. */
  query: JsonObject;
  /** Parsed body; undefined when there is none (entire-payload then reads `null`). */
  payload: JsonObject | undefined;
  /** The body as received (empty for multipart, as webhook does not buffer it). */
  rawBody: Buffer;
  /** Effective content type (the hook's incoming-payload-content-type wins). */
  contentType: string;
}

export type RuleErrorKind = "parameter-not-found" | "signature" | "hard";

/** parameter-not-found is soft; signature and hard errors answer 500 at the top level. */
export class RuleError extends Error {
  readonly kind: RuleErrorKind;
  constructor(kind: RuleErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface RuleResult {
  ok: boolean;
  error?: RuleError;
}

/** A problem found while loading a hooks file: named by file, hook id and field. */
export interface ConfigProblem {
  file: string;
  hookId: string;
  field: string;
  message: string;
}

/** A log sink; the server decides the format (webhook's `[webhook] date time [reqid] message`). */
export type Log = (message: string) => void;
