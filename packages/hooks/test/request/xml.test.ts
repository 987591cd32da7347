// Every expected payload here was observed from Debian's webhook 2.8.0 (entire-payload of an XML
// body passed to /bin/echo); "error" rows are bodies it answered with no payload.
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeGoJson } from "../../src/request/json.ts";
import { parseXmlPayload } from "../../src/request/xml.ts";

function payload(xml: string): string {
  try {
    return encodeGoJson(parseXmlPayload(xml));
  } catch {
    return "error";
  }
}

test("mxj shapes: attributes, #text, repeated siblings, empty elements", () => {
  assert.equal(
    payload(
      '<r a="1"><u n="x">t1</u><u n="y"/><v>plain</v><w></w><m>mix<i>1</i></m><m2><i>1</i>after</m2></r>',
    ),
    '{"r":{"-a":"1","m":"mix","m2":{"#text":"after","i":"1"},"u":[{"#text":"t1","-n":"x"},{"-n":"y"}],"v":"plain","w":""}}',
  );
  assert.equal(payload('<m a="1">mix<i>1</i></m>'), '{"m":{"#text":"mix","-a":"1","i":"1"}}');
  assert.equal(payload("<r/>"), '{"r":""}');
  assert.equal(payload("<r><a/><a/></r>"), '{"r":{"a":["",""]}}');
  assert.equal(
    payload('<r><a b="1">t</a><a>u</a><a><b>v</b></a></r>'),
    '{"r":{"a":[{"#text":"t","-b":"1"},"u",{"b":"v"}]}}',
  );
  assert.equal(payload("<r><b>1</b><b>2</b><b><c>3</c></b></r>"), '{"r":{"b":["1","2",{"c":"3"}]}}');
  assert.equal(payload("<r>a<b/>c</r>"), '{"r":"a"}');
  assert.equal(payload("<r><b/>c<b/>d</r>"), '{"r":{"#text":"d","b":["",""]}}');
  assert.equal(payload("<a><b><c><d>deep</d></c></b></a>"), '{"a":{"b":{"c":{"d":"deep"}}}}');
});

test("text is trimmed; the last text run wins; comments and PIs split runs", () => {
  assert.equal(payload("<r><a>  spaced\n </a></r>"), '{"r":{"a":"spaced"}}');
  assert.equal(payload("<r>  </r>"), '{"r":""}');
  assert.equal(
    payload("<r><a><![CDATA[  x  ]]></a><b>x<!--c-->y</b><c>x<?pi z?>y</c><d>a<![CDATA[b<>]]>c</d></r>"),
    '{"r":{"a":"x","b":"y","c":"y","d":"c"}}',
  );
  assert.equal(payload("<r><![CDATA[]]></r>"), '{"r":""}');
  assert.equal(payload("<r>a\r\nb\rc</r>"), '{"r":"a\\nb\\nc"}');
});

test("entities and character references", () => {
  assert.equal(payload("<r>x &amp; &#65;&#x42; y &lt;a&gt;</r>"), '{"r":"x \\u0026 AB y \\u003ca\\u003e"}');
  assert.equal(payload('<r a="x &lt; &#65; y&#10;z">x</r>'), '{"r":{"#text":"x","-a":"x \\u003c A y\\nz"}}');
  assert.equal(payload('<r a="&quot;&apos;&gt;"/>'), '{"r":{"-a":"\\"\'\\u003e"}}');
  assert.equal(payload('<r a="\t\n">x</r>'), '{"r":{"#text":"x","-a":"\\t\\n"}}');
});

test("namespace prefixes are dropped from element and attribute names", () => {
  assert.equal(
    payload('<ns:r xmlns:ns="urn:x" xmlns="urn:d" ns:at="q"><ns:c>1</ns:c><c>2</c></ns:r>'),
    '{"r":{"-at":"q","-ns":"urn:x","-xmlns":"urn:d","c":["1","2"]}}',
  );
  assert.equal(
    payload('<r x:y="1" xmlns:x="u"><x:a>1</x:a><y:a>2</y:a><:b>3</:b><c:>4</c:></r>'),
    '{"r":{"-x":"u","-y":"1",":b":"3","a":["1","2"],"c:":"4"}}',
  );
});

test("prolog, trailing content and attribute syntax", () => {
  assert.equal(payload('<?xml version="1.0" encoding="utf-8"?><!DOCTYPE r><!-- c --><r>a</r>'), '{"r":"a"}');
  assert.equal(payload('<!DOCTYPE r [<!ENTITY e "x">]><r>y</r>'), '{"r":"y"}');
  assert.equal(payload("\ufeff  <r>a</r>"), '{"r":"a"}');
  assert.equal(payload("<r><a>1</a></r><s>2</s>"), '{"r":{"a":"1"}}');
  assert.equal(payload("<r>a</r >trailing junk"), '{"r":"a"}');
  assert.equal(payload("<r a = \"1\" b='2'>t</r>"), '{"r":{"#text":"t","-a":"1","-b":"2"}}');
  assert.equal(payload('<r a="1" a="2">x</r>'), '{"r":{"#text":"x","-a":"2"}}');
  assert.equal(payload('<r a="1"b="2">x</r>'), '{"r":{"#text":"x","-a":"1","-b":"2"}}');
});

test("strict-mode errors leave no payload", () => {
  const bad = [
    "",
    "just text",
    "<r><a>1</a>",
    "<r><a>1</b></r>",
    "</x><r/>",
    "<r>&nbsp;</r>",
    "<r>&amp</r>",
    "<r>& x</r>",
    "<r>&#0;</r>",
    "<r>&#xD800x;</r>",
    "<r>\u0001</r>",
    "<r>]]></r>",
    "<1r>a</1r>",
    "<r a=1/>",
    "<r a>x</r>",
    '<r a="<">x</r>',
    "<r><!-- a -- b --></r>",
    "<r><!- x --></r>",
    "<r><![CDAT[x]]></r>",
    '<?xml version="1.1"?><r>a</r>',
    '<?xml version="1.0" encoding="ISO-8859-1"?><r>a</r>',
  ];
  for (const xml of bad) assert.equal(payload(xml), "error", xml);
});

test("error messages are mxj's", () => {
  assert.throws(() => parseXmlPayload(""), { message: "EOF" });
  assert.throws(() => parseXmlPayload("<r>\n<a>1</b></r>"), {
    message: "xml.Decoder.Token() - XML syntax error on line 2: element <a> closed by </b>",
  });
  assert.throws(() => parseXmlPayload('<?xml version="1.0" encoding="ISO-8859-1"?><r/>'), {
    message: 'xml: encoding "ISO-8859-1" declared but Decoder.CharsetReader is nil',
  });
});

test("any element name is an ordinary key, and depth is not limited by the JavaScript stack", () => {
  assert.equal(
    payload("<r><__proto__>1</__proto__><constructor/></r>"),
    '{"r":{"__proto__":"1","constructor":""}}',
  );
  const depth = 100000;
  const deep = payload("<a>".repeat(depth) + "x" + "</a>".repeat(depth));
  assert.equal(deep, '{"a":'.repeat(depth) + '"x"' + "}".repeat(depth));
});
