// Decoding rules were checked against Debian's webhook 2.8.0 loading the same files (-verbose).
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, formatProblem, loadHooksFile, parseHooksFile } from "../../src/config/hooks-file.ts";
import type { Hook } from "../../src/types.ts";

const parse = (text: string) => parseHooksFile(text, "hooks.yaml");
const hooksOf = (text: string) => parse(text).hooks;
const problemLines = (text: string) => parse(text).problems.map(formatProblem);

/** The names of a hook's string arguments, i.e. how each scalar became a string. */
function argumentNames(values: string[]): string[] {
  const list = values.map((value) => `    - source: string\n      name: ${value}`).join("\n");
  const [hook] = hooksOf(`- id: a\n  execute-command: /bin/echo\n  pass-arguments-to-command:\n${list}\n`);
  return hook.passArgumentsToCommand.map((argument) => argument.name);
}

test("a JSON hooks file decodes into hooks with every field", () => {
  const text = `[
  {
    "id": "redeploy",
    "execute-command": "/srv/redeploy.sh",
    "command-working-directory": "/srv",
    "response-message": "Redeploying",
    "response-headers": [{"name": "Access-Control-Allow-Origin", "value": "*"}],
    "include-command-output-in-response": true,
    "include-command-output-in-response-on-error": true,
    "pass-arguments-to-command": [{"source": "payload", "name": "head_commit.id"}],
    "pass-environment-to-command": [{"source": "header", "name": "X-Forge-Event", "envname": "EVENT"}],
    "pass-file-to-command": [{"source": "payload", "name": "data", "base64decode": true}],
    "parse-parameters-as-json": [{"source": "payload", "name": "payload"}],
    "trigger-rule": {"and": [
      {"match": {"type": "payload-hmac-sha256", "secret": "s", "parameter": {"source": "header", "name": "X-Hub-Signature-256"}}},
      {"match": {"type": "value", "value": "refs/heads/main", "parameter": {"source": "payload", "name": "ref"}}}
    ]},
    "trigger-rule-mismatch-http-response-code": 400,
    "success-http-response-code": 202,
    "http-methods": ["post ", " Put"],
    "incoming-payload-content-type": "application/json",
    "trigger-signature-soft-failures": true,
  }
]`;
  const { hooks, problems } = parse(text);
  const expected: Hook = {
    id: "redeploy",
    executeCommand: "/srv/redeploy.sh",
    commandWorkingDirectory: "/srv",
    responseMessage: "Redeploying",
    responseHeaders: [{ name: "Access-Control-Allow-Origin", value: "*" }],
    captureCommandOutput: true,
    captureCommandOutputOnError: true,
    passArgumentsToCommand: [{ source: "payload", name: "head_commit.id", envname: "", base64decode: false }],
    passEnvironmentToCommand: [
      { source: "header", name: "X-Forge-Event", envname: "EVENT", base64decode: false },
    ],
    passFileToCommand: [{ source: "payload", name: "data", envname: "", base64decode: true }],
    jsonStringParameters: [{ source: "payload", name: "payload", envname: "", base64decode: false }],
    triggerRule: {
      kind: "and",
      rules: [
        {
          kind: "match",
          match: {
            type: "payload-hmac-sha256",
            regex: "",
            secret: "s",
            value: "",
            ipRange: "",
            parameter: { source: "header", name: "X-Hub-Signature-256", envname: "", base64decode: false },
          },
        },
        {
          kind: "match",
          match: {
            type: "value",
            regex: "",
            secret: "",
            value: "refs/heads/main",
            ipRange: "",
            parameter: { source: "payload", name: "ref", envname: "", base64decode: false },
          },
        },
      ],
    },
    triggerRuleMismatchHttpResponseCode: 400,
    successHttpResponseCode: 202,
    httpMethods: ["POST", "PUT"],
    incomingPayloadContentType: "application/json",
    triggerSignatureSoftFailures: true,
    commandTimeout: 0,
    maxConcurrency: 0,
    maxQueue: 0,
    streamCommandOutput: false,
    source: "hooks.yaml",
  };
  assert.deepEqual(hooks, [expected]);
  assert.deepEqual(problems, []);
});

test("keys match case-insensitively; of equal keys the last in sorted order wins; unknown keys are ignored", () => {
  const hooks = hooksOf(`
- ID: upper
  Execute-Command: /bin/true
  Pass-Arguments-To-Command: [{SOURCE: string, NAME: x}]
  unknown: [1, {a: b}]
- {id: a, ID: b}
- {ID: a, id: b}
- {id: a, id: b}
`);
  assert.deepEqual(
    hooks.map((hook) => hook.id),
    ["upper", "a", "b", "b"],
  );
  assert.equal(hooks[0].executeCommand, "/bin/true");
  assert.deepEqual(hooks[0].passArgumentsToCommand, [
    { source: "string", name: "x", envname: "", base64decode: false },
  ]);
});

test("YAML 1.1 scalars become the strings webhook sees", () => {
  assert.deepEqual(argumentNames(["n", "no", "yes", "on", "off", "Y", "tRUE", "~", "''"]), [
    "false",
    "false",
    "true",
    "true",
    "false",
    "true",
    "tRUE",
    "",
    "",
  ]);
  assert.deepEqual(argumentNames(["1.50", "3.14159265", "0755", "0x1F", "1_000", "0b101", "+12", "08"]), [
    "1.5",
    "3.1415927",
    "493",
    "31",
    "1000",
    "5",
    "12",
    "8",
  ]);
  assert.deepEqual(
    argumentNames(["1e21", "1e+5", "1.0e5", "0.00001", "100000000.0", ".inf", "-.inf", ".nan"]),
    ["1e21", "100000", "1.0e5", "1e-05", "1e+08", "+Inf", "-Inf", "NaN"],
  );
  assert.deepEqual(
    argumentNames([
      "12345678901234567890",
      "-9223372036854775809",
      "2001-12-14",
      "1:20",
      "'0755'",
      "!!str 12",
    ]),
    ["12345678901234567890", "-9.223372e+18", "2001-12-14", "1:20", "0755", "12"],
  );
});

test("quoted scalars continue to their closing quote whatever the indentation, as in yaml.v2", () => {
  const [single, double, deeper] = hooksOf(
    [
      "- id: single",
      "  response-message: 'a",
      "  b",
      "",
      "\tc''d'",
      "- id: double",
      '  response-message: "x',
      " y\\",
      '   z"',
      "- id: deeper",
      "  response-message: 'p",
      "      q'",
      "  http-methods: [GET]",
    ].join("\n"),
  );
  assert.equal(single.responseMessage, "a b\nc'd");
  assert.equal(double.responseMessage, "x yz");
  assert.equal(deeper.responseMessage, "p q");
  assert.deepEqual(deeper.httpMethods, ["GET"]);
  // Lines keep their numbers; a quote that is never closed is still an error.
  assert.throws(() => parse("- id: a\n  response-message: 'a\n  b'\n  success-http-response-code: x\n"), {
    message: 'hooks.yaml: line 4: hook "a": success-http-response-code: expected an integer, found a string',
  });
  assert.throws(() => parse("- id: a\n  response-message: 'open\n"), /Missing closing 'quote/);
  assert.throws(() => parse("- id: 'a\n---\n- id: b'\n"), /Missing closing 'quote/);
});

test("integers accept whole floats; anchors and merge keys work as in yaml.v2", () => {
  const hooks = hooksOf(`
- &base
  id: a
  execute-command: /bin/true
  success-http-response-code: 200.0
  trigger-rule-mismatch-http-response-code: 1e+3
- id: x
  <<: *base
- <<: [*base, {id: z}]
- <<: [{id: z}, *base]
  id: own
`);
  assert.deepEqual(
    hooks.map((hook) => [
      hook.id,
      hook.executeCommand,
      hook.successHttpResponseCode,
      hook.triggerRuleMismatchHttpResponseCode,
    ]),
    [
      ["a", "/bin/true", 200, 1000],
      ["a", "/bin/true", 200, 1000],
      ["a", "/bin/true", 200, 1000],
      ["own", "/bin/true", 200, 1000],
    ],
  );
});

test("trigger rules: first of and, or, not, match; {} never matches; null or absent means no rule", () => {
  const [both, empty, absent, nullRule, nested] = hooksOf(`
- {id: both, execute-command: x, trigger-rule: {match: {type: value}, or: [], and: ~}}
- {id: empty, execute-command: x, trigger-rule: {}}
- {id: absent, execute-command: x}
- {id: null, execute-command: x, trigger-rule: ~}
- {id: nested, execute-command: x, trigger-rule: {and: [~, {not: {}}]}}
`);
  assert.deepEqual(both.triggerRule, { kind: "or", rules: [] });
  assert.deepEqual(empty.triggerRule, { kind: "empty" });
  assert.equal(absent.triggerRule, undefined);
  assert.equal(nullRule.triggerRule, undefined);
  assert.deepEqual(nested.triggerRule, {
    kind: "and",
    rules: [{ kind: "empty" }, { kind: "not", rule: { kind: "empty" } }],
  });
});

test("http-methods are trimmed and upper-cased, empty entries dropped", () => {
  const [hook] = hooksOf(`- {id: a, execute-command: x, http-methods: [" post", "", ~, " ", get]}`);
  assert.deepEqual(hook.httpMethods, ["POST", "GET"]);
});

test("a value Go cannot decode fails the whole file, naming file, line, hook and field", () => {
  const fails = (text: string, message: string) =>
    assert.throws(() => parse(text), { name: "ConfigError", message });
  fails(
    '- id: a\n  success-http-response-code: "200"\n',
    'hooks.yaml: line 2: hook "a": success-http-response-code: expected an integer, found a string',
  );
  fails(
    "- id: a\n  success-http-response-code: 200.5\n",
    'hooks.yaml: line 2: hook "a": success-http-response-code: expected an integer, found a number (200.5)',
  );
  fails("- id: [a]\n", "hooks.yaml: line 1: hook #1: id: expected a string, found a list");
  fails(
    '- id: a\n  include-command-output-in-response: "true"\n',
    'hooks.yaml: line 2: hook "a": include-command-output-in-response: expected true or false, found a string',
  );
  fails(
    "- id: a\n  trigger-rule:\n    and:\n      - match: {parameter: x}\n",
    'hooks.yaml: line 4: hook "a": trigger-rule.and[0].match.parameter: expected an object, found a string',
  );
  fails("{id: a}\n", "hooks.yaml: line 1: expected a list of hooks at the top level, found an object");
  fails("- abc\n", "hooks.yaml: line 1: hook #1: expected an object, found a string");
  fails("- id: a\n - id: b\n", "hooks.yaml: line 2: All sequence items must start at the same column");
  fails("- id: !!float 1\n", "hooks.yaml: line 1: cannot decode !!int `1` as a !!float");
});

test("an empty file, a comment-only file and null entries load like webhook", () => {
  assert.deepEqual(hooksOf(""), []);
  assert.deepEqual(hooksOf("# nothing yet\n"), []);
  assert.deepEqual(
    hooksOf("- \n- id: b\n").map((hook) => hook.id),
    ["", "b"],
  );
  assert.deepEqual(
    hooksOf("- id: a\n---\n- id: b\n").map((hook) => hook.id),
    ["a"],
  );
});

test("anvil's optional fields: command-timeout, max-concurrency, max-queue, stream-command-output", () => {
  const [a, b, c] = hooksOf(`
- {id: a, execute-command: x, command-timeout: 1m30s, max-concurrency: 2, max-queue: 5, stream-command-output: true}
- {id: b, execute-command: x, command-timeout: 30}
- {id: c, execute-command: x, command-timeout: "500ms"}
`);
  assert.deepEqual(
    [a.commandTimeout, a.maxConcurrency, a.maxQueue, a.streamCommandOutput],
    [90_000, 2, 5, true],
  );
  assert.equal(b.commandTimeout, 30_000);
  assert.equal(c.commandTimeout, 500);
});

test("bad optional fields are problems, not failures: the hook loads with webhook's default", () => {
  const text =
    "- {id: a, execute-command: x, command-timeout: soon, max-concurrency: -1, max-queue: lots, stream-command-output: 1}\n";
  const [hook] = hooksOf(text);
  assert.deepEqual(
    [hook.commandTimeout, hook.maxConcurrency, hook.maxQueue, hook.streamCommandOutput],
    [0, 0, 0, false],
  );
  assert.deepEqual(problemLines(text), [
    'hooks file hooks.yaml: hook "a": command-timeout: expected a duration such as "30s" or "1m30s", or a number of seconds; no timeout applies',
    'hooks file hooks.yaml: hook "a": max-concurrency: negative value; 0 (unlimited) applies',
    'hooks file hooks.yaml: hook "a": max-queue: expected a whole number; 0 (unlimited) applies',
    'hooks file hooks.yaml: hook "a": stream-command-output: expected true or false; false applies',
  ]);
  assert.deepEqual(problemLines("- {id: a, execute-command: x, command-timeout: -5s}\n"), [
    'hooks file hooks.yaml: hook "a": command-timeout: negative timeout; no timeout applies',
  ]);
});

test("validation names file, hook and field of each problem, and the file still loads", () => {
  const text = `
- execute-command: /bin/true
- id: a
- id: a
  execute-command: /bin/false
- id: rules
  execute-command: /bin/true
  trigger-rule:
    or:
      - match: {type: payload-hmac-sha256, secret: "", parameter: {source: header, name: X-Sig}}
      - match: {type: scalr-signature}
      - match: {type: valeu, value: x, parameter: {source: url, name: t}}
      - match: {type: regex, regex: "a(b", parameter: {source: payload, name: ref}}
      - match: {type: ip-whitelist, ip-range: "10.0.0.0/8 192.168.1.300 ::1 10.1.0.0/33"}
      - not:
          match: {type: value, value: x, parameter: {source: Header, name: X}}
      - {}
- id: args
  execute-command: /bin/true
  pass-arguments-to-command: [{source: request, name: path}]
  pass-environment-to-command: [{source: body, name: x}]
  parse-parameters-as-json: [{source: payload, name: a.b}, {source: string, name: x}]
`;
  assert.equal(hooksOf(text).length, 5);
  assert.deepEqual(problemLines(text), [
    'hooks file hooks.yaml: hook "": id: hook #1 has no id: it answers at the bare URL prefix',
    'hooks file hooks.yaml: hook "a": execute-command: missing: a request that triggers the hook fails to run',
    'hooks file hooks.yaml: hook "a": id: duplicate id (hook #3; hook #2 has it too): the first one is used',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[0].match.secret: empty secret: anyone can compute a valid signature',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[1].match.secret: empty secret: anyone can compute a valid signature',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[2].match.type: unknown match type "valeu": the rule never matches',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[3].match.regex: invalid regex: error parsing regexp: missing closing ): `a(b` (requests answer 500)',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[4].match.ip-range: invalid entry "192.168.1.300": not an IP address or CIDR (requests answer 500)',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[4].match.ip-range: invalid entry "10.1.0.0/33": not an IP address or CIDR (requests answer 500)',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[5].not.match.parameter.source: unknown source "Header": the value is always missing',
    'hooks file hooks.yaml: hook "rules": trigger-rule.or[6]: rule has none of and, or, not, match: it never matches',
    'hooks file hooks.yaml: hook "args": pass-arguments-to-command[0].name: unknown request value "path" (use method or remote-addr)',
    'hooks file hooks.yaml: hook "args": pass-environment-to-command[0].source: unknown source "body": the value is always missing',
    'hooks file hooks.yaml: hook "args": parse-parameters-as-json[0].name: dotted name "a.b" is not supported (webhook 2.8.0 crashes the request)',
    'hooks file hooks.yaml: hook "args": parse-parameters-as-json[1].source: source "string" cannot be parsed as JSON (use header, url, query or payload)',
  ]);
});

test("loadHooksFile reads the file, optionally as a template, and words read errors like webhook", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "anvil-config-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "hooks.json");
  await writeFile(
    file,
    '[{"id": "t", "execute-command": "/bin/true", "response-message": "{{ getenv "ANVIL_T_MESSAGE" | js }}"}]',
  );
  process.env.ANVIL_T_MESSAGE = 'say "hi"';
  t.after(() => {
    delete process.env.ANVIL_T_MESSAGE;
  });
  const [rendered] = (await loadHooksFile(file, { template: true })).hooks;
  assert.equal(rendered.responseMessage, 'say "hi"');
  // Without -template the quotes inside the action break the JSON, as they do for webhook.
  await assert.rejects(loadHooksFile(file, { template: false }), { name: "ConfigError" });
  await assert.rejects(loadHooksFile(join(dir, "missing.json"), { template: false }), {
    name: "ConfigError",
    message: `open ${join(dir, "missing.json")}: no such file or directory`,
  });
  await writeFile(file, "[{{ nope }}]");
  await assert.rejects(loadHooksFile(file, { template: true }), (error) => {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.message, `template: ${file}:1: function "nope" not defined`);
    return true;
  });
});
