// Expected strings were observed from Debian's webhook 2.8.0 passing values to /bin/echo.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeJsonObject, encodeGoJson, NIL_MAP, parseJson, valueToString } from "../../src/request/json.ts";
import { JsonNumber, type JsonValue } from "../../src/types.ts";

const roundTrip = (text: string) => encodeGoJson(parseJson(text));

test("number literals keep their source text", () => {
  assert.equal(
    roundTrip("[1.50, 1e3, -0, 12345678901234567890, 1E+2, -0.0e-0, 12345678901234567890123456789]"),
    "[1.50,1e3,-0,12345678901234567890,1E+2,-0.0e-0,12345678901234567890123456789]",
  );
  const value = parseJson("1.50");
  assert.ok(value instanceof JsonNumber);
  assert.equal(value.literal, "1.50");
});

test("objects are re-encoded with sorted keys and Go's HTML-safe escapes", () => {
  assert.equal(
    roundTrip('{"a":{"z":"<&>","b":1.50,"c":[1e3,-0,null,true,"\\u2028\\b\\f\\u0001\\u007f"]}}'),
    '{"a":{"b":1.50,"c":[1e3,-0,null,true,"\\u2028\\u0008\\u000c\\u0001\u007f"],"z":"\\u003c\\u0026\\u003e"}}',
  );
  assert.equal(roundTrip('{"a":"\\/\\n\\r\\t\\"\\\\ \u2029"}'), '{"a":"/\\n\\r\\t\\"\\\\ \\u2029"}');
});

test("keys sort by UTF-8 bytes, so astral characters come after U+FF21", () => {
  assert.equal(
    roundTrip('{"é":1,"z":2,"a":3,"😀":4,"Ａ":5,"B":6}'),
    '{"B":6,"a":3,"z":2,"é":1,"Ａ":5,"😀":4}',
  );
});

test("duplicate keys keep the last value and __proto__ is an ordinary key", () => {
  const value = parseJson('{"a":1,"a":2,"__proto__":{"p":1},"constructor":"c"}');
  assert.equal(encodeGoJson(value), '{"__proto__":{"p":1},"a":2,"constructor":"c"}');
  assert.ok(Object.hasOwn(value as object, "__proto__"));
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
});

test("only the first value is read; trailing bytes are ignored", () => {
  assert.equal(roundTrip('{"a":1} {"b":2}'), '{"a":1}');
  assert.equal(roundTrip("[1] x"), "[1]");
  assert.equal(roundTrip("123abc"), "123");
  assert.equal(roundTrip("01"), "0");
});

test("lone surrogate escapes become U+FFFD, pairs combine", () => {
  assert.deepEqual(parseJson('["\\ud800x","\\ud83d\\ude00","\\udc00\\ud800","\\ud800\\u0041"]'), [
    "\ufffdx",
    "😀",
    "\ufffd\ufffd",
    "\ufffdA",
  ]);
});

test("syntax errors carry Go's messages", () => {
  const message = (text: string) => {
    try {
      parseJson(text);
    } catch (error) {
      assert.ok(error instanceof SyntaxError);
      return error.message;
    }
    return "no error";
  };
  assert.equal(message(""), "EOF");
  assert.equal(message("  \n"), "EOF");
  assert.equal(message('{"a":'), "unexpected EOF");
  assert.equal(message("[1,"), "unexpected EOF");
  assert.equal(message("x"), "invalid character 'x' looking for beginning of value");
  assert.equal(message('{"a":1,}'), "invalid character '}' looking for beginning of object key string");
  assert.equal(message('{"a" 1}'), "invalid character '1' after object key");
  assert.equal(message('{"a":1 "b":2}'), "invalid character '\"' after object key:value pair");
  assert.equal(message('{"a":"\\x"}'), "invalid character 'x' in string escape code");
  assert.equal(message('{"a":tru}'), "invalid character '}' in literal true (expecting 'e')");
  assert.equal(message("[1 2]"), "invalid character '2' after array element");
  assert.equal(message('{"a":-}'), "invalid character '}' in numeric literal");
  assert.equal(message('{"a":"\u0001"}'), "invalid character '\\x01' in string literal");
  assert.equal(message("\u000b[1]"), "invalid character '\\v' looking for beginning of value");
  assert.equal(message("'a'"), "invalid character '\\'' looking for beginning of value");
});

test("nesting is limited at Go's depth of 10000, without overflowing the stack", () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  assert.equal(roundTrip(nested(10000)).length, 20000);
  assert.throws(() => parseJson(nested(10001)), { name: "SyntaxError", message: "exceeded max depth" });
  assert.equal(roundTrip('{"a":'.repeat(10000) + "1" + "}".repeat(10000)).length, 60001);
});

test("decodeJsonObject mirrors decoding into a Go map", () => {
  assert.deepEqual(decodeJsonObject('{"k":"v"} junk'), { value: parseJson('{"k":"v"}') });
  assert.deepEqual(decodeJsonObject("null"), { value: undefined });
  assert.deepEqual(decodeJsonObject("[1]"), {
    error: "json: cannot unmarshal array into Go value of type map[string]interface {}",
  });
  assert.deepEqual(decodeJsonObject('"x"'), {
    error: "json: cannot unmarshal string into Go value of type map[string]interface {}",
  });
  assert.deepEqual(decodeJsonObject("5"), {
    error: "json: cannot unmarshal number into Go value of type map[string]interface {}",
  });
  assert.deepEqual(decodeJsonObject("true"), {
    error: "json: cannot unmarshal bool into Go value of type map[string]interface {}",
  });
  assert.deepEqual(decodeJsonObject(""), { error: "EOF" });
});

test("valueToString follows fmt's %v: null is <nil>, a nil map is null", () => {
  const values: [JsonValue, string][] = [
    ["text", "text"],
    [new JsonNumber("1.50"), "1.50"],
    [true, "true"],
    [false, "false"],
    [null, "<nil>"],
    [NIL_MAP, "null"],
    [[1, "<"].map((v) => (typeof v === "number" ? new JsonNumber(String(v)) : v)), '[1,"\\u003c"]'],
    [parseJson('{"b":1,"a":{}}'), '{"a":{},"b":1}'],
  ];
  for (const [value, expected] of values) assert.equal(valueToString(value), expected);
  assert.equal(encodeGoJson(undefined), "null");
  assert.equal(encodeGoJson({ m: NIL_MAP }), '{"m":null}');
});
