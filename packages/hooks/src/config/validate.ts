// Checks made when a hooks file is loaded. webhook loads such hooks without a word and fails (or never
// fires) at request time; anvil loads them the same way, so behaviour is unchanged, but says why up front.
import { parseIpRange } from "../rules/ip-whitelist.ts";
import { compileRegex, MATCH_TYPES, SIGNATURE_TYPES } from "../rules/trigger-rule.ts";
import { type Argument, type ConfigProblem, type Hook, type Rule, RuleError } from "../types.ts";

const sources = new Set([
  "header",
  "url",
  "query",
  "payload",
  "request",
  "string",
  "raw-request-body",
  "entire-payload",
  "entire-headers",
  "entire-query",
]);

const jsonSources = new Set(["header", "url", "query", "payload"]);

type Report = (field: string, message: string) => void;

function checkArgument(argument: Argument, field: string, report: Report): void {
  if (!sources.has(argument.source)) {
    report(
      `${field}.source`,
      `unknown source ${JSON.stringify(argument.source)}: the value is always missing`,
    );
  } else if (
    argument.source === "request" &&
    !["method", "remote-addr"].includes(argument.name.toLowerCase())
  ) {
    report(
      `${field}.name`,
      `unknown request value ${JSON.stringify(argument.name)} (use method or remote-addr)`,
    );
  }
}

function checkRule(rule: Rule, field: string, report: Report): void {
  switch (rule.kind) {
    case "and":
    case "or":
      rule.rules.forEach((child, i) => {
        checkRule(child, `${field}.${rule.kind}[${i}]`, report);
      });
      return;
    case "not":
      checkRule(rule.rule, `${field}.not`, report);
      return;
    case "empty":
      report(field, "rule has none of and, or, not, match: it never matches");
      return;
    case "match":
      break;
  }
  const { match } = rule;
  const at = `${field}.match`;
  if (!MATCH_TYPES.has(match.type)) {
    report(`${at}.type`, `unknown match type ${JSON.stringify(match.type)}: the rule never matches`);
    return;
  }
  if (SIGNATURE_TYPES.has(match.type) && match.secret === "") {
    report(`${at}.secret`, "empty secret: anyone can compute a valid signature");
  }
  if (match.type === "regex") {
    const regex = compileRegex(match.regex);
    if (regex instanceof RuleError) {
      report(`${at}.regex`, `invalid regex: ${regex.message} (requests answer 500)`);
    }
  }
  if (match.type === "ip-whitelist") {
    const entries = parseIpRange(match.ipRange);
    if (entries.length === 0) report(`${at}.ip-range`, "empty ip-range: the rule never matches");
    for (const { field, network } of entries) {
      if (network === undefined) {
        report(
          `${at}.ip-range`,
          `invalid entry ${JSON.stringify(field)}: not an IP address or CIDR (requests answer 500)`,
        );
      }
    }
  }
  if (match.type !== "ip-whitelist" && match.type !== "scalr-signature")
    checkArgument(match.parameter, `${at}.parameter`, report);
}

/**
 * Problems of one hook. `firstIndex` is the position of the first hook with the same id in the file,
 * when that is another one.
 */
export function validateHook(hook: Hook, index: number, firstIndex: number | undefined): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const report: Report = (field, message) =>
    problems.push({ file: hook.source, hookId: hook.id, field, message });
  if (hook.id === "") report("id", `hook #${index + 1} has no id: it answers at the bare URL prefix`);
  if (firstIndex !== undefined) {
    report(
      "id",
      `duplicate id (hook #${index + 1}; hook #${firstIndex + 1} has it too): the first one is used`,
    );
  }
  if (hook.executeCommand === "")
    report("execute-command", "missing: a request that triggers the hook fails to run");
  const argumentLists: [string, Argument[]][] = [
    ["pass-arguments-to-command", hook.passArgumentsToCommand],
    ["pass-environment-to-command", hook.passEnvironmentToCommand],
    ["pass-file-to-command", hook.passFileToCommand],
  ];
  for (const [field, list] of argumentLists) {
    list.forEach((argument, i) => {
      checkArgument(argument, `${field}[${i}]`, report);
    });
  }
  hook.jsonStringParameters.forEach((argument, i) => {
    const field = `parse-parameters-as-json[${i}]`;
    if (!jsonSources.has(argument.source)) {
      report(
        `${field}.source`,
        `source ${JSON.stringify(argument.source)} cannot be parsed as JSON (use header, url, query or payload)`,
      );
    } else if (argument.name.includes(".")) {
      report(
        `${field}.name`,
        `dotted name ${JSON.stringify(argument.name)} is not supported (webhook 2.8.0 crashes the request)`,
      );
    }
  });
  if (hook.triggerRule !== undefined) checkRule(hook.triggerRule, "trigger-rule", report);
  return problems;
}

/** The log line of a problem. */
export function formatProblem(problem: ConfigProblem): string {
  return `hooks file ${problem.file}: hook ${JSON.stringify(problem.hookId)}: ${problem.field}: ${problem.message}`;
}
