import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  defaultHooksConfig,
  type FlagsOutcome,
  type HooksConfig,
  parseFlags,
  usageText,
} from "../../src/cli/flags.ts";

function config(argv: string[]): HooksConfig {
  const outcome = parseFlags(argv);
  assert.ok("config" in outcome, `expected a config, got ${JSON.stringify(outcome)}`);
  return outcome.config;
}

function failure(argv: string[]): { exitCode: number; firstLine: string; stderr: string } {
  const outcome: FlagsOutcome = parseFlags(argv);
  assert.ok("exitCode" in outcome, `expected a failure, got ${JSON.stringify(outcome)}`);
  return { exitCode: outcome.exitCode, firstLine: outcome.stderr.split("\n")[0], stderr: outcome.stderr };
}

describe("Go flag syntax", () => {
  test("defaults are webhook's, with hooks.json when no -hooks is given", () => {
    assert.deepEqual(config([]), { ...defaultHooksConfig(), hooks: ["hooks.json"] });
    // The two size limits webhook lacks default high enough that webhook's users do not meet them.
    assert.equal(defaultHooksConfig().maxRequestBody, 256 * 1024 * 1024);
    assert.equal(defaultHooksConfig().maxCommandOutput, 256 * 1024 * 1024);
    assert.equal(config(["-max-command-output", "1024"]).maxCommandOutput, 1024);
  });

  test("-flag value, -flag=value, --flag value and --flag=value", () => {
    assert.equal(config(["-port", "9100"]).port, 9100);
    assert.equal(config(["-port=9101"]).port, 9101);
    assert.equal(config(["--port", "9102"]).port, 9102);
    assert.equal(config(["--port=9103"]).port, 9103);
    assert.equal(config(["-ip", "127.0.0.1", "-urlprefix="]).urlprefix, "");
  });

  test("bool flags take no separate value; -flag=false and Go's spellings work", () => {
    assert.equal(config(["-verbose"]).verbose, true);
    assert.equal(config(["-verbose=false"]).verbose, false);
    assert.equal(config(["--nopanic=T"]).nopanic, true);
    assert.equal(config(["-hotreload=0"]).hotreload, false);
    // A separate word after a bool flag is not its value: it ends the flags, as in Go.
    const parsed = config(["-verbose", "false", "-port", "1"]);
    assert.equal(parsed.verbose, true);
    assert.equal(parsed.port, 9000);
  });

  test("-hooks and -header repeat; -header splits at the first =", () => {
    const parsed = config([
      "-hooks",
      "a.json",
      "-hooks=b.yaml",
      "-header",
      "X-A=1",
      "-header",
      "X-Multi=a=b",
    ]);
    assert.deepEqual(parsed.hooks, ["a.json", "b.yaml"]);
    assert.deepEqual(parsed.headers, [
      { name: "X-A", value: "1" },
      { name: "X-Multi", value: "a=b" },
    ]);
  });

  test("a later value of a plain flag wins", () => {
    assert.equal(config(["-port", "1", "-port", "2"]).port, 2);
  });

  test("parsing stops at the first non-flag argument and at --", () => {
    assert.equal(config(["stray", "-port", "1"]).port, 9000);
    assert.equal(config(["--", "-port", "1"]).port, 9000);
    assert.equal(config(["-", "-port", "1"]).port, 9000);
  });

  test("integers as strconv.ParseInt(s, 0, 64) reads them", () => {
    assert.equal(config(["-port", "0x1F"]).port, 31);
    assert.equal(config(["-port", "0755"]).port, 493);
    assert.equal(config(["-port", "0b101"]).port, 5);
    assert.equal(config(["-port", "1_000"]).port, 1000);
    assert.equal(config(["-max-multipart-mem", "-1"]).maxMultipartMem, -1);
  });

  test("-http-methods is cleaned like webhook: spaces removed, upper-cased, split at commas", () => {
    assert.deepEqual(config(["-http-methods", " post, Put "]).httpMethods, ["POST", "PUT"]);
    assert.deepEqual(config(["-http-methods", ""]).httpMethods, []);
  });

  test("-command-timeout takes a Go duration", () => {
    assert.equal(config(["-command-timeout", "1m30s"]).commandTimeout, 90000);
    assert.equal(config(["-command-timeout=250ms"]).commandTimeout, 250);
    assert.equal(config(["-command-timeout", "0"]).commandTimeout, 0);
  });
});

describe("flag errors, as Go's flag package reports them (exit status 2, usage follows)", () => {
  test("unknown flag", () => {
    const result = failure(["-x"]);
    assert.equal(result.exitCode, 2);
    assert.equal(result.firstLine, "flag provided but not defined: -x");
    assert.ok(result.stderr.endsWith(usageText()));
  });

  test("bad values", () => {
    assert.equal(failure(["-port", "abc"]).firstLine, 'invalid value "abc" for flag -port: parse error');
    assert.equal(
      failure(["-port", "99999999999999999999"]).firstLine,
      'invalid value "99999999999999999999" for flag -port: value out of range',
    );
    assert.equal(failure(["-port", "08"]).firstLine, 'invalid value "08" for flag -port: parse error');
    assert.equal(
      failure(["-verbose=maybe"]).firstLine,
      'invalid boolean value "maybe" for -verbose: parse error',
    );
    assert.equal(
      failure(["-header", "novalue"]).firstLine,
      'invalid value "novalue" for flag -header: header flag must be in name=value format',
    );
    assert.equal(
      failure(["-command-timeout", "soon"]).firstLine,
      'invalid value "soon" for flag -command-timeout: parse error',
    );
  });

  test("missing argument and bad syntax", () => {
    assert.equal(failure(["-port"]).firstLine, "flag needs an argument: -port");
    assert.equal(failure(["---port"]).firstLine, "bad flag syntax: ---port");
    assert.equal(failure(["-=1"]).firstLine, "bad flag syntax: -=1");
  });

  test("-h and -help print the usage and exit 0", () => {
    for (const flag of ["-h", "-help", "--help"]) {
      const outcome = parseFlags([flag]);
      assert.deepEqual(outcome, { exitCode: 0, stderr: usageText() });
    }
  });
});

describe("usage text", () => {
  test("has Go's layout and webhook's wording", () => {
    const usage = usageText();
    assert.ok(
      usage.startsWith(
        'Usage of webhook:\n  -cert string\n    \tpath to the HTTPS certificate pem file (default "cert.pem")\n',
      ),
    );
    assert.ok(
      usage.includes(
        "  -header value\n    \tresponse header to return, specified in format name=value, use multiple times to set multiple headers\n",
      ),
    );
    assert.ok(
      usage.includes(
        "  -max-multipart-mem int\n    \tmaximum memory in bytes for parsing multipart form data before disk caching (default 1048576)\n",
      ),
    );
    assert.ok(
      usage.includes(
        '  -http-methods string\n    \tset default allowed HTTP methods (ie. "POST"); separate methods with comma\n',
      ),
    );
    assert.ok(usage.includes("  -verbose\n    \tshow verbose output\n"));
    assert.ok(usage.includes("  -command-timeout duration\n"));
    const names = [...usage.matchAll(/^ {2}-(\S+)/gm)].map((match) => match[1]);
    assert.deepEqual(names, [...names].sort());
  });
});
