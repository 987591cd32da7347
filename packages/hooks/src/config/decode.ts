// Decodes parsed hooks file values into Hooks with Go encoding/json's rules, as webhook does: keys match
// case-insensitively (the last of equal keys wins, in sorted order), unknown keys are ignored, scalars
// become strings where a string is expected, and a value Go cannot store fails the whole file.

import { parseGoDuration } from "../go/duration.ts";
import type { Argument, Hook, MatchRule, ResponseHeader, Rule } from "../types.ts";
import { ConfigError, scalarText, type YamlValue } from "./yaml.ts";

/** A problem with one of anvil's own optional fields: reported, never fatal (webhook ignores them). */
export interface FieldProblem {
  field: string;
  message: string;
}

type Handler = (value: YamlValue, path: string) => void;

function describe(value: YamlValue): string {
  switch (value.kind) {
    case "null":
      return "null";
    case "bool":
      return `a boolean (${value.value})`;
    case "int":
    case "float":
      return `a number (${scalarText(value)})`;
    case "string":
      return "a string";
    case "list":
      return "a list";
    case "map":
      return "an object";
  }
}

const int64Limit = 2 ** 63;

class HookDecoder {
  private readonly file: string;
  private readonly label: string;
  readonly problems: FieldProblem[] = [];

  constructor(file: string, label: string) {
    this.file = file;
    this.label = label;
  }

  private fail(value: YamlValue, path: string, expected: string): never {
    throw new ConfigError(
      `${this.file}: line ${value.line}: hook ${this.label}: ${path}: expected ${expected}, found ${describe(value)}`,
    );
  }

  /** Calls the handler of each known key; Go's JSON decoder sees the keys sorted, so the last equal one wins. */
  object(value: YamlValue, path: string, handlers: Record<string, Handler>): void {
    if (value.kind === "null") return;
    if (value.kind !== "map") this.fail(value, path, "an object");
    const keys = [...value.entries.keys()].sort();
    for (const key of keys) {
      const handler = handlers[key.toLowerCase()];
      if (handler !== undefined)
        handler(value.entries.get(key)!, path === "" ? key.toLowerCase() : `${path}.${key.toLowerCase()}`);
    }
  }

  string(value: YamlValue, path: string, fallback: string): string {
    if (value.kind === "null") return fallback;
    if (value.kind === "list" || value.kind === "map") this.fail(value, path, "a string");
    return scalarText(value);
  }

  integer(value: YamlValue, path: string, fallback: number): number {
    if (value.kind === "null") return fallback;
    if (value.kind === "int" && value.value >= -(2n ** 63n) && value.value < 2n ** 63n)
      return Number(value.value);
    // A YAML float reaches Go as a JSON number: 200.0 is written 200 and decodes; 200.5 does not.
    if (value.kind === "float" && Number.isInteger(value.value) && Math.abs(value.value) < int64Limit) {
      return value.value;
    }
    return this.fail(value, path, "an integer");
  }

  boolean(value: YamlValue, path: string, fallback: boolean): boolean {
    if (value.kind === "null") return fallback;
    if (value.kind !== "bool") this.fail(value, path, "true or false");
    return value.value;
  }

  /** Go sets a slice to nil for null. */
  list<T>(value: YamlValue, path: string, item: (value: YamlValue, path: string) => T): T[] {
    if (value.kind === "null") return [];
    if (value.kind !== "list") this.fail(value, path, "a list");
    return value.items.map((entry, i) => item(entry, `${path}[${i}]`));
  }

  argument(value: YamlValue, path: string): Argument {
    const argument: Argument = { source: "", name: "", envname: "", base64decode: false };
    this.object(value, path, {
      source: (v, p) => {
        argument.source = this.string(v, p, argument.source);
      },
      name: (v, p) => {
        argument.name = this.string(v, p, argument.name);
      },
      envname: (v, p) => {
        argument.envname = this.string(v, p, argument.envname);
      },
      base64decode: (v, p) => {
        argument.base64decode = this.boolean(v, p, argument.base64decode);
      },
    });
    return argument;
  }

  arguments(value: YamlValue, path: string): Argument[] {
    return this.list(value, path, (v, p) => this.argument(v, p));
  }

  responseHeader(value: YamlValue, path: string): ResponseHeader {
    const header: ResponseHeader = { name: "", value: "" };
    this.object(value, path, {
      name: (v, p) => {
        header.name = this.string(v, p, header.name);
      },
      value: (v, p) => {
        header.value = this.string(v, p, header.value);
      },
    });
    return header;
  }

  matchRule(value: YamlValue, path: string): MatchRule {
    const match: MatchRule = {
      type: "",
      regex: "",
      secret: "",
      value: "",
      ipRange: "",
      parameter: { source: "", name: "", envname: "", base64decode: false },
    };
    this.object(value, path, {
      type: (v, p) => {
        match.type = this.string(v, p, match.type);
      },
      regex: (v, p) => {
        match.regex = this.string(v, p, match.regex);
      },
      secret: (v, p) => {
        match.secret = this.string(v, p, match.secret);
      },
      value: (v, p) => {
        match.value = this.string(v, p, match.value);
      },
      "ip-range": (v, p) => {
        match.ipRange = this.string(v, p, match.ipRange);
      },
      parameter: (v, p) => {
        if (v.kind !== "null") match.parameter = this.argument(v, p);
      },
    });
    return match;
  }

  /** undefined for null; otherwise the first present of and, or, not, match (webhook's order). */
  rule(value: YamlValue, path: string): Rule | undefined {
    if (value.kind === "null") return undefined;
    let and: Rule[] | undefined;
    let or: Rule[] | undefined;
    let not: Rule | undefined;
    let match: MatchRule | undefined;
    const ruleList = (v: YamlValue, p: string) =>
      this.list<Rule>(v, p, (item, at) => this.rule(item, at) ?? { kind: "empty" });
    this.object(value, path, {
      and: (v, p) => {
        and = v.kind === "null" ? undefined : ruleList(v, p);
      },
      or: (v, p) => {
        or = v.kind === "null" ? undefined : ruleList(v, p);
      },
      not: (v, p) => {
        not = this.rule(v, p);
      },
      match: (v, p) => {
        match = v.kind === "null" ? undefined : this.matchRule(v, p);
      },
    });
    if (and !== undefined) return { kind: "and", rules: and };
    if (or !== undefined) return { kind: "or", rules: or };
    if (not !== undefined) return { kind: "not", rule: not };
    if (match !== undefined) return { kind: "match", match };
    return { kind: "empty" };
  }

  /** command-timeout: a Go duration ("30s", "1m30s") or a number of seconds; milliseconds, 0 = none. */
  timeout(value: YamlValue, path: string): number {
    let milliseconds: number | undefined;
    if (value.kind === "null") return 0;
    if (value.kind === "int" || value.kind === "float") milliseconds = Number(value.value) * 1000;
    else if (value.kind === "string") {
      try {
        milliseconds = parseGoDuration(value.value.trim());
      } catch {
        // Not a Go duration: reported below.
      }
    }
    if (milliseconds === undefined || !Number.isFinite(milliseconds)) {
      return this.optionalProblem(
        path,
        `expected a duration such as "30s" or "1m30s", or a number of seconds; no timeout applies`,
      );
    }
    if (milliseconds < 0) return this.optionalProblem(path, "negative timeout; no timeout applies");
    return milliseconds;
  }

  /** max-concurrency / max-queue: an integer >= 0. */
  count(value: YamlValue, path: string): number {
    if (value.kind === "null") return 0;
    const number = value.kind === "int" || value.kind === "float" ? Number(value.value) : Number.NaN;
    if (!Number.isSafeInteger(number))
      return this.optionalProblem(path, "expected a whole number; 0 (unlimited) applies");
    if (number < 0) return this.optionalProblem(path, "negative value; 0 (unlimited) applies");
    return number;
  }

  flag(value: YamlValue, path: string): boolean {
    if (value.kind === "null") return false;
    if (value.kind !== "bool") {
      this.optionalProblem(path, "expected true or false; false applies");
      return false;
    }
    return value.value;
  }

  private optionalProblem(field: string, message: string): 0 {
    this.problems.push({ field, message });
    return 0;
  }
}

/** The id to name a hook by in errors, read before decoding (keys are processed in sorted order). */
function hookLabel(value: YamlValue, index: number): string {
  if (value.kind === "map") {
    const idKey = [...value.entries.keys()].sort().findLast((key) => key.toLowerCase() === "id");
    const id = idKey === undefined ? undefined : value.entries.get(idKey);
    if (id !== undefined && id.kind !== "null" && id.kind !== "list" && id.kind !== "map") {
      return JSON.stringify(scalarText(id));
    }
  }
  return `#${index + 1}`;
}

export function emptyHook(source: string): Hook {
  return {
    id: "",
    executeCommand: "",
    commandWorkingDirectory: "",
    responseMessage: "",
    responseHeaders: [],
    captureCommandOutput: false,
    captureCommandOutputOnError: false,
    passEnvironmentToCommand: [],
    passArgumentsToCommand: [],
    passFileToCommand: [],
    jsonStringParameters: [],
    triggerRule: undefined,
    triggerRuleMismatchHttpResponseCode: 0,
    successHttpResponseCode: 0,
    httpMethods: [],
    incomingPayloadContentType: "",
    triggerSignatureSoftFailures: false,
    commandTimeout: 0,
    maxConcurrency: 0,
    maxQueue: 0,
    streamCommandOutput: false,
    source,
  };
}

/** Decodes the hook at `index` of the file's top-level list; throws ConfigError when Go could not. */
export function decodeHook(
  value: YamlValue,
  index: number,
  file: string,
): { hook: Hook; problems: FieldProblem[] } {
  const hook = emptyHook(file);
  const d = new HookDecoder(file, hookLabel(value, index));
  d.object(value, "", {
    id: (v, p) => {
      hook.id = d.string(v, p, hook.id);
    },
    "execute-command": (v, p) => {
      hook.executeCommand = d.string(v, p, hook.executeCommand);
    },
    "command-working-directory": (v, p) => {
      hook.commandWorkingDirectory = d.string(v, p, hook.commandWorkingDirectory);
    },
    "response-message": (v, p) => {
      hook.responseMessage = d.string(v, p, hook.responseMessage);
    },
    "response-headers": (v, p) => {
      hook.responseHeaders = d.list(v, p, (item, at) => d.responseHeader(item, at));
    },
    "include-command-output-in-response": (v, p) => {
      hook.captureCommandOutput = d.boolean(v, p, hook.captureCommandOutput);
    },
    "include-command-output-in-response-on-error": (v, p) => {
      hook.captureCommandOutputOnError = d.boolean(v, p, hook.captureCommandOutputOnError);
    },
    "pass-environment-to-command": (v, p) => {
      hook.passEnvironmentToCommand = d.arguments(v, p);
    },
    "pass-arguments-to-command": (v, p) => {
      hook.passArgumentsToCommand = d.arguments(v, p);
    },
    "pass-file-to-command": (v, p) => {
      hook.passFileToCommand = d.arguments(v, p);
    },
    "parse-parameters-as-json": (v, p) => {
      hook.jsonStringParameters = d.arguments(v, p);
    },
    "trigger-rule": (v, p) => {
      hook.triggerRule = d.rule(v, p);
    },
    "trigger-rule-mismatch-http-response-code": (v, p) => {
      hook.triggerRuleMismatchHttpResponseCode = d.integer(v, p, hook.triggerRuleMismatchHttpResponseCode);
    },
    "success-http-response-code": (v, p) => {
      hook.successHttpResponseCode = d.integer(v, p, hook.successHttpResponseCode);
    },
    "http-methods": (v, p) => {
      const methods = d.list(v, p, (item, at) => d.string(item, at, ""));
      hook.httpMethods = methods
        .map((method) => method.trim().toUpperCase())
        .filter((method) => method !== "");
    },
    "incoming-payload-content-type": (v, p) => {
      hook.incomingPayloadContentType = d.string(v, p, hook.incomingPayloadContentType);
    },
    "trigger-signature-soft-failures": (v, p) => {
      hook.triggerSignatureSoftFailures = d.boolean(v, p, hook.triggerSignatureSoftFailures);
    },
    "command-timeout": (v, p) => {
      hook.commandTimeout = d.timeout(v, p);
    },
    "max-concurrency": (v, p) => {
      hook.maxConcurrency = d.count(v, p);
    },
    "max-queue": (v, p) => {
      hook.maxQueue = d.count(v, p);
    },
    "stream-command-output": (v, p) => {
      hook.streamCommandOutput = d.flag(v, p);
    },
  });
  return { hook, problems: d.problems };
}

/** The hooks of a file: its top level must be a list (or empty). */
export function hookValues(value: YamlValue, file: string): YamlValue[] {
  if (value.kind === "null") return [];
  if (value.kind !== "list") {
    throw new ConfigError(
      `${file}: line ${value.line}: expected a list of hooks at the top level, found ${describe(value)}`,
    );
  }
  return value.items.map((item, index) => {
    if (item.kind === "null" || item.kind === "map") return item;
    throw new ConfigError(
      `${file}: line ${item.line}: hook #${index + 1}: expected an object, found ${describe(item)}`,
    );
  });
}
