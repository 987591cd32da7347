// Trigger rule evaluation with webhook 2.8.0's exact error semantics: a missing parameter is a soft
// error, signature and other failures are hard, `or` skips soft errors (and signature errors with
// trigger-signature-soft-failures), `not` negates and passes the inner error through.
import { RE2JS } from "re2js";
import { extractArgument } from "../request/values.ts";
import {
  type HookRequest,
  type Log,
  type MatchRule,
  type Rule,
  RuleError,
  type RuleResult,
} from "../types.ts";
import { checkIpWhitelist } from "./ip-whitelist.ts";
import {
  checkPayloadSignature,
  checkScalrSignature,
  constantTimeEquals,
  type HmacAlgorithm,
} from "./signatures.ts";

export interface RuleOptions {
  signatureSoftFailures: boolean;
  /** Receives webhook's warning about deprecated payload-hash-* types. */
  log?: Log;
}

const TRUE: RuleResult = { ok: true };
const FALSE: RuleResult = { ok: false };

/** An absent rule always fires. */
export function evaluateRule(rule: Rule | undefined, req: HookRequest, opts: RuleOptions): RuleResult {
  return rule === undefined ? TRUE : evaluate(rule, req, opts);
}

function evaluate(rule: Rule, req: HookRequest, opts: RuleOptions): RuleResult {
  switch (rule.kind) {
    case "and":
      for (const child of rule.rules) {
        const result = evaluate(child, req, opts);
        if (result.error !== undefined) return { ok: false, error: result.error };
        if (!result.ok) return FALSE;
      }
      return TRUE;
    case "or":
      for (const child of rule.rules) {
        const result = evaluate(child, req, opts);
        if (result.error !== undefined && !isSkippedInOr(result.error, opts))
          return { ok: false, error: result.error };
        if (result.ok) return TRUE;
      }
      return FALSE;
    case "not": {
      const result = evaluate(rule.rule, req, opts);
      return { ok: !result.ok, error: result.error };
    }
    case "match":
      return evaluateMatch(rule.match, req, opts);
    case "empty":
      return FALSE;
  }
}

function isSkippedInOr(error: RuleError, opts: RuleOptions): boolean {
  return error.kind === "parameter-not-found" || (error.kind === "signature" && opts.signatureSoftFailures);
}

/** The payload signature match types and their hash; payload-hash-* are webhook's deprecated names. */
const HMAC_TYPES: Record<string, HmacAlgorithm> = {
  "payload-hmac-sha1": "sha1",
  "payload-hmac-sha256": "sha256",
  "payload-hmac-sha512": "sha512",
  "payload-hash-sha1": "sha1",
  "payload-hash-sha256": "sha256",
  "payload-hash-sha512": "sha512",
};

/** The match types checked against a secret. */
export const SIGNATURE_TYPES: ReadonlySet<string> = new Set([...Object.keys(HMAC_TYPES), "scalr-signature"]);

/** Every match type webhook knows; a match of any other type never matches. */
export const MATCH_TYPES: ReadonlySet<string> = new Set([
  "value",
  "regex",
  "ip-whitelist",
  ...SIGNATURE_TYPES,
]);

function evaluateMatch(match: MatchRule, req: HookRequest, opts: RuleOptions): RuleResult {
  if (match.type === "ip-whitelist") return checkIpWhitelist(req.remoteAddr, match.ipRange);
  if (match.type === "scalr-signature") return checkScalrSignature(req, match.secret);
  const value = extractArgument(match.parameter, req);
  if ("error" in value) {
    return { ok: false, error: new RuleError(value.notFound ? "parameter-not-found" : "hard", value.error) };
  }
  if (match.type === "value") return constantTimeEquals(value.value, match.value) ? TRUE : FALSE;
  if (match.type === "regex") {
    const regex = compileRegex(match.regex);
    if (regex instanceof RuleError) return { ok: false, error: regex };
    return regex.test(value.value) ? TRUE : FALSE;
  }
  const algorithm = Object.hasOwn(HMAC_TYPES, match.type) ? HMAC_TYPES[match.type] : undefined;
  if (algorithm === undefined) return FALSE;
  if (match.type.startsWith("payload-hash-")) {
    opts.log?.(`warn: use of deprecated option ${match.type}; use payload-hmac-${algorithm} instead`);
  }
  return checkPayloadSignature(algorithm, req.rawBody, match.secret, value.value);
}

// Patterns come from hooks files, so the cache is bounded by the configuration.
const regexCache = new Map<string, RE2JS | RuleError>();

/** Go regexp (RE2) syntax; an invalid pattern is a hard error carrying Go's message. */
export function compileRegex(source: string): RE2JS | RuleError {
  let compiled = regexCache.get(source);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(source);
    } catch (error) {
      compiled = new RuleError("hard", (error as Error).message);
    }
    regexCache.set(source, compiled);
  }
  return compiled;
}

/** How the handler answers: hard and signature errors are 500, a soft error leaves the boolean. */
export function topLevelOutcome(result: RuleResult): "fire" | "mismatch" | "error" {
  if (result.error !== undefined && result.error.kind !== "parameter-not-found") return "error";
  return result.ok ? "fire" : "mismatch";
}
