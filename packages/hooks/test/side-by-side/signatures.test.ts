// Signature rules: payload-hmac-* (and the payload-hash-* aliases), ip-whitelist, scalr-signature.
import { fired, mismatch, ruleError } from "./harness/answers.ts";
import { sideBySide } from "./harness/harness.ts";
import { get, hmacHex, post, postJson, postMultipart, scalrDate } from "./harness/requests.ts";

const body = '{"ref":"refs/heads/main","after":"1.50"}';
const sha1 = hmacHex("sha1", "mysecret", body);
const sha256 = hmacHex("sha256", "mysecret", body);
const sha512 = hmacHex("sha512", "mysecret", body);
const wrong256 = hmacHex("sha256", "other", body);
const signed = (id: string, header: string, value: string) =>
  postJson(`/hooks/${id}`, body, { [header]: value });

const scalrBody = "scalr event";
const scalr = (date: string, key = "scalrkey", headers: Record<string, string> = {}) =>
  post("/hooks/scalr", "text/plain", scalrBody, {
    Date: date,
    "X-Signature": hmacHex("sha1", key, scalrBody + date),
    ...headers,
  });

sideBySide("signature rules", { hooks: ["signatures.json"] }, [
  {
    name: "hmac-sha1 with sha1= prefix",
    req: signed("hmac-sha1", "X-Hub-Signature", `sha1=${sha1}`),
    want: fired,
  },
  { name: "hmac-sha1 without prefix", req: signed("hmac-sha1", "X-Hub-Signature", sha1), want: fired },
  {
    name: "hmac-sha1 wrong signature is a 500",
    req: signed("hmac-sha1", "X-Hub-Signature", "sha1=00ff"),
    want: ruleError,
  },
  {
    name: "hmac-sha1 signature missing is a mismatch",
    req: postJson("/hooks/hmac-sha1", body),
    want: mismatch,
  },
  {
    name: "hmac-sha1 upper-case hex",
    req: signed("hmac-sha1", "X-Hub-Signature", `sha1=${sha1.toUpperCase()}`),
    want: ruleError,
  },
  {
    name: "hmac comma list: a later item matches",
    req: signed("hmac-sha1", "X-Hub-Signature", `sha1=0000,sha1=${sha1}`),
    want: fired,
  },
  {
    name: "hmac comma list: items without the prefix are dropped",
    req: signed("hmac-sha1", "X-Hub-Signature", `sha1=0000,${sha1}`),
    want: ruleError,
  },
  {
    name: "hmac comma list: other algorithms' items are skipped",
    req: signed("hmac-sha256", "X-Hub-Signature-256", `sha1=${sha1},sha256=${sha256}`),
    want: fired,
  },
  {
    name: "hmac-sha256 good",
    req: signed("hmac-sha256", "X-Hub-Signature-256", `sha256=${sha256}`),
    want: fired,
  },
  {
    name: "hmac-sha256 other secret",
    req: signed("hmac-sha256", "X-Hub-Signature-256", `sha256=${wrong256}`),
    want: ruleError,
  },
  {
    name: "hmac-sha256 body changed after signing",
    req: postJson("/hooks/hmac-sha256", `${body} `, { "X-Hub-Signature-256": `sha256=${sha256}` }),
    want: ruleError,
  },
  {
    name: "hmac of an empty body",
    req: post("/hooks/hmac-sha256", "text/plain", "", {
      "X-Hub-Signature-256": hmacHex("sha256", "mysecret", ""),
    }),
    want: fired,
  },
  {
    name: "hmac-sha512 from the query",
    req: postJson(`/hooks/hmac-sha512?sig=sha512=${sha512}`, body),
    want: fired,
  },
  { name: "hmac-sha512 bad", req: postJson(`/hooks/hmac-sha512?sig=${sha256}`, body), want: ruleError },
  { name: "payload-hash-sha1 alias", req: signed("hash-sha1", "X-Signature", sha1), want: fired },
  {
    name: "payload-hash-sha256 alias",
    req: signed("hash-sha256", "X-Signature", `sha256=${sha256}`),
    want: fired,
  },
  { name: "payload-hash-sha512 alias", req: signed("hash-sha512", "X-Signature", sha512), want: fired },
  {
    name: "payload-hash-sha512 alias, bad",
    req: signed("hash-sha512", "X-Signature", sha1),
    want: ruleError,
  },
  {
    name: "wrong hmac ignores the mismatch code (kept quirk)",
    req: signed("hmac-mismatch-code", "X-Signature", wrong256),
    want: ruleError,
  },
  {
    name: "missing hmac uses the mismatch code",
    req: postJson("/hooks/hmac-mismatch-code", body),
    want: { ...mismatch, status: 401 },
  },
  {
    name: "empty hmac secret is a 500",
    req: signed("hmac-empty-secret", "X-Signature", sha256),
    want: ruleError,
  },
  {
    name: "soft signature failure inside or",
    req: postJson("/hooks/soft-failures?token=letmein", body, { "X-Signature": wrong256 }),
    want: fired,
  },
  {
    name: "soft signature failure, nothing else holds",
    req: postJson("/hooks/soft-failures?token=no", body, { "X-Signature": wrong256 }),
    want: mismatch,
  },
  {
    name: "without soft failures a bad signature aborts the or",
    req: postJson("/hooks/hard-failures?token=letmein", body, { "X-Signature": wrong256 }),
    want: ruleError,
  },
  {
    name: "hmac over multipart sees an empty body",
    req: postMultipart("/hooks/hmac-sha256", [{ name: "a", value: "b" }], {
      "X-Hub-Signature-256": hmacHex("sha256", "mysecret", ""),
    }),
    want: fired,
  },
  { name: "JSON number as a rule value", req: get("/hooks/json-number-value?num=42"), want: fired },
  { name: "ip-whitelist: exact /32", req: get("/hooks/ip-exact"), want: fired },
  { name: "ip-whitelist: other network", req: get("/hooks/ip-other"), want: mismatch },
  { name: "ip-whitelist: bare IP", req: get("/hooks/ip-bare"), want: fired },
  { name: "ip-whitelist: space-separated list", req: get("/hooks/ip-list"), want: fired },
  {
    name: "ip-whitelist: X-Forwarded-For is not trusted",
    req: get("/hooks/ip-other", { "X-Forwarded-For": "10.1.2.3" }),
    want: mismatch,
  },
  { name: "ip-whitelist: bad CIDR is a 500", req: get("/hooks/ip-bad-cidr"), want: ruleError },
  {
    name: "ip-whitelist: bad entry after a match is not reached",
    req: get("/hooks/ip-bad-after-match"),
    want: fired,
  },
  { name: "ip-whitelist: bare IPv6 gets /32", req: get("/hooks/ip-bare-ipv6"), want: mismatch },
  { name: "scalr-signature: good", req: scalr(scalrDate()), want: fired },
  { name: "scalr-signature: wrong key", req: scalr(scalrDate(), "otherkey"), want: ruleError },
  { name: "scalr-signature: 10 minutes old", req: scalr(scalrDate(-600)), want: ruleError },
  { name: "scalr-signature: 4 minutes ahead is allowed", req: scalr(scalrDate(240)), want: fired },
  { name: "scalr-signature: unparsable Date", req: scalr("yesterday"), want: ruleError },
  {
    name: "scalr-signature: headers missing",
    req: post("/hooks/scalr", "text/plain", scalrBody),
    want: mismatch,
  },
  {
    name: "scalr-signature: empty secret",
    req: post("/hooks/scalr-empty-secret", "text/plain", scalrBody, {
      Date: scalrDate(),
      "X-Signature": "00",
    }),
    want: ruleError,
  },
]);
