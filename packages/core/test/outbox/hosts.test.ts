import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAllowedHostList } from "../../src/outbox/index.ts";

// [host, address, allowed]; an IP URL host is its own address.
type Case = [string, string, boolean];

function check(list: string, cases: Case[]) {
  const allowed = parseAllowedHostList(list);
  for (const [host, address, expected] of cases) {
    assert.equal(allowed.allows(host, address), expected, `${list}: ${host} (${address})`);
  }
}

test("loopback is 127.0.0.0/8 and ::1 only", () => {
  check("loopback", [
    ["127.0.0.1", "127.0.0.1", true],
    ["localhost", "127.255.0.9", true],
    ["::1", "::1", true],
    ["::ffff:7f00:1", "::ffff:7f00:1", true],
    ["0.0.0.0", "0.0.0.0", false],
    ["10.0.1.1", "10.0.1.1", false],
    ["8.8.8.8", "8.8.8.8", false],
    ["fd00::1", "fd00::1", false],
    ["1000::1", "1000::1", false],
    ["example.com", "93.184.216.34", false],
  ]);
});

test("private is RFC 1918, RFC 4193 and the special-purpose ranges Gitea adds", () => {
  check("private", [
    ["10.0.1.1", "10.0.1.1", true],
    ["172.16.0.1", "172.16.0.1", true],
    ["172.32.0.1", "172.32.0.1", false],
    ["192.168.1.1", "192.168.1.1", true],
    ["fd00::1", "fd00::1", true],
    ["cgnat", "100.64.0.1", true],
    ["azure", "168.63.129.16", true],
    ["docs", "2001:db8::1", true],
    ["nat64", "64:ff9b::a9fe:a9fe", true],
    ["mapped", "::ffff:192.168.0.1", true],
    ["127.0.0.1", "127.0.0.1", false],
    ["::1", "::1", false],
    ["8.8.8.8", "8.8.8.8", false],
    ["1000::1", "1000::1", false],
  ]);
});

test("external is a public global unicast address: not loopback, private, link-local, multicast or reserved", () => {
  check("external", [
    ["8.8.8.8", "8.8.8.8", true],
    ["example.com", "93.184.216.34", true],
    ["1000::1", "1000::1", true],
    ["2606:4700::1111", "2606:4700::1111", true],
    ["0.0.0.0", "0.0.0.0", false],
    ["::", "::", false],
    ["127.0.0.1", "127.0.0.1", false],
    ["10.0.1.1", "10.0.1.1", false],
    ["192.168.1.1", "192.168.1.1", false],
    ["::1", "::1", false],
    ["fd00::1", "fd00::1", false],
    ["metadata", "169.254.169.254", false],
    ["fe80::1", "fe80::1", false],
    ["224.0.0.1", "224.0.0.1", false],
    ["ff02::1", "ff02::1", false],
    ["255.255.255.255", "255.255.255.255", false],
    ["cgnat", "100.64.0.1", false],
    ["6to4", "2002:c0a8:1::1", false],
    ["mapped loopback", "::ffff:127.0.0.1", false],
    ["compatible loopback", "::7f00:1", false],
  ]);
});

test("host name globs match the URL's host whatever it resolves to; keywords and CIDRs match addresses", () => {
  check("private, External, *.myDomain.com, 169.254.1.0/24", [
    ["mydomain.com", "0.0.0.0", false],
    ["sub.mydomain.com", "0.0.0.0", true],
    ["a.b.MyDomain.com", "127.0.0.1", true],
    ["mydomain.com.evil.org", "127.0.0.1", false],
    ["169.254.1.1", "169.254.1.1", true],
    ["somewhere", "169.254.1.1", true],
    ["169.254.2.2", "169.254.2.2", false],
    ["10.0.1.1", "10.0.1.1", true],
    ["8.8.8.8", "8.8.8.8", true],
    ["127.0.0.1", "127.0.0.1", false],
  ]);
  check("example.com, hook-?.example.net, [a-c].example.org, 10.0.0.*", [
    ["example.com", "127.0.0.1", true],
    ["www.example.com", "93.184.216.34", false],
    ["hook-1.example.net", "10.1.1.1", true],
    ["hook-12.example.net", "10.1.1.1", false],
    ["b.example.org", "10.1.1.1", true],
    ["d.example.org", "10.1.1.1", false],
    // A glob is matched against the address's text too.
    ["internal", "10.0.0.7", true],
    ["internal", "10.0.1.7", false],
  ]);
});

test("CIDRs of either family, and * for everything", () => {
  check("10.0.0.0/8, fd12:3456::/32, 192.168.1.7/32", [
    ["10.255.0.1", "10.255.0.1", true],
    ["11.0.0.1", "11.0.0.1", false],
    ["fd12:3456:1::1", "fd12:3456:1::1", true],
    ["fd12:3457::1", "fd12:3457::1", false],
    ["192.168.1.7", "192.168.1.7", true],
    ["192.168.1.8", "192.168.1.8", false],
    ["mapped", "::ffff:10.1.2.3", true],
  ]);
  check("*", [
    ["0.0.0.0", "0.0.0.0", true],
    ["anything.example", "127.0.0.1", true],
    ["::1", "::1", true],
    ["fd00::1", "fd00::1", true],
  ]);
});

test("an empty list allows nothing; a keyword in brackets is a host name", () => {
  check(" , ", [
    ["8.8.8.8", "8.8.8.8", false],
    ["example.com", "93.184.216.34", false],
  ]);
  check("loopback, [p]rivate", [
    ["loopback", "8.8.8.8", false],
    ["127.0.0.1", "127.0.0.1", true],
    ["private", "8.8.8.8", true],
    ["192.168.1.1", "192.168.1.1", false],
  ]);
  // A malformed glob matches nothing rather than everything.
  check("[a-", [["a", "8.8.8.8", false]]);
});
