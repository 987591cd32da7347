// Behaviour observed from Debian's webhook 2.8.0 (Go 1.19 mime/multipart): "500" rows answered
// "Error occurred while parsing multipart form.", the others gave the listed form.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseMediaType, readMultipartForm } from "../../src/request/multipart.ts";

const TYPE = "multipart/form-data; boundary=XyZ";

/** `{a=1}` style summary of values and files, or the error text. */
function read(body: string, contentType = TYPE, maxMemory = 1 << 20): string {
  const result = readMultipartForm(contentType, Buffer.from(body, "latin1"), maxMemory);
  if ("error" in result) return `error: ${result.error}`;
  const values = [...result.form.values].map(([name, value]) => `${name}=${value}`);
  const files = [...result.form.files].map(
    ([name, file]) => `${name}@[${file.contentTypes.join("|")}]${file.data.toString("latin1")}`,
  );
  return `{${[...values, ...files].join(" ")}}`;
}

const part = (disposition: string, body: string, ...headers: string[]) =>
  `--XyZ\r\nContent-Disposition: ${disposition}\r\n${headers.map((h) => h + "\r\n").join("")}\r\n${body}\r\n`;

test("values keep their first occurrence; files keep every Content-Type header", () => {
  const body =
    part('form-data; name="a"', "1") +
    part('form-data; name="a"', "2") +
    part(
      'form-data; name="f"; filename="f.json"',
      "{}",
      "Content-Type: text/plain",
      "Content-Type: application/json",
    ) +
    part('form-data; name="o"', "v", "Content-Type: application/octet-stream") +
    "--XyZ--\r\n";
  assert.equal(read(body), "{a=1 o=v f@[text/plain|application/json]{}}");
});

test("Content-Disposition decides names and file-ness as mime.ParseMediaType does", () => {
  const one = (disposition: string) => read(part(disposition, "x") + "--XyZ--");
  assert.equal(one('form-data; name="a"; filename=""'), "{a=x}");
  assert.equal(one("form-data; name=unquoted"), "{unquoted=x}");
  assert.equal(one('FORM-DATA; NAME="lower"'), "{lower=x}");
  assert.equal(one("form-data; name*=UTF-8''%C3%A9t%C3%A9"), "{été=x}");
  assert.equal(one("form-data; name=\"a\"; filename*=UTF-8''f.json"), "{a@[]x}");
  assert.equal(one('form-data; name="a\\"b"'), '{a"b=x}');
  assert.equal(one('form-data; name="C:\\dir\\x"'), "{C:\\dir\\x=x}");
  assert.equal(one('form-data; name="a";'), "{a=x}");
  assert.equal(one('form-data;name="nospace"'), "{nospace=x}");
  // Skipped: not form-data, no name, unparsable or repeated parameters (Go 1.19 refuses even equal ones).
  assert.equal(one('attachment; name="a"'), "{}");
  assert.equal(one('form-data; filename="x"'), "{}");
  assert.equal(one('form-data; name="a" junk'), "{}");
  assert.equal(one('form-data; name="a"; name="b"'), "{}");
  assert.equal(one('form-data; name="a"; name="a"'), "{}");
});

test("part headers: folding, lower-case names, bare \\n line ends", () => {
  assert.equal(
    read('--XyZ\r\nContent-Disposition: form-data;\r\n name="folded"\r\n\r\nf\r\n--XyZ--'),
    "{folded=f}",
  );
  assert.equal(read('--XyZ\r\ncontent-disposition: form-data; name="a"\r\n\r\nx\r\n--XyZ--'), "{a=x}");
  assert.equal(read('--XyZ\nContent-Disposition: form-data; name="a"\n\nv\n--XyZ--\n'), "{a=v}");
  assert.equal(read("--XyZ\r\nContent-Type: text/plain\r\n\r\nA\r\n--XyZ--"), "{}");
});

test("boundaries: preamble, epilogue, look-alikes, padding", () => {
  const a = 'Content-Disposition: form-data; name="a"';
  assert.equal(read(`preamble\r\n--XyZ\r\n${a}\r\n\r\nv\r\n--XyZ--\r\nepilogue`), "{a=v}");
  assert.equal(read(`--XyZ\r\n${a}\r\n\r\nline1\r\n--XyZnot\r\n--XyZ--`), "{a=line1\r\n--XyZnot}");
  assert.equal(
    read(`--XyZ\r\n${a}\r\n\r\nA\r\n--XyZ \t\r\n${a.replace('"a"', '"b"')}\r\n\r\nB\r\n--XyZ-- \r\n`),
    "{a=A b=B}",
  );
  assert.equal(read(`--XyZ\r\n${a}\r\n\r\n--XyZ--`), "{a=}");
  assert.equal(read(`--XyZ\r\n${a}\r\n\r\nA\r\n\r\n--XyZ--`), "{a=A\r\n}");
  // Running out of input inside a part's headers ends the form quietly.
  assert.equal(read(`--XyZ\r\n${a}\r\n\r\nv\r\n--XyZ\r\n`), "{a=v}");
  assert.equal(read(`--XyZ\r\n${a}\r\n\r\nA\r\n--XyZ\r\nContent-Disposition: form-data; name="b"`), "{a=A}");
  assert.equal(read("--XyZ--"), "{}");
  assert.equal(read("\r\n--XyZ--"), "{}");
  assert.equal(read(`${"x".repeat(4094)}\r\n--XyZ\r\n${a}\r\n\r\nA\r\n--XyZ--`), "{a=A}");
});

test("malformed bodies fail like Go's reader", () => {
  const a = 'Content-Disposition: form-data; name="a"';
  const cases: [string, string][] = [
    ["", "multipart: NextPart: EOF"],
    ["garbage", "multipart: NextPart: EOF"],
    [`--XyZ\r\n${a}\r\n\r\nv`, "unexpected EOF"],
    [
      `--XyZ\r\n${a}\r\n\r\nA\r\n--XyZ x\r\n\r\nB\r\n--XyZ--`,
      'multipart: expecting a new Part; got line "--XyZ x\\r\\n"',
    ],
    [`--XyZ\r\n${a}\r\n\r\nA\r\n--XyZ--garbage`, "multipart: NextPart: EOF"],
    // In \r\n mode a bare \n before the boundary does not end the part.
    [`--XyZ\r\n${a}\r\n\r\nA\n--XyZ--`, "unexpected EOF"],
    [`--XyZ\r\n${a}\r\n\r\nA\r\n--XyZ\r\nbroken`, 'malformed MIME header: missing colon: "broken"'],
    [`--XyZ\r\n ${a}\r\n\r\nA\r\n--XyZ--`, `malformed MIME header initial line:  ${a}`],
    [`${"x".repeat(4095)}\r\n--XyZ\r\n${a}\r\n\r\nA\r\n--XyZ--`, "multipart: NextPart: bufio: buffer full"],
  ];
  for (const [body, error] of cases) assert.equal(read(body), `error: ${error}`, JSON.stringify(body));
});

test("the request content type must name a boundary", () => {
  const body = `--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nq\r\n--XyZ--\r\n`;
  assert.equal(read(body, 'multipart/form-data; boundary="XyZ"'), "{a=q}");
  assert.equal(read(body, "multipart/form-data; BOUNDARY=XyZ; charset=utf-8"), "{a=q}");
  assert.equal(read(body, "multipart/form-data;boundary=XyZ;"), "{a=q}");
  assert.equal(
    read(body, "multipart/form-data; charset=x"),
    "error: no multipart boundary param in Content-Type",
  );
  assert.equal(
    read(body, "multipart/form-data; boundary="),
    "error: request Content-Type isn't multipart/form-data",
  );
  assert.equal(read(body, 'multipart/form-data; boundary=""'), "error: multipart: boundary is empty");
  assert.equal(
    read(body, "multipart/form-data; boundary=XyZ; boundary=XyZ"),
    "error: request Content-Type isn't multipart/form-data",
  );
  assert.equal(
    read(body, "multipart/mixed; boundary=XyZ"),
    "error: request Content-Type isn't multipart/form-data",
  );
});

test("values beyond max-multipart-mem plus Go's 10 MiB allowance are refused", () => {
  const big = "v".repeat(10 << 20);
  const body = `--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n${big}\r\n--XyZ--`;
  assert.equal(read(body, TYPE, 0), "error: multipart: message too large");
  assert.equal(read(body, TYPE, 1024).length, big.length + 4);
});

test("parseMediaType handles quoting, RFC 2231 continuations and bad syntax", () => {
  const params = (value: string) => {
    const media = parseMediaType(value);
    return media === undefined
      ? "error"
      : `${media.type} ${JSON.stringify(Object.fromEntries(media.params))}`;
  };
  assert.equal(params('Form-Data; Name="x"'), 'form-data {"name":"x"}');
  assert.equal(params("form-data; name*0=ab; name*1=cd"), 'form-data {"name":"abcd"}');
  assert.equal(params("form-data; name*0*=utf-8''%C3%A9; name*1=x"), 'form-data {"name":"éx"}');
  assert.equal(params("text/plain; a={b}"), 'text/plain {"a":"{b}"}');
  assert.equal(params("text/"), "error");
  assert.equal(params("/plain"), "error");
  assert.equal(params("text/plain; a"), "error");
  assert.equal(params('text/plain; a="unterminated'), "error");
});
