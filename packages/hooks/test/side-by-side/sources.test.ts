// Request values: every source, dot paths, number literals, Go-style JSON encoding, and how they
// reach the command as arguments, environment variables and files.
import { sideBySide } from "./harness/harness.ts";
import { get, post, postForm, postJson, postMultipart, request } from "./harness/requests.ts";

const payload = `{
  "head_commit": {"id": "abc123", "timestamp": "2026-01-02T03:04:05Z", "message": "fix <b> & \\"q\\""},
  "list": [{"name": "first"}, {"name": "second"}],
  "dotted.key": "literal key wins",
  "dotted": {"key": "nested loses"},
  "amount": 1.50, "big": 12345678901234567890, "exp": 1e3, "flag": true, "nothing": null,
  "obj": {"z": 1, "a": "<a&b>", "m": [1.0, "x"]},
  "unicode": "h\\u00e9llo \u2713", "blank": "",
  "b64": "aGVsbG8gZmlsZQ==", "bad64": "%%%"
}`;
const obj = '{"a":"\\u003ca\\u0026b\\u003e","m":[1.0,"x"],"z":1}';
const list = '[{"name":"first"},{"name":"second"}]';

const payloadArgs = [
  "abc123",
  'fix <b> & "q"',
  "first",
  "second",
  "",
  "",
  "",
  "literal key wins",
  "1.50",
  "12345678901234567890",
  "1e3",
  "true",
  "<nil>",
  obj,
  list,
  "héllo ✓",
  "",
  "",
  "",
  "",
];

const recorded = { status: 200, body: "recorded", runs: 1 };
const emptyPayloadArgs = Array(20).fill("");

sideBySide(
  "request values",
  { hooks: ["sources.yaml"], recordEnv: ["CUSTOM_REF", "CONSTANT", "COMMIT_FILE", "MESSAGE_FILE"] },
  [
    {
      name: "payload: dot paths, array indexes, literal dotted keys, literals",
      req: postJson("/hooks/payload-args", payload),
      want: { ...recorded, record: { args: payloadArgs } },
    },
    {
      name: "payload: vendor JSON content type",
      req: post("/hooks/payload-args", "application/vnd.api+json", payload),
      want: { ...recorded, record: { args: payloadArgs } },
    },
    {
      name: "payload: only the first JSON value is read",
      req: postJson("/hooks/payload-args", `${payload} trailing garbage`),
      want: { ...recorded, record: { args: payloadArgs } },
    },
    {
      name: "payload: malformed JSON is no payload",
      req: postJson("/hooks/payload-args", '{"head_commit": {"id": "abc123"'),
      want: { ...recorded, record: { args: emptyPayloadArgs } },
    },
    {
      name: "payload: a JSON scalar is no payload",
      req: postJson("/hooks/payload-args", '"just a string"'),
      want: { ...recorded, record: { args: emptyPayloadArgs } },
    },
    {
      name: "payload: top-level array is exposed as root",
      req: postJson("/hooks/payload-args", '[{"event": "push"}, 2.50]'),
      want: {
        ...recorded,
        record: { args: [...Array(18).fill(""), "push", '[{"event":"push"},2.50]'] },
      },
    },
    {
      name: "payload: without content type the body is not parsed",
      req: request("POST", "/hooks/payload-args", {}, payload),
      want: { ...recorded, record: { args: emptyPayloadArgs } },
    },
    {
      name: "request: method, remote-addr, string, header, url, query, unknown names",
      req: request("PUT", "/hooks/request-args?ref=main&ref=second", { "X-EVENT-NAME": "push" }),
      want: {
        ...recorded,
        record: {
          args: [
            "PUT",
            "PUT",
            "127.0.0.1:<port>",
            "127.0.0.1:<port>",
            "",
            "a literal, with spaces",
            "push",
            "",
            "main",
            "main",
            "",
            "",
          ],
        },
      },
    },
    {
      name: "entire-payload, entire-headers, entire-query, raw-request-body",
      req: postJson("/hooks/entire-args?b=2&a=1&a=3&html=%3C%26%3E", '{"z": 0.10, "a": ["<", {"y": null}]}', {
        "x-custom": "v",
        "User-Agent": "side-by-side",
      }),
      want: {
        ...recorded,
        record: {
          args: [
            '{"a":["\\u003c",{"y":null}],"z":0.10}',
            '{"Connection":"close","Content-Length":"36","Content-Type":"application/json","User-Agent":"side-by-side","X-Custom":"v"}',
            '{"a":"1","b":"2","html":"\\u003c\\u0026\\u003e"}',
            '{"z": 0.10, "a": ["<", {"y": null}]}',
          ],
        },
      },
    },
    {
      name: "entire-payload without a body is null",
      req: get("/hooks/entire-args"),
      want: { ...recorded, record: { args: ["null", '{"Connection":"close"}', "{}", ""] } },
    },
    {
      name: "environment: HOOK_ + name verbatim, envname, omitted when missing",
      req: postJson("/hooks/env-args?ref=main", payload, { "x-env": "from header" }),
      want: {
        ...recorded,
        record: {
          env: {
            CONSTANT: "constant",
            CUSTOM_REF: "main",
            HOOK_AMOUNT: "1.50",
            "HOOK_X-Env": "from header",
            "HOOK_head_commit.timestamp": "2026-01-02T03:04:05Z",
            HOOK_obj: obj,
          },
        },
      },
    },
    {
      name: "files: temp files in TMPDIR, base64, envname, removed after the run",
      req: postJson("/hooks/file-args", payload),
      want: {
        ...recorded,
        record: {
          env: {
            COMMIT_FILE: "<server>/tmp/<tempfile>",
            HOOK_B64: "<server>/tmp/<tempfile>",
            HOOK_BAD64: "<server>/tmp/<tempfile>",
            HOOK_BLANK: "<server>/tmp/<tempfile>",
            HOOK_PAYLOAD: "<server>/tmp/<tempfile>",
          },
          files: {
            COMMIT_FILE: "abc123",
            HOOK_B64: "hello file",
            HOOK_BAD64: "",
            HOOK_BLANK: "",
            HOOK_PAYLOAD:
              '{"amount":1.50,"b64":"aGVsbG8gZmlsZQ==","bad64":"%%%","big":12345678901234567890,"blank":"",' +
              '"dotted":{"key":"nested loses"},"dotted.key":"literal key wins","exp":1e3,"flag":true,' +
              '"head_commit":{"id":"abc123","message":"fix \\u003cb\\u003e \\u0026 \\"q\\"","timestamp":"2026-01-02T03:04:05Z"},' +
              `"list":${list},"nothing":null,"obj":${obj},"unicode":"héllo ✓"}`,
          },
          leftFiles: [],
        },
      },
    },
    {
      name: "files: in the command working directory",
      req: postJson("/hooks/file-args-workdir", payload),
      want: {
        ...recorded,
        record: {
          args: ["abc123"],
          cwd: "@WORK@",
          env: { MESSAGE_FILE: "@WORK@/<tempfile>" },
          files: { MESSAGE_FILE: 'fix <b> & "q"' },
          leftFiles: [],
        },
      },
    },
    {
      name: "parse-parameters-as-json: payload, header and query values",
      req: postForm(
        "/hooks/json-parameters?q=%7B%22n%22%3A1.0%7D",
        `payload=${encodeURIComponent('{"build":{"number":7,"ok":true}}')}&notjson=%7Bnope&array=%5B1%2C2%5D`,
        {
          "X-Json": '{"k": "from header"}',
        },
      ),
      want: {
        ...recorded,
        record: { args: ["7", '{"number":7,"ok":true}', "from header", "1.0", "{nope", "[1,2]", ""] },
      },
    },
    {
      name: "form: first value, plus and %20 decoding, literal dotted key",
      req: postForm("/hooks/form-args", "a=1&b=x+y&c=%20z&a=2&dotted.key=d"),
      want: {
        ...recorded,
        record: { args: ["1", "x y", " z", "d", '{"a":"1","b":"x y","c":" z","dotted.key":"d"}'] },
      },
    },
    {
      name: "form: a ; separator drops the whole payload (kept quirk)",
      req: postForm("/hooks/form-args", "a=1;b=2&c=3"),
      want: { ...recorded, record: { args: ["", "", "", "", "null"] } },
    },
    {
      name: "form: a bad % escape drops the whole payload",
      req: postForm("/hooks/form-args", "a=1&b=%zz"),
      want: { ...recorded, record: { args: ["", "", "", "", "null"] } },
    },
    {
      name: "xml: attributes, #text, repeated elements",
      req: post(
        "/hooks/xml-args",
        "application/xml",
        '<app version="2"><title lang="en">Hello</title><plain>P</plain><users><user name="a">one</user><user name="b">two</user></users></app>',
      ),
      want: {
        ...recorded,
        record: {
          args: [
            "2",
            '{"#text":"Hello","-lang":"en"}',
            "en",
            "Hello",
            "P",
            "a",
            "two",
            '{"#text":"two","-name":"b"}',
            '{"app":{"-version":"2","plain":"P","title":{"#text":"Hello","-lang":"en"},"users":{"user":[{"#text":"one","-name":"a"},{"#text":"two","-name":"b"}]}}}',
          ],
        },
      },
    },
    {
      name: "xml: text/xml",
      req: post("/hooks/xml-args", "text/xml; charset=utf-8", "<app><plain>text xml</plain></app>"),
      want: {
        ...recorded,
        record: { args: ["", "", "", "", "text xml", "", "", "", '{"app":{"plain":"text xml"}}'] },
      },
    },
    {
      name: "multipart: fields, JSON file part, other file parts ignored",
      req: postMultipart("/hooks/multipart-args", [
        { name: "field", value: "plain value" },
        { name: "repeated", value: "one" },
        { name: "repeated", value: "two" },
        {
          name: "jsonfile",
          filename: "data.json",
          contentType: "application/json",
          value: '{"inner": 2.50}',
        },
        { name: "textfile", filename: "notes.txt", contentType: "text/plain", value: "ignored" },
        {
          name: "listed",
          filename: "listed.bin",
          contentType: "application/octet-stream",
          value: '{"k": "listed"}',
        },
      ]),
      want: {
        ...recorded,
        record: {
          args: [
            "plain value",
            "one",
            "2.50",
            "",
            "listed",
            "",
            '{"field":"plain value","jsonfile":{"inner":2.50},"listed":{"k":"listed"},"repeated":"one"}',
          ],
        },
      },
    },
    {
      name: "multipart: a bad body is a 500",
      req: post("/hooks/multipart-args", "multipart/form-data; boundary=nope", "garbage without boundary"),
      want: { status: 500, body: "Error occurred while parsing multipart form." },
    },
    {
      name: "multipart: without boundary parameter it is just unsupported",
      req: post("/hooks/multipart-args", "multipart/form-data", "x"),
      want: { ...recorded, record: { args: ["", "", "", "", "", "x", "null"] } },
    },
    {
      name: "incoming-payload-content-type forces JSON parsing",
      req: post("/hooks/forced-json", "text/plain", '{"head_commit": {"id": "forced"}}'),
      want: { ...recorded, record: { args: ["forced", '{"head_commit": {"id": "forced"}}'] } },
    },
  ],
);
