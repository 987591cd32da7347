// The ip-whitelist rule as webhook 2.8.0's CheckIPWhitelist decides it: the ip-range split with
// strings.Fields, a bare address given "/32", each field read by Go's net.ParseCIDR, the peer by
// net.ParseIP from the connection's address. The IPv4 and IPv6 peer tables were observed from
// Debian's webhook ("error": it answered 500 "Error occurred while evaluating hook rules.").
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatProblem, parseHooksFile } from "../../src/config/hooks-file.ts";
import { buildHeaderMap } from "../../src/request/maps.ts";
import { checkIpWhitelist, parseIpRange } from "../../src/rules/ip-whitelist.ts";
import { evaluateRule } from "../../src/rules/trigger-rule.ts";
import type { HookRequest, Rule } from "../../src/types.ts";

function outcome(remoteAddr: string, ipRange: string): "match" | "no match" | "error" {
  const result = checkIpWhitelist(remoteAddr, ipRange);
  if (result.error !== undefined) return "error";
  return result.ok ? "match" : "no match";
}

function table(remoteAddr: string, rows: [string, string][]): void {
  for (const [ipRange, expected] of rows) {
    assert.equal(outcome(remoteAddr, ipRange), expected, `${remoteAddr} in ${JSON.stringify(ipRange)}`);
  }
}

test("an IPv4 peer: CIDR ranges and single addresses; a bad range is an error unless one before it matched", () => {
  table("127.0.0.1:45868", [
    ["127.0.0.1", "match"],
    ["127.0.0.0/8", "match"],
    ["10.0.0.0/8 127.0.0.1", "match"],
    ["10.0.0.0/8", "no match"],
    ["bad", "error"],
    ["10.0.0.0/8 bad", "error"],
    ["127.0.0.1 bad", "match"],
    ["::1", "no match"],
    ["::ffff:127.0.0.0/104", "match"],
    ["::1/128", "no match"],
    ["127.0.0.1/33", "error"],
    ["127.0.0.1/032", "match"],
    ["0127.0.0.1", "error"],
    ["127.0.0.1,10.0.0.1", "error"],
    ["", "no match"],
    ["fe80::1%eth0", "error"],
    ["::ffff:127.0.0.1", "no match"],
  ]);
  table("192.168.1.77:1", [
    ["192.168.1.0/24", "match"],
    ["192.168.1.78/31", "no match"],
    ["192.168.1.76/30", "match"],
    ["0.0.0.0/0", "match"],
    ["192.168.1.77/32", "match"],
    ["192.168.1.78", "no match"],
  ]);
});

test("an IPv6 peer: a bare address gets /32 as in webhook, so it admits a whole range", () => {
  table("[::1]:46204", [
    ["127.0.0.1", "no match"],
    ["::1", "match"],
    ["::2", "match"],
    ["::1/128", "match"],
    ["::2/128", "no match"],
    ["2001:db8::1", "no match"],
    ["::ffff:127.0.0.1", "match"],
    ["::ffff:127.0.0.0/104", "no match"],
    ["0.0.0.0/0", "no match"],
    ["::/0", "match"],
  ]);
  table("[2001:db8::7]:1", [
    ["2001:db8::/32", "match"],
    ["2001:db8:0:0:0:0:0:0/126", "no match"],
    ["2001:DB8::4/126", "match"],
    ["2001:db9::/32", "no match"],
  ]);
});

test("IPv4-mapped IPv6 addresses, as peer or as range, compare as IPv4", () => {
  // Node reports IPv4 clients of a dual-stack socket this way.
  table("[::ffff:127.0.0.1]:5000", [
    ["127.0.0.0/8", "match"],
    ["127.0.0.1", "match"],
    ["0.0.0.0/0", "match"],
    ["::ffff:127.0.0.0/104", "match"],
    ["::/0", "no match"],
    ["10.0.0.0/8", "no match"],
  ]);
  table("10.1.2.3:80", [
    ["::ffff:10.0.0.0/104", "match"],
    ["::ffff:10.1.2.3/128", "match"],
    ["::ffff:11.0.0.0/104", "no match"],
  ]);
});

test("the peer is read as webhook reads RemoteAddr: the port and brackets go, a Unix socket never matches", () => {
  table("127.0.0.1", [["127.0.0.1", "match"]]);
  table("[fe80::1]:9000", [["fe80::/64", "match"]]);
  // Without brackets the last colon is taken for the port's, as in webhook.
  table("::1", [["::/0", "no match"]]);
  table("@", [
    ["0.0.0.0/0", "no match"],
    ["::/0", "no match"],
    ["bad", "error"],
  ]);
});

test("ranges are separated by Go's white space, which is not JavaScript's", () => {
  table("127.0.0.1:1", [
    ["  10.0.0.0/8   127.0.0.1  ", "match"],
    ["\t10.0.0.0/8\n127.0.0.1\r\n", "match"],
    ["10.0.0.0/8\u00a0127.0.0.1\u3000", "match"],
    ["10.0.0.0/8\u2028127.0.0.1", "match"],
    // U+FEFF and U+200B are white space to neither Go nor webhook: one bad field.
    ["10.0.0.0/8\ufeff127.0.0.1", "error"],
    ["10.0.0.0/8\u200b127.0.0.1", "error"],
  ]);
});

test("an invalid range is a hard error naming what Go's ParseCIDR was given", () => {
  const invalid: [string, string][] = [
    ["bad", "bad/32"],
    ["10.0.0.0/33", "10.0.0.0/33"],
    ["1.2.3.256", "1.2.3.256/32"],
    ["1.2.3", "1.2.3/32"],
    ["1.2.3.4/", "1.2.3.4/"],
    ["/8", "/8"],
    ["1.2.3.4/-1", "1.2.3.4/-1"],
    ["1.2.3.4/8/8", "1.2.3.4/8/8"],
    ["::1/129", "::1/129"],
    ["::1::2", "::1::2/32"],
    ["1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9/32"],
    ["12345::/16", "12345::/16"],
    ["fe80::1%eth0/64", "fe80::1%eth0/64"],
  ];
  for (const [ipRange, cidr] of invalid) {
    const result = checkIpWhitelist("127.0.0.1:1", ipRange);
    assert.equal(result.ok, false, ipRange);
    assert.equal(result.error?.kind, "hard", ipRange);
    assert.equal(result.error?.message, `invalid CIDR address: ${cidr}`, ipRange);
  }
});

test("X-Forwarded-For and other proxy headers are not consulted: only the connection's address", () => {
  const rule: Rule = {
    kind: "match",
    match: {
      type: "ip-whitelist",
      ipRange: "10.0.0.0/8",
      regex: "",
      secret: "",
      value: "",
      parameter: { source: "", name: "", envname: "", base64decode: false },
    },
  };
  const request = (remoteAddr: string, forwardedFor: string): HookRequest => ({
    id: "abc123",
    method: "POST",
    remoteAddr,
    headers: buildHeaderMap([
      "X-Forwarded-For",
      forwardedFor,
      "X-Real-Ip",
      forwardedFor,
      "Forwarded",
      `for=${forwardedFor}`,
    ]),
    query: {},
    payload: undefined,
    rawBody: Buffer.alloc(0),
    contentType: "",
  });
  const options = { signatureSoftFailures: false };
  assert.deepEqual(evaluateRule(rule, request("192.0.2.7:5000", "10.1.2.3"), options), { ok: false });
  assert.deepEqual(evaluateRule(rule, request("10.1.2.3:5000", "192.0.2.7"), options), { ok: true });
});

test("parseIpRange gives each field as webhook reads it", () => {
  const entries = parseIpRange(" 10.0.0.0/8\t::1  bad ");
  assert.deepEqual(
    entries.map(({ field, cidr, network }) => [field, cidr, network !== undefined]),
    [
      ["10.0.0.0/8", "10.0.0.0/8", true],
      ["::1", "::1/32", true],
      ["bad", "bad/32", false],
    ],
  );
  assert.deepEqual(parseIpRange(" \u3000 "), []);
});

test("the hooks file check warns about exactly the fields the rule fails on", () => {
  const fields = [
    "10.0.0.0/8",
    "127.0.0.1",
    "::1",
    "::ffff:1.2.3.4",
    "0000000000001::/64",
    "127.0.0.1/032",
    "1.2.3.256",
    "0127.0.0.1",
    "10.0.0.0/33",
    "fe80::1%eth0",
    "\ufeff127.0.0.1",
  ];
  for (const field of fields) {
    const hooks = [
      {
        id: "ip",
        "execute-command": "/bin/true",
        "trigger-rule": { match: { type: "ip-whitelist", "ip-range": field } },
      },
    ];
    const warned = parseHooksFile(JSON.stringify(hooks), "hooks.json").problems.map(formatProblem);
    const fails = checkIpWhitelist("192.0.2.1:1", field).error !== undefined;
    assert.deepEqual(
      warned,
      fails
        ? [
            `hooks file hooks.json: hook "ip": trigger-rule.match.ip-range: invalid entry ${JSON.stringify(field)}: not an IP address or CIDR (requests answer 500)`,
          ]
        : [],
      JSON.stringify(field),
    );
  }
});
