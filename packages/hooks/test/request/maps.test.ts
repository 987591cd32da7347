// Expected maps and log lines were observed from Debian's webhook 2.8.0 (entire-headers,
// entire-query, entire-payload passed to /bin/echo; -verbose logs).
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeGoJson } from "../../src/request/json.ts";
import { buildHeaderMap, buildQueryMap, type ParsedBody, parseBody } from "../../src/request/maps.ts";

test("header map: canonical names, first value, no Host or Transfer-Encoding", () => {
  const headers = buildHeaderMap([
    "Host",
    "127.0.0.1:9000",
    "x_foo",
    "under",
    "X-FOO",
    "up",
    "x-foo",
    "low",
    "X-Dup",
    "1",
    "x-dup",
    "2",
    "Content-Length",
    "0",
    "Transfer-Encoding",
    "chunked",
    "X-U",
    // Node hands header bytes over as latin1: this is UTF-8 "é".
    "\u00c3\u00a9",
  ]);
  assert.equal(
    encodeGoJson(headers),
    '{"Content-Length":"0","X-Dup":"1","X-Foo":"up","X-U":"é","X_foo":"under"}',
  );
});

test("Pragma: no-cache adds Cache-Control as Go's server does", () => {
  assert.equal(
    encodeGoJson(buildHeaderMap(["Pragma", "no-cache"])),
    '{"Cache-Control":"no-cache","Pragma":"no-cache"}',
  );
  assert.equal(
    encodeGoJson(buildHeaderMap(["Pragma", "no-cache", "Cache-Control", "max-age=1"])),
    '{"Cache-Control":"max-age=1","Pragma":"no-cache"}',
  );
  assert.equal(encodeGoJson(buildHeaderMap(["Pragma", "No-Cache"])), '{"Pragma":"No-Cache"}');
});

test("query map keeps first values and drops only the pairs Go rejects", () => {
  assert.equal(encodeGoJson(buildQueryMap("?b=1&b=2&c=%zz&d=x;y&e=a+b%20c")), '{"b":"1","e":"a b c"}');
  assert.equal(
    encodeGoJson(buildQueryMap("&&=v&k=&flag&%C3%A9=%E2%82%AC")),
    '{"":"v","flag":"","k":"","é":"€"}',
  );
  assert.equal(encodeGoJson(buildQueryMap("")), "{}");
  assert.equal(encodeGoJson(buildQueryMap("token=wrong")), '{"token":"wrong"}');
  // Keys that name Object.prototype members are ordinary keys.
  const query = buildQueryMap("__proto__=x&constructor=y&toString=1&toString=2");
  assert.equal(encodeGoJson(query), '{"__proto__":"x","constructor":"y","toString":"1"}');
  assert.equal(Object.getPrototypeOf(query), Object.prototype);
  assert.equal(
    encodeGoJson(buildHeaderMap(["__proto__", "a", "Constructor", "b"])),
    '{"Constructor":"b","__proto__":"a"}',
  );
});

const options = { maxMultipartMem: 1 << 20, jsonParameterNames: [] };

async function parse(contentType: string, body: string): Promise<ParsedBody> {
  return parseBody(contentType, Buffer.from(body), options);
}

async function payloadOf(contentType: string, body: string): Promise<string> {
  return encodeGoJson((await parse(contentType, body)).payload);
}

test("content types are matched by substring: json, form, xml, multipart prefix", async () => {
  assert.equal(await payloadOf("application/json", '{"a":1}'), '{"a":1}');
  assert.equal(await payloadOf("application/vnd.api+json", '{"a":1}'), '{"a":1}');
  assert.equal(await payloadOf("text/plain; x=json", '{"a":1}'), '{"a":1}');
  assert.equal(await payloadOf("application/x-www-form-urlencoded; charset=utf-8", "a=1"), '{"a":"1"}');
  assert.equal(await payloadOf("text/xml; charset=utf-8", "<r>1</r>"), '{"r":"1"}');
  assert.equal(await payloadOf("application/rss+xml", "<r>1</r>"), '{"r":"1"}');
  const unsupported = await parse("application/JSON", '{"a":1}');
  assert.equal(unsupported.payload, undefined);
  assert.deepEqual(unsupported.log, [
    "error parsing body payload due to unsupported content type header: application/JSON",
  ]);
  assert.deepEqual((await parse("", "x")).log, [
    "error parsing body payload due to unsupported content type header: ",
  ]);
  assert.equal((await parse("text/plain", "raw")).rawBody.toString(), "raw");
});

test("JSON bodies: arrays under root, scalars and null give no payload", async () => {
  assert.equal(await payloadOf("application/json", '[{"x":1},2]'), '{"root":[{"x":1},2]}');
  assert.equal(await payloadOf("application/json", "  []  "), '{"root":[]}');
  assert.equal(await payloadOf("application/json", "{}"), "{}");
  assert.equal(await payloadOf("application/json", "null"), "null");
  const scalar = await parse("application/json", '"str"');
  assert.equal(scalar.payload, undefined);
  assert.deepEqual(scalar.log, [
    "error parsing JSON payload json: cannot unmarshal string into Go value of type map[string]interface {}",
  ]);
  assert.deepEqual((await parse("application/json", "")).log, ["error parsing JSON payload EOF"]);
  assert.deepEqual((await parse("application/json", "[1,")).log, [
    "error parsing JSON array payload unexpected EOF",
  ]);
  // webhook spots arrays after unicode.IsSpace bytes, which the JSON decoder itself rejects.
  assert.deepEqual((await parse("application/json", "\u000b[1]")).log, [
    "error parsing JSON array payload invalid character '\\v' looking for beginning of value",
  ]);
});

test("form bodies: any error drops the whole payload", async () => {
  assert.equal(
    await payloadOf("application/x-www-form-urlencoded", "a=1&a=2&b=x+y%21&c"),
    '{"a":"1","b":"x y!","c":""}',
  );
  assert.equal(await payloadOf("application/x-www-form-urlencoded", ""), "{}");
  assert.equal(
    await payloadOf("application/x-www-form-urlencoded", "a%3Db=c&=&+=+"),
    '{"":""," ":" ","a=b":"c"}',
  );
  const semicolon = await parse("application/x-www-form-urlencoded", "a=1;b=2");
  assert.equal(semicolon.payload, undefined);
  assert.deepEqual(semicolon.log, ["error parsing form payload invalid semicolon separator in query"]);
  const badEscape = await parse("application/x-www-form-urlencoded", "a=1&b=%zz");
  assert.equal(badEscape.payload, undefined);
  assert.deepEqual(badEscape.log, ['error parsing form payload invalid URL escape "%zz"']);
  assert.deepEqual((await parse("application/x-www-form-urlencoded", "a=%4")).log, [
    'error parsing form payload invalid URL escape "%4"',
  ]);
});

test("XML bodies log mxj's errors and give no payload", async () => {
  const broken = await parse("application/xml", "<r><a>1</a>");
  assert.equal(broken.payload, undefined);
  assert.deepEqual(broken.log, [
    "error parsing XML payload: xml.Decoder.Token() - XML syntax error on line 1: unexpected EOF",
  ]);
  assert.deepEqual((await parse("application/xml", "")).log, ["error parsing XML payload: EOF"]);
});

const multipart = "multipart/form-data; boundary=XyZ";

test("multipart bodies: fields and JSON file parts, raw body not kept", async () => {
  const body =
    '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n2\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="f.json"\r\nContent-Type: application/json\r\n\r\n{"x":1,"y":"<"}\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="g"; filename="g.json"\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{"x":1}\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="i"; filename="i.json"\r\nContent-Type: application/json\r\n\r\nnot json\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="o"\r\nContent-Type: application/octet-stream\r\n\r\nv\r\n' +
    "--XyZ--\r\n";
  const parsed = await parse(multipart, body);
  assert.equal(encodeGoJson(parsed.payload), '{"a":"1","f":{"x":1,"y":"\\u003c"},"i":null,"o":"v"}');
  assert.equal(parsed.rawBody.length, 0);
  assert.equal(parsed.multipartError, false);
  assert.deepEqual(parsed.log, [
    'found multipart form value "a"',
    'found multipart form value "o"',
    'parsing multipart form file "f" as JSON',
    'parsing multipart form file "i" as JSON',
    "error parsing JSON payload file: invalid character 'o' in literal null (expecting 'u')",
  ]);
});

test("multipart file parts named in parse-parameters-as-json are decoded whatever their type", async () => {
  const body =
    '--XyZ\r\nContent-Disposition: form-data; name="j"; filename="j.txt"\r\nContent-Type: text/plain\r\n\r\n{"k":"v"}\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="t"; filename="t.txt"\r\nContent-Type: text/plain\r\n\r\n{"k":"v"}\r\n' +
    "--XyZ--";
  const parsed = await parseBody(multipart, Buffer.from(body), {
    maxMultipartMem: 1 << 20,
    jsonParameterNames: ["j"],
  });
  assert.equal(encodeGoJson(parsed.payload), '{"j":{"k":"v"}}');
});

test("multipart errors are flagged for the 500 answer", async () => {
  for (const [contentType, body, error] of [
    [multipart, "", "multipart: NextPart: EOF"],
    ["multipart/form-data; charset=x", "garbage", "no multipart boundary param in Content-Type"],
    [multipart, '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nv', "unexpected EOF"],
  ]) {
    const parsed = await parse(contentType, body);
    assert.equal(parsed.multipartError, true, body);
    assert.equal(parsed.payload, undefined);
    assert.deepEqual(parsed.log, [`error parsing multipart form: ${error}`]);
  }
  // A multipart body without fields has no payload at all.
  assert.equal((await parse(multipart, "--XyZ--")).payload, undefined);
});

test("a query Go cannot parse fails a multipart request, other bodies do not care", async () => {
  const body = '--XyZ\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--XyZ--\r\n';
  const withQuery = (rawQuery: string, contentType = multipart) =>
    parseBody(contentType, Buffer.from(body), { ...options, rawQuery });
  assert.deepEqual((await withQuery("a=1;b=2")).log, [
    "error parsing multipart form: invalid semicolon separator in query",
  ]);
  assert.equal((await withQuery("a=%zz")).multipartError, true);
  assert.equal((await withQuery("a=1")).multipartError, false);
  assert.equal((await withQuery("a=%zz", "application/json")).multipartError, false);
});

test("a multipart content type containing json is parsed as JSON with an empty body", async () => {
  const parsed = await parse("multipart/form-data; boundary=json", '{"a":1}');
  assert.equal(parsed.payload, undefined);
  assert.equal(parsed.rawBody.length, 0);
  assert.deepEqual(parsed.log, ["error parsing JSON payload EOF"]);
  // Without parameters it is not multipart for webhook, just unsupported.
  assert.equal((await parse("multipart/form-data", "x")).rawBody.toString(), "x");
});
