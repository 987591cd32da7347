// webhook's routing (gorilla/mux over net/http) as a function of the request target: decoded
// path, redirects to the cleaned path, the root, hooks under -urlprefix, the router's 404.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanPath, createRouter, type Route } from "../../src/http/route.ts";

const hook = (id: string): Route => ({ kind: "hook", id });
const redirect = (location: string): Route => ({ kind: "redirect", location });
const ROOT: Route = { kind: "root" };
const NOT_FOUND: Route = { kind: "not-found" };
const BAD_REQUEST: Route = { kind: "bad-request" };

function table(route: (target: string) => Route, rows: [string, Route][]): void {
  for (const [target, expected] of rows) assert.deepEqual(route(target), expected, target);
}

test("under the default prefix: the root, hook ids (with `/`), the router's 404", () => {
  table(createRouter("hooks"), [
    ["/", ROOT],
    ["/?x=1", ROOT],
    ["/hooks/deploy", hook("deploy")],
    ["/hooks/deploy?token=x&y", hook("deploy")],
    ["/hooks/ci/deploy", hook("ci/deploy")],
    ["/hooks/", hook("")],
    ["/hooks/echo/", hook("echo/")],
    ["/hooks", NOT_FOUND],
    ["/hooksx/deploy", NOT_FOUND],
    ["/other", NOT_FOUND],
    ["/HOOKS/deploy", NOT_FOUND],
  ]);
});

test("the path is percent-decoded before matching; a malformed escape is a bad request", () => {
  table(createRouter("hooks"), [
    ["/hooks/ci%2Fdeploy", hook("ci/deploy")],
    ["/hooks/a%20b+c", hook("a b+c")],
    ["/hooks/%E2%9C%93", hook("✓")],
    ["/%68ooks/x", hook("x")],
    ["/hooks/x?q=%zz", hook("x")],
    ["/hooks/%zz", BAD_REQUEST],
    ["/hooks/x%", BAD_REQUEST],
    ["/hooks/x%4", BAD_REQUEST],
    // mux matches the id with `.*`, which stops at a newline.
    ["/hooks/a%0Ab", NOT_FOUND],
  ]);
});

test("a path that is not clean is redirected to its cleaned, re-escaped form, keeping the query", () => {
  table(createRouter("hooks"), [
    ["//hooks/echo", redirect("/hooks/echo")],
    ["/hooks/./echo?x=1", redirect("/hooks/echo?x=1")],
    ["/hooks/../x", redirect("/x")],
    ["/hooks/..", redirect("/")],
    ["/hooks/a%2F..%2Fb", redirect("/hooks/b")],
    ["/hooks/./a(b)%20c", redirect("/hooks/a%28b%29%20c")],
    ["/hooks/a/..//", redirect("/hooks/")],
    ["/x/../hooks/%E2%9C%93", redirect("/hooks/%E2%9C%93")],
    ["/hooks/.%2e/y", redirect("/y")],
    // Kept unescaped: `$&+,/:;=@` and the unreserved characters.
    ["/./a$&+,:;=@-_.~z", redirect("/a$&+,:;=@-_.~z")],
  ]);
});

test("an absolute-form target routes on its path and redirects with its origin", () => {
  table(createRouter("hooks"), [
    ["http://example.com/hooks/x", hook("x")],
    ["http://example.com", ROOT],
    ["https://example.com:8443/a/../b?c", redirect("https://example.com:8443/b?c")],
    ["http://example.com/other", NOT_FOUND],
  ]);
});

test("-urlprefix: several segments, or none (every path but `/` is a hook id)", () => {
  table(createRouter("api/v2"), [
    ["/api/v2/deploy", hook("deploy")],
    ["/api/v2", NOT_FOUND],
    ["/api/deploy", NOT_FOUND],
    ["/hooks/deploy", NOT_FOUND],
  ]);
  table(createRouter(""), [
    ["/", ROOT],
    ["/deploy", hook("deploy")],
    ["/hooks/deploy", hook("hooks/deploy")],
    ["/a/", hook("a/")],
  ]);
});

test("cleanPath is mux's: path.Clean, rooted, keeping a trailing slash", () => {
  const cases: [string, string][] = [
    ["", "/"],
    ["a/b", "/a/b"],
    ["/a/./b/../c/", "/a/c/"],
    ["/..", "/"],
    ["/../a/", "/a/"],
    ["/a//b", "/a/b"],
    ["//", "/"],
    ["/a/b/..", "/a"],
  ];
  for (const [path, cleaned] of cases) assert.equal(cleanPath(path), cleaned, path);
});
