// Expected values and log lines were observed from Debian's webhook 2.8.0 passing the same
// arguments to /bin/echo (an unresolvable argument shows as an empty one).
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeGoJson, parseJson } from "../../src/request/json.ts";
import { buildHeaderMap, buildQueryMap } from "../../src/request/maps.ts";
import {
  applyJsonStringParameters,
  DottedJsonParameterError,
  extractArgument,
  formatArgument,
  getParameter,
} from "../../src/request/values.ts";
import type { Argument, HookRequest, JsonObject } from "../../src/types.ts";

const arg = (source: string, name = ""): Argument => ({ source, name, envname: "", base64decode: false });

function request(payload: string | undefined, extra: Partial<HookRequest> = {}): HookRequest {
  return {
    id: "abc123",
    method: "POST",
    remoteAddr: "127.0.0.1:44186",
    headers: buildHeaderMap([
      "Content-Type",
      "application/json",
      "X-J",
      '{"Key":1,"key":2}',
      "x-json.k",
      "dotted",
    ]),
    query: buildQueryMap("q=1&q=2&e=a+b"),
    payload: payload === undefined ? undefined : (parseJson(payload) as JsonObject),
    rawBody: Buffer.from(payload ?? ""),
    contentType: "application/json",
    ...extra,
  };
}

/** What the command would receive: the value, or "" when webhook cannot resolve it. */
function value(req: HookRequest, source: string, name = ""): string {
  const extracted = extractArgument(arg(source, name), req);
  return "value" in extracted ? extracted.value : "";
}

test("dot paths: a literal dotted key wins, arrays take indexes, objects come back as JSON", () => {
  const req = request('{"a.b":"lit","a":{"b":"nested"},"e":[],"l":[1,{"z":"<"}],"x":{"b.c":"bc"},"s":"str"}');
  const names = ["a.b", "a", "e.0", "l", "l.1.z", "l.01.z", "x.b.c", "s", "s.0", "", "a.", "missing"];
  assert.deepEqual(
    names.map((name) => value(req, "payload", name)),
    ["lit", '{"b":"nested"}', "", '[1,{"z":"\\u003c"}]', "<", "<", "bc", "str", "", "", "", ""],
  );
});

test("a top-level array body is reached through root", () => {
  const req = request('{"root":[{"x":"zero"},{"x":"one"}]}');
  const names = ["root.0.x", "root.01.x", "root.+1", "root.-1", "root.1", "root.5", "root", "root.1.x.y"];
  assert.deepEqual(
    names.map((name) => value(req, "payload", name)),
    ["zero", "one", "", "", '{"x":"one"}', "", '[{"x":"zero"},{"x":"one"}]', ""],
  );
});

test("misses are soft errors except walking into null, which webhook treats as hard", () => {
  const req = request('{"a":null,"n":{}}');
  assert.deepEqual(extractArgument(arg("payload", "zz"), req), {
    error: "parameter node not found: zz",
    notFound: true,
  });
  assert.deepEqual(extractArgument(arg("payload", "n.x.y"), req), {
    error: "parameter node not found: x.y",
    notFound: true,
  });
  assert.deepEqual(extractArgument(arg("payload", "a.b"), req), { error: "no parameters", notFound: false });
  assert.deepEqual(extractArgument(arg("payload", "a"), req), { value: "<nil>" });
  assert.deepEqual(extractArgument(arg("payload", "x"), request(undefined)), {
    error: "parameter node not found: x",
    notFound: true,
  });
});

test("getParameter returns the raw value or undefined", () => {
  const root = parseJson('{"a":{"b":[10,{"c":1.50}]},"n":null}');
  assert.equal(encodeGoJson(getParameter("a.b.1", root)), '{"c":1.50}');
  assert.equal(getParameter("n", root), null);
  assert.equal(getParameter("n.x", root), undefined);
  assert.equal(getParameter("a.b.2", root), undefined);
  assert.equal(getParameter("a", undefined), undefined);
  // Plain objects from callers work too, without reaching prototype members.
  assert.equal(getParameter("constructor", { a: "1" }), undefined);
  assert.equal(getParameter("toString.x", {}), undefined);
});

test("every source of webhook", () => {
  const req = request('{"a":{"z":1,"b":"<"}}');
  assert.equal(value(req, "header", "x-j"), '{"Key":1,"key":2}');
  assert.equal(value(req, "header", "X-JSON.K"), "dotted");
  assert.equal(value(req, "query", "q"), "1");
  assert.equal(value(req, "url", "e"), "a b");
  assert.equal(value(req, "payload", "a.z"), "1");
  assert.equal(value(req, "string", "lit eral"), "lit eral");
  assert.equal(value(req, "raw-request-body"), '{"a":{"z":1,"b":"<"}}');
  assert.equal(value(req, "request", "METHOD"), "POST");
  assert.equal(value(req, "request", "Remote-Addr"), "127.0.0.1:44186");
  assert.equal(value(req, "entire-payload"), '{"a":{"b":"\\u003c","z":1}}');
  assert.equal(
    value(req, "entire-headers"),
    '{"Content-Type":"application/json","X-J":"{\\"Key\\":1,\\"key\\":2}","X-Json.k":"dotted"}',
  );
  assert.equal(value(req, "entire-query"), '{"e":"a b","q":"1"}');
  assert.equal(value(request(undefined), "entire-payload"), "null");
  assert.deepEqual(extractArgument(arg("request", "foo"), req), { error: 'unsupported request key: "foo"' });
  assert.deepEqual(extractArgument(arg("bogus", "a"), req), { error: "no source for value retrieval" });
});

test("parse-parameters-as-json decodes objects in place for payload, header and query", () => {
  const req = request('{"p":"{\\"k\\":1.0}","n":"null","s":"\\"x\\"","arr":"[1]"}', {
    query: buildQueryMap("q=%7B%22k%22%3A%22qv%22%7D"),
    headers: buildHeaderMap(["X-J", '{"k":"hv"} junk', "X-Bad", "[1]"]),
  });
  const log = applyJsonStringParameters(
    [
      arg("header", "x-j"),
      arg("query", "q"),
      arg("payload", "p"),
      arg("payload", "n"),
      arg("payload", "arr"),
      arg("payload", "s"),
      arg("payload", "missing"),
      arg("string", '{"a":1}'),
      arg("header", "x-bad"),
    ],
    req,
  );
  assert.deepEqual(log, [
    "error parsing JSON parameters: json: cannot unmarshal array into Go value of type map[string]interface {}",
    "error parsing JSON parameters: json: cannot unmarshal string into Go value of type map[string]interface {}",
    "error parsing JSON parameters: couldn't retrieve argument for {Source:payload Name:missing EnvName: Base64Decode:false}",
    'error parsing JSON parameters: invalid source for argument {Source:string Name:{"a":1} EnvName: Base64Decode:false}',
    "error parsing JSON parameters: json: cannot unmarshal array into Go value of type map[string]interface {}",
  ]);
  assert.equal(value(req, "header", "x-j.k"), "hv");
  assert.equal(value(req, "query", "q.k"), "qv");
  assert.equal(value(req, "payload", "p.k"), "1.0");
  // JSON null becomes Go's nil map: printed "null", unlike a JSON null value ("<nil>").
  assert.equal(value(req, "payload", "n"), "null");
  assert.deepEqual(extractArgument(arg("payload", "n.x"), req), {
    error: "parameter node not found: x",
    notFound: true,
  });
  assert.equal(value(req, "entire-payload"), '{"arr":"[1]","n":null,"p":{"k":1.0},"s":"\\"x\\""}');
});

test("a dotted parse-parameters-as-json name fails clearly exactly where webhook panics", () => {
  const dotted = [arg("payload", "a.b")];
  for (const body of ['{"a":{"b":"{}"}}', '{"a.b":"{}","a":{"c":1}}', '{"a":"x","a.b":"{}"}']) {
    assert.throws(() => applyJsonStringParameters(dotted, request(body)), DottedJsonParameterError, body);
  }
  assert.throws(() => applyJsonStringParameters([arg("payload", "a.0.b")], request('{"a":[{"b":"{}"}]}')), {
    name: "DottedJsonParameterError",
    message:
      'parse-parameters-as-json cannot decode "a.0.b" (source payload): only top-level parameters can be replaced; name the top-level parameter instead',
  });
  // Where webhook does not panic, nothing is replaced and the request goes on.
  const cases: [string, string[]][] = [
    [
      '{"a":["{}"]}',
      [
        "error parsing JSON parameters: couldn't retrieve argument for {Source:payload Name:a.b EnvName: Base64Decode:false}",
      ],
    ],
    [
      '{"a":{"b":"[]"}}',
      [
        "error parsing JSON parameters: json: cannot unmarshal array into Go value of type map[string]interface {}",
      ],
    ],
    [
      '{"a":null}',
      [
        "error parsing JSON parameters: couldn't retrieve argument for {Source:payload Name:a.b EnvName: Base64Decode:false}",
      ],
    ],
  ];
  for (const [body, log] of cases) {
    const req = request(body);
    assert.deepEqual(applyJsonStringParameters(dotted, req), log);
    assert.equal(value(req, "entire-payload"), encodeGoJson(parseJson(body)));
  }
});

test("formatArgument is Go's %+v", () => {
  assert.equal(
    formatArgument({ source: "header", name: "X-Sig", envname: "SIG", base64decode: true }),
    "{Source:header Name:X-Sig EnvName:SIG Base64Decode:true}",
  );
});
