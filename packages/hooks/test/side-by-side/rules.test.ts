// Trigger rules: and, or, not, value and regex matches, errors and mismatch codes.
import { fired, mismatch, ruleError } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import { get } from "./harness/requests.ts";

sideBySide("trigger rules", { hooks: ["rules.yaml"] }, [
  { name: "value: equal", req: get("/hooks/value?token=s3cret"), want: fired },
  { name: "value: different", req: get("/hooks/value?token=S3CRET"), want: mismatch },
  { name: "value: parameter missing", req: get("/hooks/value"), want: mismatch },
  { name: "value: first query value counts", req: get("/hooks/value?token=s3cret&token=x"), want: fired },
  {
    name: "value: second query value is ignored",
    req: get("/hooks/value?token=x&token=s3cret"),
    want: mismatch,
  },
  { name: "value: a YAML number is compared as text", req: get("/hooks/value-number?num=42"), want: fired },
  {
    name: "value: header names are case-insensitive",
    req: get("/hooks/value-header", { "x-token": "s3cret" }),
    want: fired,
  },
  {
    name: "value: first of two headers counts",
    req: get("/hooks/value-header", [
      ["X-Token", "s3cret"],
      ["X-Token", "other"],
    ]),
    want: fired,
  },
  { name: "regex: matches", req: get("/hooks/regex?ref=refs/heads/release-1.2"), want: fired },
  { name: "regex: no match", req: get("/hooks/regex?ref=refs/heads/feature"), want: mismatch },
  { name: "regex: search is unanchored", req: get("/hooks/regex-unanchored?ref=main"), want: fired },
  { name: "regex: RE2 inline flag (?i)", req: get("/hooks/regex-inline-flag?ref=MAIN"), want: fired },
  {
    name: "regex: lookahead is not RE2 syntax",
    req: get("/hooks/regex-lookahead?ref=main"),
    want: ruleError,
  },
  { name: "regex: \\z is RE2 end of text", req: get("/hooks/regex-end-of-text?ref=main"), want: fired },
  { name: "regex: \\z is not a literal z", req: get("/hooks/regex-end-of-text?ref=mainz"), want: mismatch },
  { name: "regex: invalid pattern is a 500", req: get("/hooks/regex-invalid?ref=x"), want: ruleError },
  { name: "and: both hold", req: get("/hooks/and?token=s3cret&ref=main"), want: fired },
  { name: "and: one fails", req: get("/hooks/and?token=s3cret&ref=dev"), want: mismatch },
  { name: "and: a missing parameter is a mismatch", req: get("/hooks/and?token=s3cret"), want: mismatch },
  {
    name: "and: stops at the first false",
    req: get("/hooks/and-short-circuit?token=no&ref=x"),
    want: mismatch,
  },
  {
    name: "and: reaches the bad regex",
    req: get("/hooks/and-short-circuit?token=s3cret&ref=x"),
    want: ruleError,
  },
  { name: "or: second branch", req: get("/hooks/or?token=b"), want: fired },
  { name: "or: no branch", req: get("/hooks/or?token=c"), want: mismatch },
  { name: "or: a missing parameter is skipped", req: get("/hooks/or-missing?token=b"), want: fired },
  { name: "or: a hard error aborts", req: get("/hooks/or-hard-error?token=b&ref=x"), want: ruleError },
  { name: "not: negates a mismatch", req: get("/hooks/not?token=good"), want: fired },
  { name: "not: negates a match", req: get("/hooks/not?token=bad"), want: mismatch },
  { name: "not: over a missing parameter fires (kept quirk)", req: get("/hooks/not"), want: fired },
  { name: "not: passes a hard error through", req: get("/hooks/not-error?ref=x"), want: ruleError },
  {
    name: "and + not over a missing parameter",
    req: get("/hooks/and-not-missing?token=s3cret"),
    want: mismatch,
  },
  { name: "nested: fires", req: get("/hooks/nested?ref=main", { "X-Event": "tag" }), want: fired },
  {
    name: "nested: inner not fails",
    req: get("/hooks/nested?ref=wip-x", { "X-Event": "push" }),
    want: mismatch,
  },
  { name: "nested: missing header and ref", req: get("/hooks/nested"), want: mismatch },
  { name: "unknown match type never fires", req: get("/hooks/unknown-type?token=x"), want: mismatch },
  {
    name: "trigger-rule-mismatch-http-response-code",
    req: get("/hooks/mismatch-code?token=no"),
    want: { ...mismatch, status: 403 },
  },
  {
    name: "mismatch code without a status text answers 200",
    req: get("/hooks/mismatch-code-unknown?token=no"),
    want: mismatch,
  },
  {
    name: "mismatch code does not apply to rule errors",
    req: get("/hooks/mismatch-code-on-error?ref=x"),
    want: ruleError,
  },
]);
