// webhook's command line, parsed with Go's `flag` package rules so that existing service files and
// scripts keep working: `-flag value`, `-flag=value`, `--flag`, bool flags without a value,
// repeatable -hooks/-header, parsing stops at the first non-flag argument.

import { parseGoDuration } from "../go/duration.ts";
import { parseInt64 } from "../go/strconv.ts";
import type { ResponseHeader } from "../types.ts";

/** Every flag's parsed value. `anvil serve` passes a partial one; missing fields take these defaults. */
export interface HooksConfig {
  hooks: string[];
  ip: string;
  port: number;
  urlprefix: string;
  template: boolean;
  hotreload: boolean;
  verbose: boolean;
  debug: boolean;
  logfile: string;
  nopanic: boolean;
  /** -header name=value, in order given (split at the first `=`). */
  headers: ResponseHeader[];
  /** -http-methods, spaces removed and upper-cased, split at commas; empty = any method. */
  httpMethods: string[];
  xRequestId: boolean;
  xRequestIdLimit: number;
  maxMultipartMem: number;
  secure: boolean;
  cert: string;
  key: string;
  tlsMinVersion: string;
  cipherSuites: string;
  listCipherSuites: boolean;
  setuid: number;
  setgid: number;
  pidfile: string;
  /** Unix socket path; when set, ip and port are ignored (webhook 2.8.2). */
  socket: string;
  version: boolean;
  /** Beyond webhook: kill a command after this many milliseconds; 0 = never (webhook's behaviour). */
  commandTimeout: number;
  /** Beyond webhook: request bodies larger than this are answered 413. */
  maxRequestBody: number;
  /** Beyond webhook: captured command output is cut at this many bytes, and the answer says so. */
  maxCommandOutput: number;
  /** Beyond webhook: processes that serve the port together (SO_REUSEPORT); 1 = webhook's single process. */
  workers: number;
}

/**
 * The default of -max-request-body and -max-command-output. webhook has neither limit; this one is
 * far above what webhooks send (GitHub caps its payloads at 25 MB) and well below what one request
 * could make this process hold (Node cannot decode more than 512 MiB of body as text).
 */
const DEFAULT_SIZE_LIMIT = 256 * 1024 * 1024;

export function defaultHooksConfig(): HooksConfig {
  return {
    hooks: [],
    ip: "0.0.0.0",
    port: 9000,
    urlprefix: "hooks",
    template: false,
    hotreload: false,
    verbose: false,
    debug: false,
    logfile: "",
    nopanic: false,
    headers: [],
    httpMethods: [],
    xRequestId: false,
    xRequestIdLimit: 0,
    maxMultipartMem: 1048576,
    secure: false,
    cert: "cert.pem",
    key: "key.pem",
    tlsMinVersion: "1.2",
    cipherSuites: "",
    listCipherSuites: false,
    setuid: 0,
    setgid: 0,
    pidfile: "",
    socket: "",
    version: false,
    commandTimeout: 0,
    maxRequestBody: DEFAULT_SIZE_LIMIT,
    maxCommandOutput: DEFAULT_SIZE_LIMIT,
    workers: 1,
  };
}

type FlagKind = "bool" | "string" | "int" | "duration" | "value";

interface FlagSpec {
  kind: FlagKind;
  usage: string;
  /** Shown as `(default ...)` in the usage text when not the zero value, like Go. */
  shownDefault?: string;
  set(config: HooksConfig, value: string): string | undefined; // returns an error text
}

const PARSE_ERROR = "parse error";

function stringFlag(
  usage: string,
  apply: (c: HooksConfig, v: string) => void,
  shownDefault?: string,
): FlagSpec {
  return {
    kind: "string",
    usage,
    shownDefault: shownDefault === undefined ? undefined : `"${shownDefault}"`,
    set(config, value) {
      apply(config, value);
      return undefined;
    },
  };
}

function boolFlag(usage: string, apply: (c: HooksConfig, v: boolean) => void): FlagSpec {
  return {
    kind: "bool",
    usage,
    set(config, value) {
      const parsed = parseGoBool(value);
      if (parsed === undefined) return PARSE_ERROR;
      apply(config, parsed);
      return undefined;
    },
  };
}

function intFlag(usage: string, apply: (c: HooksConfig, v: number) => void, shownDefault?: number): FlagSpec {
  return {
    kind: "int",
    usage,
    shownDefault: shownDefault === undefined ? undefined : String(shownDefault),
    set(config, value) {
      const parsed = parseGoInt(value);
      if (typeof parsed === "string") return parsed;
      apply(config, parsed);
      return undefined;
    },
  };
}

const FLAGS: Record<string, FlagSpec> = {
  cert: stringFlag("path to the HTTPS certificate pem file", (c, v) => (c.cert = v), "cert.pem"),
  "cipher-suites": stringFlag(
    "comma-separated list of supported TLS cipher suites",
    (c, v) => (c.cipherSuites = v),
  ),
  "command-timeout": {
    kind: "duration",
    usage:
      "kill a hook's command (and its process group) after this long, e.g. 30s or 5m; a hook's command-timeout overrides it; 0 means no limit",
    set(config, value) {
      try {
        const ms = parseGoDuration(value);
        if (ms < 0) return "must not be negative";
        config.commandTimeout = ms;
        return undefined;
      } catch {
        return PARSE_ERROR;
      }
    },
  },
  debug: boolFlag("show debug output", (c, v) => (c.debug = v)),
  header: {
    kind: "value",
    usage:
      "response header to return, specified in format name=value, use multiple times to set multiple headers",
    set(config, value) {
      const at = value.indexOf("=");
      if (at < 0) return "header flag must be in name=value format";
      config.headers.push({ name: value.slice(0, at), value: value.slice(at + 1) });
      return undefined;
    },
  },
  hooks: {
    kind: "value",
    usage:
      "path to the json file containing defined hooks the webhook should serve, use multiple times to load from different files",
    set(config, value) {
      config.hooks.push(value);
      return undefined;
    },
  },
  hotreload: boolFlag(
    "watch hooks file for changes and reload them automatically",
    (c, v) => (c.hotreload = v),
  ),
  "http-methods": stringFlag(
    'set default allowed HTTP methods (ie. "POST"); separate methods with comma',
    (c, v) => (c.httpMethods = parseMethodList(v)),
  ),
  ip: stringFlag("ip the webhook should serve hooks on", (c, v) => (c.ip = v), "0.0.0.0"),
  key: stringFlag("path to the HTTPS certificate private key pem file", (c, v) => (c.key = v), "key.pem"),
  "list-cipher-suites": boolFlag("list available TLS cipher suites", (c, v) => (c.listCipherSuites = v)),
  logfile: stringFlag(
    "send log output to a file; implicitly enables verbose logging",
    (c, v) => (c.logfile = v),
  ),
  "max-multipart-mem": intFlag(
    "maximum memory in bytes for parsing multipart form data before disk caching",
    (c, v) => (c.maxMultipartMem = v),
    1048576,
  ),
  "max-command-output": intFlag(
    "maximum command output in bytes a hook returns; beyond it the output is cut and the answer says so",
    (c, v) => (c.maxCommandOutput = v),
    DEFAULT_SIZE_LIMIT,
  ),
  "max-request-body": intFlag(
    "maximum request body size in bytes; larger requests are answered 413",
    (c, v) => (c.maxRequestBody = v),
    DEFAULT_SIZE_LIMIT,
  ),
  nopanic: boolFlag(
    "do not panic if hooks cannot be loaded when webhook is not running in verbose mode",
    (c, v) => (c.nopanic = v),
  ),
  pidfile: stringFlag("create PID file at the given path", (c, v) => (c.pidfile = v)),
  port: intFlag("port the webhook should serve hooks on", (c, v) => (c.port = v), 9000),
  secure: boolFlag("use HTTPS instead of HTTP", (c, v) => (c.secure = v)),
  setgid: intFlag(
    "set group ID after opening listening port; must be used with setuid",
    (c, v) => (c.setgid = v),
  ),
  setuid: intFlag(
    "set user ID after opening listening port; must be used with setgid",
    (c, v) => (c.setuid = v),
  ),
  socket: stringFlag(
    "path to a Unix socket (e.g. /tmp/webhook.sock) to use instead of listening on an ip and port; if specified, the ip and port options are ignored",
    (c, v) => (c.socket = v),
  ),
  template: boolFlag("parse hooks file as a Go template", (c, v) => (c.template = v)),
  "tls-min-version": stringFlag(
    "minimum TLS version (1.0, 1.1, 1.2, 1.3)",
    (c, v) => (c.tlsMinVersion = v),
    "1.2",
  ),
  urlprefix: stringFlag(
    "url prefix to use for served hooks (protocol://yourserver:port/PREFIX/:hook-id)",
    (c, v) => (c.urlprefix = v),
    "hooks",
  ),
  verbose: boolFlag("show verbose output", (c, v) => (c.verbose = v)),
  version: boolFlag("display webhook version and quit", (c, v) => (c.version = v)),
  workers: {
    kind: "int",
    usage:
      "number of processes serving the port together, to use more than one CPU core; not with -socket, -setuid or hooks that set max-concurrency",
    shownDefault: "1",
    set(config, value) {
      const parsed = parseGoInt(value);
      if (typeof parsed === "string") return parsed;
      if (parsed < 1) return "must be at least 1";
      config.workers = parsed;
      return undefined;
    },
  },
  "x-request-id": boolFlag(
    "use X-Request-Id header, if present, as request ID",
    (c, v) => (c.xRequestId = v),
  ),
  "x-request-id-limit": intFlag(
    "truncate X-Request-Id header to limit; default no limit",
    (c, v) => (c.xRequestIdLimit = v),
  ),
};

/** The text Go's flag package prints for -h (same layout, flags sorted by name). */
export function usageText(): string {
  let text = "Usage of webhook:\n";
  for (const name of Object.keys(FLAGS).sort()) {
    const spec = FLAGS[name];
    const typeName = spec.kind === "bool" ? "" : ` ${spec.kind}`;
    const defaultText = spec.shownDefault === undefined ? "" : ` (default ${spec.shownDefault})`;
    text += `  -${name}${typeName}\n    \t${spec.usage}${defaultText}\n`;
  }
  return text;
}

export type FlagsOutcome =
  | { config: HooksConfig }
  /** -h or a bad flag: print `stderr` and exit with `exitCode` (0 for help, 2 for errors, as Go). */
  | { exitCode: number; stderr: string };

export function parseFlags(argv: string[]): FlagsOutcome {
  const config = defaultHooksConfig();
  const fail = (message: string): FlagsOutcome => ({ exitCode: 2, stderr: `${message}\n${usageText()}` });
  let index = 0;
  while (index < argv.length) {
    const arg = argv[index];
    if (arg.length < 2 || arg[0] !== "-") break;
    const dashes = arg[1] === "-" ? 2 : 1;
    if (dashes === 2 && arg.length === 2) break; // "--" ends the flags
    let name = arg.slice(dashes);
    if (name === "" || name[0] === "-" || name[0] === "=") return fail(`bad flag syntax: ${arg}`);
    index++;
    let value: string | undefined;
    const equals = name.indexOf("=", 1);
    if (equals > 0) {
      value = name.slice(equals + 1);
      name = name.slice(0, equals);
    }
    const spec = Object.hasOwn(FLAGS, name) ? FLAGS[name] : undefined;
    if (spec === undefined) {
      if (name === "h" || name === "help") return { exitCode: 0, stderr: usageText() };
      return fail(`flag provided but not defined: -${name}`);
    }
    if (spec.kind === "bool") {
      const error = spec.set(config, value ?? "true");
      if (error !== undefined) return fail(`invalid boolean value "${value}" for -${name}: ${error}`);
      continue;
    }
    if (value === undefined) {
      if (index >= argv.length) return fail(`flag needs an argument: -${name}`);
      value = argv[index++];
    }
    const error = spec.set(config, value);
    if (error !== undefined) return fail(`invalid value "${value}" for flag -${name}: ${error}`);
  }
  if (config.hooks.length === 0) config.hooks.push("hooks.json");
  return { config };
}

/** webhook cleans -http-methods by removing spaces and upper-casing, then splits at commas. */
export function parseMethodList(text: string): string[] {
  const cleaned = text.replaceAll(" ", "").toUpperCase();
  return cleaned === "" ? [] : cleaned.split(",");
}

/** strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false;
  return undefined;
}

/** An int flag's value: strconv.ParseInt(text, 0, 64), its errors worded as the flag package words them. */
function parseGoInt(text: string): number | string {
  const parsed = parseInt64(text);
  if (parsed === "invalid syntax") return PARSE_ERROR;
  return typeof parsed === "bigint" ? Number(parsed) : parsed;
}
