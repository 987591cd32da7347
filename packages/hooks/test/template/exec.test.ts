// Expected texts were produced by Debian's webhook 2.8.0 (`-template`) from the same templates.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { renderTemplate, TemplateError } from "../../src/template/exec.ts";

const render = (text: string) => renderTemplate(text, "hooks.json");

function withEnv(vars: Record<string, string | undefined>, body: () => void): void {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(vars);
  try {
    body();
  } finally {
    set(saved);
  }
}

test("text without actions passes through unchanged", () => {
  assert.equal(
    render('[{"id": "a", "response-message": "{ }"}]\n'),
    '[{"id": "a", "response-message": "{ }"}]\n',
  );
});

test("getenv reads the environment; an unset variable is empty", () => {
  withEnv({ ANVIL_T_SECRET: "s3cr3t", ANVIL_T_UNSET: undefined }, () => {
    assert.equal(
      render('secret: {{ getenv "ANVIL_T_SECRET" }}|{{ getenv "ANVIL_T_UNSET" }}|'),
      "secret: s3cr3t||",
    );
  });
});

test("the documented JSON template renders a well-formed secret with | js", () => {
  const template = '"secret": "{{ getenv "ANVIL_T_SECRET" | js }}",';
  withEnv({ ANVIL_T_SECRET: `a'b"c<d>e&f=g\\h` }, () => {
    assert.equal(render(template), '"secret": "a\\\'b\\"c\\u003Cd\\u003Ee\\u0026f\\u003Dg\\\\h",');
  });
});

test("js escapes control and non-printable characters like Go's JSEscapeString", () => {
  assert.equal(render('{{ js "\\x01\\x1f\\u00a0é\\u2028 " }}'), "\\u0001\\u001F\\u00A0é\\u2028 ");
  assert.equal(
    render('{{ js "a" 1 2 }}|{{ js 1 "a" 2 }}|{{ js 1 nil 2 }}'),
    "a1 2|1a2|1\\u003Cno value\\u003E2",
  );
});

test("printf formats Go verbs, widths, flags and reports bad arguments Go's way", () => {
  assert.equal(render('{{ printf "%s-%d-%q-%v-%%" "x" 42 "q\\"" true }}'), 'x-42-"q\\""-true-%');
  assert.equal(
    render('{{ printf "%d" "x" }}|{{ printf "%s" }}|{{ printf "%s" "a" "b" }}'),
    "%!d(string=x)|%!s(MISSING)|a%!(EXTRA string=b)",
  );
  assert.equal(render('{{ printf "%5s|%-5s|%05d" "ab" "cd" 42 }}'), "   ab|cd   |00042");
  assert.equal(
    render('{{ printf "%.2f|%8.3f|%+d|% d|%#x|%.3s" 3.14159 2.5 5 5 255 "abcdef" }}'),
    "3.14|   2.500|+5| 5|0xff|abc",
  );
  assert.equal(
    render('{{ printf "%x %X %o %b %e %f %g %t %c %U" 255 255 8 5 1.5 1.5 1.5 true 65 65 }}'),
    "ff FF 10 101 1.500000e+00 1.500000 1.5 true A U+0041",
  );
  // Exact halves round to even, as Go does.
  assert.equal(render('{{ printf "%.0f|%.1f|%.0f" 2.5 0.25 3.5 }}'), "2|0.2|4");
  assert.equal(render('{{ printf "%v|%s|%d" nil nil nil }}'), "<nil>|%!s(<nil>)|%!d(<nil>)");
});

test("print and println space operands like fmt.Sprint and fmt.Sprintln", () => {
  assert.equal(
    render('{{ print "a" "b" 1 2 "c" }}|{{ print 1 2 }}|{{ print "a" nil "b" }}'),
    "ab1 2c|1 2|a<nil>b",
  );
  assert.equal(render('{{ println "a" 1 }}'), "a 1\n");
});

test("number literals print as Go prints them", () => {
  assert.equal(
    render("{{ 1.5 }} {{ 1e6 }} {{ 3 }} {{ 0x1F }} {{ 1.0 }} {{ -2 }} {{ 'a' }} {{ true }}"),
    "1.5 1e+06 3 31 1 -2 97 true",
  );
  assert.equal(
    render("{{ 1234567.0 }} {{ 123456.0 }} {{ 0.00001 }} {{ 017 }} {{ 1_000 }}"),
    "1.234567e+06 123456 1e-05 15 1000",
  );
});

test("html, urlquery, len, index and slice", () => {
  assert.equal(render(`{{ html "<a href='x'>&\\"" }}`), "&lt;a href=&#39;x&#39;&gt;&amp;&#34;");
  assert.equal(render('{{ urlquery "a b&c=d/é~" }}'), "a+b%26c%3Dd%2F%C3%A9~");
  assert.equal(render('{{ len "héllo" }} {{ index "abc" 1 }} {{ slice "abcdef" 1 3 }}'), "6 98 bc");
});

test("comparisons, and, or, not", () => {
  assert.equal(
    render(
      '{{ eq 1 1 }} {{ eq "a" "b" "a" }} {{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1 2 }}',
    ),
    "true true true true true true false",
  );
  assert.equal(
    render('{{ and 1 0 2 }} {{ and 1 2 }} {{ or 0 "" "x" }} {{ or 0 "" }} {{ not 0 }} {{ not "a" }}'),
    "0 2 x  true false",
  );
  // and stops at the first empty argument: the bad call after it is never made.
  assert.equal(render("{{ and 0 (getenv 1) }}"), "0");
});

test("the dot is nil data: it prints <no value> and is false", () => {
  assert.equal(
    render("{{ . }}|{{ .Foo.Bar }}|{{ print . }}|{{ if . }}y{{ else }}n{{ end }}"),
    "<no value>|<no value>|<nil>|n",
  );
  assert.equal(render("{{ range . }}x{{ else }}empty{{ end }}"), "empty");
});

test("variables, if / else if / else, with, pipelines and parentheses", () => {
  withEnv({ ANVIL_T_HOME: "/home/hook", ANVIL_T_UNSET: undefined }, () => {
    assert.equal(render('{{ $x := "v" }}{{ $x }}{{ $x = "w" }}{{ $x }}'), "vw");
    assert.equal(render("{{ if eq 1 2 }}a{{ else if eq 1 1 }}b{{ else }}c{{ end }}"), "b");
    assert.equal(render('{{ with getenv "ANVIL_T_HOME" }}[{{ . }}]{{ else }}none{{ end }}'), "[/home/hook]");
    assert.equal(render('{{ with getenv "ANVIL_T_UNSET" }}[{{ . }}]{{ else }}none{{ end }}'), "none");
    assert.equal(render('{{ "x" | printf "%s-%s" "y" }}|{{ (getenv "ANVIL_T_HOME") | len }}'), "y-x|10");
    assert.equal(render('{{ block "b" . }}in{{ end }}-{{ template "b" }}'), "in-in");
  });
});

test("trim markers and comments remove what Go removes", () => {
  assert.equal(render('a {{- " b " -}} c'), "a b c");
  assert.equal(render("{{/* comment */}}x{{- /* c2 */ -}}\n  y"), "xy");
  assert.equal(render("[\n  {{- 3 }}\n]"), "[3\n]");
  assert.equal(render("{{-3}}"), "-3");
});

test("cat returns a file without its final newline, and nothing for a missing file", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "anvil-template-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "token"), "t0ken\n");
  assert.equal(render(`[{{ cat "${dir}/token" }}][{{ cat "${dir}/missing" }}]`), "[t0ken][]");
});

test("credential reads $CREDENTIALS_DIRECTORY/<name> and falls back to the environment", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "anvil-template-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "hmac"), "from-file\n");
  withEnv({ CREDENTIALS_DIRECTORY: dir, hmac: "from-env", other: "other-env" }, () => {
    assert.equal(
      render('{{ credential "hmac" }}|{{ credential "other" }}|{{ credential "none" }}|'),
      "from-file|other-env||",
    );
  });
  withEnv({ CREDENTIALS_DIRECTORY: undefined, hmac: "from-env" }, () => {
    assert.equal(render('{{ credential "hmac" }}'), "from-env");
  });
});

test("parse errors name the file and line", () => {
  assert.throws(() => render('[\n  {\n    "id": "{{ foo }}"\n'), {
    name: "TemplateError",
    message: 'template: hooks.json:3: function "foo" not defined',
  });
  assert.throws(() => render("a\n{{ $y }}"), { message: 'template: hooks.json:2: undefined variable "$y"' });
  assert.throws(() => render("{{ if 1 }}\n"), { message: "template: hooks.json:2: unexpected EOF" });
  assert.throws(() => render("x\n{{ end }}"), { message: "template: hooks.json:2: unexpected {{end}}" });
  assert.throws(() => render('x {{ "a"\n'), {
    message: "template: hooks.json:2: unclosed action started at hooks.json:1",
  });
  assert.throws(() => render('{{ "a" | "b" }}'), {
    message: "template: hooks.json:1: non executable command in pipeline stage 2",
  });
  assert.throws(() => render("{{/* open"), { message: "template: hooks.json:1: unclosed comment" });
});

test("execution errors name the file, line and what failed", () => {
  const error = (text: string) => {
    try {
      render(text);
    } catch (caught) {
      assert.ok(caught instanceof TemplateError);
      return caught.message;
    }
    assert.fail("no error");
  };
  assert.equal(
    error("\n\n{{ getenv }}"),
    "template: hooks.json:3: wrong number of args for getenv: want 1 got 0",
  );
  assert.equal(error("{{ getenv 1 }}"), "template: hooks.json:1: expected string; found 1");
  assert.equal(error("{{ getenv . }}"), "template: hooks.json:1: invalid value; expected string");
  assert.equal(
    error('{{ index "abc" 5 }}'),
    "template: hooks.json:1: error calling index: index out of range: 5",
  );
  assert.equal(
    error('{{ eq "a" 1 }}'),
    "template: hooks.json:1: error calling eq: incompatible types for comparison",
  );
  assert.equal(error("{{ nil }}"), "template: hooks.json:1: nil is not a command");
  assert.equal(error("{{ range 3 }}x{{ end }}"), "template: hooks.json:1: range can't iterate over 3");
  assert.equal(error('{{ template "x" }}'), 'template: hooks.json:1: template "x" not defined');
});
