// Header names and methods as Go's net/http reads them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalHeaderKey, isToken } from "../../src/http/header.ts";

test("canonicalHeaderKey follows Go's textproto", () => {
  const cases: [string, string][] = [
    ["x-foo-bar", "X-Foo-Bar"],
    ["X-FOO", "X-Foo"],
    ["x_foo", "X_foo"],
    ["x-json.Key", "X-Json.key"],
    ["x-1a-B2", "X-1a-B2"],
    ["a--b", "A--B"],
    ["-x", "-X"],
    ["x-", "X-"],
    ["x.y.z", "X.y.z"],
    ["x~y", "X~y"],
    ["x'y", "X'y"],
    ["content-TYPE", "Content-Type"],
    // A byte outside the token set leaves the name untouched.
    ["x foo", "x foo"],
    ["x-é", "x-é"],
    ["x:y", "x:y"],
  ];
  for (const [name, expected] of cases) assert.equal(canonicalHeaderKey(name), expected, name);
});

test("isToken: RFC 7230 token characters only, at least one", () => {
  for (const token of ["GET", "X-Hub-Signature", "a!#$%&'*+-.^_`|~z", "0", "PROPFIND"]) {
    assert.equal(isToken(token), true, token);
  }
  for (const text of ["", "X Y", "X:Y", "X(Y)", 'X"Y', "X/Y", "X@Y", "X{Y}", "é", "X\tY", "X\r\nY", "X\0"]) {
    assert.equal(isToken(text), false, JSON.stringify(text));
  }
});
