// Outcomes were observed from Debian's webhook 2.8.0: "fire" answered the hook's message, "mismatch"
// "Hook rules were not satisfied.", "error" 500 "Error occurred while evaluating hook rules."
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import { parseJson } from "../../src/request/json.ts";
import { buildHeaderMap, buildQueryMap } from "../../src/request/maps.ts";
import { parseScalrDate } from "../../src/rules/signatures.ts";
import { compileRegex, evaluateRule, topLevelOutcome } from "../../src/rules/trigger-rule.ts";
import type { Argument, HookRequest, JsonObject, MatchRule, Rule } from "../../src/types.ts";

const param = (source: string, name: string): Argument => ({
  source,
  name,
  envname: "",
  base64decode: false,
});

function match(fields: Partial<MatchRule>): Rule {
  return {
    kind: "match",
    match: {
      type: "value",
      regex: "",
      secret: "",
      value: "",
      ipRange: "",
      parameter: param("", ""),
      ...fields,
    },
  };
}

const valueIs = (value: string, name = "ref") =>
  match({ type: "value", value, parameter: param("query", name) });
const missing = valueIs("x", "absent");
const hmac = (type: string, secret = "s3cret", name = "X-Sig") =>
  match({ type, secret, parameter: param("header", name) });

interface RequestParts {
  query?: string;
  headers?: string[];
  body?: string;
}

function request(parts: RequestParts = {}): HookRequest {
  const body = parts.body ?? "";
  return {
    id: "abc123",
    method: "POST",
    remoteAddr: "127.0.0.1:45868",
    headers: buildHeaderMap(parts.headers ?? []),
    query: buildQueryMap(parts.query ?? ""),
    payload: body.startsWith("{") ? (parseJson(body) as JsonObject) : undefined,
    rawBody: Buffer.from(body),
    contentType: "application/json",
  };
}

function outcome(rule: Rule | undefined, req = request(), signatureSoftFailures = false): string {
  return topLevelOutcome(evaluateRule(rule, req, { signatureSoftFailures }));
}

test("no rule fires; an empty rule never does", () => {
  assert.deepEqual(evaluateRule(undefined, request(), { signatureSoftFailures: false }), { ok: true });
  assert.equal(outcome({ kind: "empty" }), "mismatch");
  assert.equal(outcome({ kind: "not", rule: { kind: "empty" } }), "fire");
  assert.equal(outcome({ kind: "and", rules: [] }), "fire");
  assert.equal(outcome({ kind: "or", rules: [] }), "mismatch");
});

test("value matches are exact and case-sensitive", () => {
  assert.equal(outcome(valueIs("Main"), request({ query: "ref=Main" })), "fire");
  assert.equal(outcome(valueIs("Main"), request({ query: "ref=main" })), "mismatch");
  assert.equal(outcome(valueIs("Main"), request({ query: "ref=Mainx" })), "mismatch");
});

test("missing parameters are soft: not fires, or skips, and fails", () => {
  const notMissing: Rule = { kind: "not", rule: missing };
  assert.equal(outcome(missing), "mismatch");
  assert.equal(
    evaluateRule(missing, request(), { signatureSoftFailures: false }).error?.message,
    "parameter node not found: absent",
  );
  assert.equal(outcome(notMissing), "fire");
  assert.equal(outcome({ kind: "or", rules: [notMissing] }), "fire");
  assert.equal(outcome({ kind: "and", rules: [notMissing] }), "mismatch");
  assert.equal(
    outcome({ kind: "or", rules: [missing, valueIs("main")] }, request({ query: "ref=main" })),
    "fire",
  );
  assert.equal(
    outcome({ kind: "and", rules: [valueIs("main"), missing] }, request({ query: "ref=main" })),
    "mismatch",
  );
  assert.equal(
    outcome({ kind: "and", rules: [valueIs("no"), missing] }, request({ query: "ref=main" })),
    "mismatch",
  );
});

test("unresolvable sources other than a missing path are hard errors", () => {
  const hard = (rule: Rule, message: string) => {
    const result = evaluateRule(rule, request({ body: '{"a":null}' }), { signatureSoftFailures: false });
    assert.equal(topLevelOutcome(result), "error");
    assert.equal(result.error?.kind, "hard");
    assert.equal(result.error?.message, message);
  };
  hard(match({ type: "value", value: "x", parameter: param("payload", "a.b") }), "no parameters");
  hard(match({ type: "value", value: "x", parameter: param("bogus", "a") }), "no source for value retrieval");
  hard(
    match({ type: "value", value: "x", parameter: param("request", "foo") }),
    'unsupported request key: "foo"',
  );
});

test("unknown match types are false without error, unless the parameter is missing", () => {
  const unknown = (name: string) => match({ type: "foo", parameter: param("query", name) });
  assert.deepEqual(
    evaluateRule(unknown("ref"), request({ query: "ref=x" }), { signatureSoftFailures: false }),
    {
      ok: false,
    },
  );
  assert.equal(
    evaluateRule(unknown("zz"), request(), { signatureSoftFailures: false }).error?.kind,
    "parameter-not-found",
  );
});

test("regex: RE2 syntax, unanchored search, bad patterns are hard errors", () => {
  const regex = (pattern: string) =>
    match({ type: "regex", regex: pattern, parameter: param("query", "ref") });
  assert.equal(outcome(regex("b+c"), request({ query: "ref=abbbcd" })), "fire");
  assert.equal(outcome(regex("b+c"), request({ query: "ref=ac" })), "mismatch");
  assert.equal(outcome(regex("^refs/heads/(main|dev)$"), request({ query: "ref=refs/heads/main" })), "fire");
  assert.equal(
    outcome(regex("^refs/heads/(main|dev)$"), request({ query: "ref=xrefs/heads/main" })),
    "mismatch",
  );
  assert.equal(outcome(regex("^\\p{Greek}+$"), request({ query: "ref=%CE%B1%CE%B2" })), "fire");
  assert.equal(outcome(regex("^\\p{Greek}+$"), request({ query: "ref=ab" })), "mismatch");
  const bad = evaluateRule(regex("("), request({ query: "ref=x" }), { signatureSoftFailures: false });
  assert.equal(topLevelOutcome(bad), "error");
  assert.equal(bad.error?.message, "error parsing regexp: missing closing ): `(`");
  assert.equal(
    evaluateRule(regex("a(?=b)"), request({ query: "ref=ab" }), { signatureSoftFailures: false }).error
      ?.message,
    "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
  );
  // The pattern is checked only once the parameter exists.
  assert.equal(outcome(regex("(")), "mismatch");
  assert.equal(compileRegex("b+c"), compileRegex("b+c"));
});

const BODY = '{"a":1}';
const sign = (algorithm: string, body = BODY, secret = "s3cret") =>
  createHmac(algorithm, secret).update(body).digest("hex");

test("payload HMAC signatures: prefixes, comma lists, wrong or missing", () => {
  const sha256 = sign("sha256");
  const withSig = (signature: string, body = BODY) => request({ body, headers: ["X-Sig", signature] });
  const rule = hmac("payload-hmac-sha256");
  assert.equal(outcome(rule, withSig(sha256)), "fire");
  assert.equal(outcome(rule, withSig(`sha256=${sha256}`)), "fire");
  assert.equal(outcome(rule, withSig(`sha1=abc,sha256=${sha256}`)), "fire");
  // With commas, items without the prefix are dropped (and a space breaks the prefix).
  assert.equal(outcome(rule, withSig(`abc,${sha256}`)), "error");
  assert.equal(outcome(rule, withSig(`sha1=abc, sha256=${sha256}`)), "error");
  assert.equal(outcome(rule, withSig(sha256.toUpperCase())), "error");
  assert.equal(outcome(rule, request({ body: BODY })), "mismatch");
  const wrong = evaluateRule(rule, withSig("sha256=00"), { signatureSoftFailures: false });
  assert.equal(wrong.error?.kind, "signature");
  assert.equal(wrong.error?.message, "invalid payload signatures [00]");
  assert.equal(
    evaluateRule(rule, withSig(`sha1=abc,sha1=def`), { signatureSoftFailures: false }).error?.message,
    "invalid payload signatures []",
  );
  // The MAC we computed never appears in the error.
  assert.ok(!wrong.error?.message.includes(sha256));
});

test("HMAC over an empty body, other algorithms, deprecated aliases, empty secret", () => {
  const empty = request({ headers: ["X-Sig", sign("sha256", "")] });
  assert.equal(outcome(hmac("payload-hmac-sha256"), empty), "fire");
  assert.equal(
    evaluateRule(hmac("payload-hmac-sha256"), request({ headers: ["X-Sig", "00"] }), {
      signatureSoftFailures: false,
    }).error?.message,
    "invalid payload signatures [00] on empty payload",
  );
  assert.equal(
    outcome(hmac("payload-hmac-sha1"), request({ body: BODY, headers: ["X-Sig", `sha1=${sign("sha1")}`] })),
    "fire",
  );
  assert.equal(
    outcome(hmac("payload-hmac-sha512"), request({ body: BODY, headers: ["X-Sig", sign("sha512")] })),
    "fire",
  );
  const logged: string[] = [];
  const alias = evaluateRule(
    hmac("payload-hash-sha1"),
    request({ body: BODY, headers: ["X-Sig", sign("sha1")] }),
    {
      signatureSoftFailures: false,
      log: (message) => logged.push(message),
    },
  );
  assert.deepEqual(alias, { ok: true });
  assert.deepEqual(logged, [
    "warn: use of deprecated option payload-hash-sha1; use payload-hmac-sha1 instead",
  ]);
  const noSecret = evaluateRule(
    hmac("payload-hmac-sha512", ""),
    request({ body: BODY, headers: ["X-Sig", "x"] }),
    {
      signatureSoftFailures: false,
    },
  );
  assert.equal(noSecret.error?.kind, "hard");
  assert.equal(noSecret.error?.message, "signature validation secret can not be empty");
});

test("signature soft failures only soften signature errors inside or", () => {
  const sigOrAlt: Rule = { kind: "or", rules: [hmac("payload-hmac-sha256"), valueIs("ok", "alt")] };
  const bad = (query = "") => request({ body: BODY, headers: ["X-Sig", "00"], query });
  assert.equal(outcome(sigOrAlt, bad("alt=ok"), true), "fire");
  assert.equal(outcome(sigOrAlt, bad(), true), "mismatch");
  assert.equal(outcome(sigOrAlt, bad("alt=ok"), false), "error");
  // Inside and, the and itself fails with the error, which the or then skips.
  const nested: Rule = {
    kind: "or",
    rules: [{ kind: "and", rules: [hmac("payload-hmac-sha256")] }, valueIs("ok", "alt")],
  };
  assert.equal(outcome(nested, bad("alt=ok"), true), "fire");
  // At the top level, and for other hard errors, the flag changes nothing.
  assert.equal(outcome(hmac("payload-hmac-sha256"), bad(), true), "error");
  const badRegex = match({ type: "regex", regex: "(", parameter: param("query", "alt") });
  assert.equal(
    outcome({ kind: "or", rules: [valueIs("ok", "alt"), badRegex] }, request({ query: "alt=ok" }), true),
    "fire",
  );
  assert.equal(
    outcome({ kind: "or", rules: [valueIs("ok", "alt"), badRegex] }, request({ query: "alt=no" }), true),
    "error",
  );
  // not passes the signature error through.
  assert.equal(outcome({ kind: "not", rule: hmac("payload-hmac-sha256") }, bad()), "error");
});

function scalrRequest(date: string | undefined, secret = "k3y", signature?: string): HookRequest {
  const headers: string[] = [];
  if (date !== undefined) headers.push("Date", date);
  const sig =
    signature ??
    createHmac("sha1", secret)
      .update(BODY)
      .update(date ?? "")
      .digest("hex");
  headers.push("X-Signature", sig);
  return request({ body: BODY, headers });
}

/** Go's layout "Mon 02 Jan 2006 15:04:05 MST" for a time offset from now. */
function scalrDate(offsetSeconds: number, zone = "UTC"): string {
  const d = new Date(Date.now() + offsetSeconds * 1000);
  const [weekday, , month, year, time] = d.toUTCString().replace(",", "").split(" ");
  return `${weekday} ${String(d.getUTCDate()).padStart(2, "0")} ${month} ${year} ${time} ${zone}`;
}

test("scalr-signature: HMAC-SHA1 of body and Date, 300 s of skew", () => {
  const scalr = (secret = "k3y") => match({ type: "scalr-signature", secret });
  assert.equal(outcome(scalr(), scalrRequest(scalrDate(0))), "fire");
  assert.equal(outcome(scalr(), scalrRequest(scalrDate(0, "GMT"))), "fire");
  assert.equal(outcome(scalr(), scalrRequest(scalrDate(240))), "fire");
  const outdated = evaluateRule(scalr(), scalrRequest(scalrDate(-600)), { signatureSoftFailures: false });
  assert.equal(outdated.error?.kind, "signature");
  assert.equal(outdated.error?.message, "invalid payload signature outdated");
  // The zone abbreviation does not shift the time: GMT+2 two hours ahead is outdated.
  assert.equal(outcome(scalr(), scalrRequest(scalrDate(7200, "GMT+2"))), "error");
  assert.equal(outcome(scalr(), scalrRequest(scalrDate(0).replace(" UTC", ""))), "error");
  const wrong = evaluateRule(scalr(), scalrRequest("x", "k3y", "00"), { signatureSoftFailures: false });
  assert.equal(wrong.error?.message, "invalid payload signature 00");
  assert.equal(outcome(scalr(), request({ body: BODY, headers: ["Date", "x"] })), "mismatch");
  assert.equal(outcome(scalr(""), request({ headers: ["X-Signature", "00"] })), "mismatch");
  const noKey = evaluateRule(scalr(""), scalrRequest(scalrDate(0)), { signatureSoftFailures: false });
  assert.equal(noKey.error?.message, "signature validation signing key can not be empty");
});

test("scalr dates parse like Go's time.Parse", () => {
  const utc = Date.UTC(2026, 10, 21, 12, 58, 12);
  assert.equal(parseScalrDate("Sat 21 Nov 2026 12:58:12 UTC"), utc);
  assert.equal(parseScalrDate("sat 21 NOV 2026 12:58:12 GMT"), utc);
  assert.equal(parseScalrDate("Mon 21 Nov 2026 12:58:12 PST"), utc);
  assert.equal(parseScalrDate("Sat 21 Nov 2026 2:58:12 UTC"), utc - 10 * 3600_000);
  assert.equal(parseScalrDate("Sat 21 Nov 2026 12:58:12.123 UTC"), utc + 123);
  assert.equal(parseScalrDate("Sat 21 Nov 2026 12:58:12 +0000"), utc);
  assert.equal(parseScalrDate("Sat 21 Nov 2026 12:58:12 GMT+2"), utc);
  for (const bad of [
    "Sat 21 Nov 2026 12:58:12",
    "Sat, 21 Nov 2026 12:58:12 GMT",
    "Saturday 21 Nov 2026 12:58:12 UTC",
    "Sat 1 Nov 2026 12:58:12 UTC",
    "Sat 31 Nov 2026 12:58:12 UTC",
    "Sat 21 Nov 2026 24:00:00 UTC",
    "Sat 21 Nov 2026 12:58:12 +0200",
    "Sat 21 Nov 2026 12:58:12 UTCX",
    "Sat 21 Nov 2026 12:58:12 Utc",
  ]) {
    assert.equal(parseScalrDate(bad), undefined, bad);
  }
});
