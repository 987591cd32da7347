// Command-line behaviour that ends without serving: -version, flag errors, -list-cipher-suites,
// -setuid/-setgid on Linux, no hooks loaded, -secure without a certificate. Both programs run with
// the same arguments; exit code, stdout and stderr must match (log timestamps aside).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { freePort } from "@anvil/core/testing";
import { webhookInstalled } from "./harness/harness.ts";
import { fixturesDir } from "./harness/pair.ts";
import { anvilCommand, type ServerCommand, webhookCommand } from "./harness/servers.ts";

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface CliCase {
  name: string;
  args: string[];
  /** webhook's outcome, stderr already passed through `stderrPart`. */
  want: Outcome;
  /** The part of stderr that is compared, when the rest may legitimately differ. */
  stderrPart?: (stderr: string) => string;
  /** Why anvil deliberately behaves otherwise (a later upstream feature): only webhook is checked. */
  anvilDiffers?: string;
}

/** Go's flag usage text lists every flag, and anvil has more: only the error line is compared. */
const firstLine = (text: string) => text.split("\n")[0];
/** The startup log before a fatal error is not the point: only its final lines are compared. */
const lastLines = (count: number) => (text: string) =>
  text
    .split("\n")
    .slice(-count - 1)
    .join("\n");

const hooks = path.join(fixturesDir, "routing-more.yaml");
/** Stands for a port each program gets of its own: run together, they must not race for one. */
const port = "<port>";
const withPorts = async (args: string[]) =>
  Promise.all(args.map(async (arg) => (arg === port ? String(await freePort()) : arg)));
const noHooks =
  "[webhook] <time> couldn't load any hooks from file!\n" +
  "aborting webhook execution since the -verbose flag is set to false.\n" +
  "If, for some reason, you want webhook to start without the hooks, either use -verbose flag, or -nopanic\n";

const cases: CliCase[] = [
  { name: "-version", args: ["-version"], want: { code: 0, stdout: "webhook version 2.8.0\n", stderr: "" } },
  {
    name: "--version",
    args: ["--version"],
    want: { code: 0, stdout: "webhook version 2.8.0\n", stderr: "" },
  },
  {
    name: "-version=true",
    args: ["-version=true"],
    want: { code: 0, stdout: "webhook version 2.8.0\n", stderr: "" },
  },
  {
    name: "-setuid without -setgid",
    args: ["-setuid", "1000"],
    want: { code: 1, stdout: "error: setuid and setgid options must be used together\n", stderr: "" },
  },
  {
    name: "-setuid and -setgid on Linux",
    args: ["-setgid", "1000", "-setuid", "1000", "-hooks", hooks],
    anvilDiffers: "2.8.2 drops privileges on Linux and anvil follows it (spec §9): it starts serving",
    want: {
      code: 1,
      stdout: "",
      stderr: "[webhook] <time> error dropping privileges: setuid and setgid not supported on linux\n",
    },
  },
  {
    name: "unknown -tls-min-version",
    args: ["-tls-min-version", "9", "-list-cipher-suites"],
    want: { code: 1, stdout: "", stderr: "<time> error: unknown minimum TLS version: 9\n" },
  },
  {
    name: "-list-cipher-suites at TLS 1.3",
    args: ["-tls-min-version", "1.3", "-list-cipher-suites"],
    want: {
      code: 0,
      stdout: "TLS_AES_128_GCM_SHA256\nTLS_AES_256_GCM_SHA384\nTLS_CHACHA20_POLY1305_SHA256\n",
      stderr: "",
    },
  },
  {
    name: "-list-cipher-suites at the default minimum",
    args: ["-list-cipher-suites"],
    want: { code: 0, stdout: listedBy1_2(), stderr: "" },
  },
  {
    name: "no hooks loaded, not verbose",
    args: ["-hooks", "/nonexistent/hooks.json"],
    want: { code: 1, stdout: noHooks, stderr: "" },
  },
  {
    name: "-secure without a certificate returns silently",
    args: ["-secure", "-hooks", hooks, "-ip", "127.0.0.1", "-port", port, "-cert", "/nonexistent/cert.pem"],
    want: { code: 0, stdout: "", stderr: "" },
  },
  {
    name: "duplicate id across -hooks files is fatal, silently without -verbose",
    args: ["-hooks", hooks, "-hooks", hooks, "-ip", "127.0.0.1", "-port", port],
    want: { code: 1, stdout: "", stderr: "" },
  },
  {
    name: "duplicate id across -hooks files, -verbose",
    args: ["-hooks", hooks, "-hooks", hooks, "-ip", "127.0.0.1", "-port", port, "-verbose"],
    stderrPart: lastLines(2),
    want: {
      code: 1,
      stdout: "",
      stderr:
        "[webhook] <time> error: hook with the id from-yaml has already been loaded!\n" +
        "please check your hooks file for duplicate hooks ids!\n",
    },
  },
  {
    name: "bad flag value",
    args: ["-port", "abc"],
    stderrPart: firstLine,
    want: { code: 2, stdout: "", stderr: 'invalid value "abc" for flag -port: parse error' },
  },
  {
    name: "unknown flag",
    args: ["-no-such-flag"],
    stderrPart: firstLine,
    want: { code: 2, stdout: "", stderr: "flag provided but not defined: -no-such-flag" },
  },
];

/** Go's cipher suite names usable at TLS 1.2, in the order webhook 2.8.0 prints them. */
function listedBy1_2(): string {
  return `${[
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
  ].join("\n")}\n`;
}

function runProgram(command: ServerCommand, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(command.file, [...command.args, ...args], { timeout: 10_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      const time = /\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d/g;
      resolve({ code, stdout: stdout.replace(time, "<time>"), stderr: stderr.replace(time, "<time>") });
    });
  });
}

function comparable(outcome: Outcome, c: CliCase): Outcome {
  return c.stderrPart ? { ...outcome, stderr: c.stderrPart(outcome.stderr) } : outcome;
}

const title = "command line without serving";
if (webhookInstalled(title)) {
  describe(title, () => {
    for (const c of cases) {
      test(c.name, async () => {
        const [webhook, anvil] = await Promise.all([
          runProgram(webhookCommand(), await withPorts(c.args)),
          c.anvilDiffers ? undefined : runProgram(anvilCommand(), await withPorts(c.args)),
        ]);
        assert.deepEqual(comparable(webhook, c), c.want, "webhook (the case itself is wrong)");
        if (anvil)
          assert.deepEqual(comparable(anvil, c), comparable(webhook, c), "anvil behaves differently");
      });
    }
  });
}
