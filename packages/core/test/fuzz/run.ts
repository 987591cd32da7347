import { Agent } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type Operation, operationsOf } from "./openapi.ts";
import { requestRandom } from "./random.ts";
import { type FuzzRequest, fuzzRequest, type Target } from "./requests.ts";
import { type Outcome, send } from "./send.ts";
import type { FuzzSettings } from "./settings.ts";

export interface Finding {
  /** The request's number in the run (ANVIL_FUZZ_ONLY replays it). */
  index: number;
  operation: string;
  request: FuzzRequest;
  problem: string;
}

export interface FuzzRun {
  sent: number;
  findings: Finding[];
}

/** Non-DELETE operations first, so that the seeded objects live through most of the run. */
function plan(operations: Operation[]): Operation[] {
  return [
    ...operations.filter((operation) => operation.method !== "DELETE"),
    ...operations.filter((operation) => operation.method === "DELETE"),
  ];
}

function problemOf(
  outcome: Outcome,
  boundMs: number,
  checked?: { target: Target; operation: string; method: string },
): string | undefined {
  if (outcome.kind === "timeout") return `no answer within ${boundMs} ms`;
  if (outcome.kind === "error") return `connection failed (${outcome.code}) after ${outcome.ms} ms`;
  if (outcome.status >= 500) return `answered ${outcome.status} in ${outcome.ms} ms: ${outcome.excerpt}`;
  if (outcome.ms > boundMs) return `answered ${outcome.status} only after ${outcome.ms} ms`;
  const shape =
    outcome.error &&
    checked?.target.errorShape?.({
      operation: checked.operation,
      method: checked.method,
      status: outcome.status,
      ...outcome.error,
    });
  if (shape) return `answered ${outcome.status} out of shape (${shape}): ${outcome.excerpt}`;
  return undefined;
}

function isSlow(outcome: Outcome, boundMs: number): boolean {
  return outcome.kind === "timeout" || outcome.ms > boundMs;
}

/**
 * Sends `perRoute` malformed requests to every operation of the service's OpenAPI document, one at
 * a time, while a health check runs beside them; answers every 5xx, failed connection, slow answer
 * and slow health check, and every 4xx out of the API's error shape when the target tells it.
 */
export async function fuzzService(options: {
  url: string;
  document: unknown;
  target: Target;
  settings: FuzzSettings;
  healthPath: string;
}): Promise<FuzzRun> {
  const { settings } = options;
  const base = new URL(options.url);
  // A connection per request: a reset then belongs to the request that saw it.
  const agent = new Agent({ keepAlive: false });
  const operations = plan(operationsOf(options.document));
  const findings: Finding[] = [];
  let current: { index: number; operation: string; request: FuzzRequest } | undefined;
  let running = true;

  // On a machine shared with other work one slow answer is noise; a slow request is asked again
  // and a slow health check counts when the next one is slow too. A 5xx counts at once.
  const health = (async () => {
    const probe: FuzzRequest = { method: "GET", path: options.healthPath, headers: {}, auth: "anonymous" };
    let slowBefore = false;
    while (running) {
      await sleep(250);
      const outcome = await send(base, agent, probe, settings.boundMs);
      const slow = isSlow(outcome, settings.boundMs);
      const failed = outcome.kind !== "answer" || outcome.status !== 200;
      if (current && (failed || (slow && slowBefore))) {
        const problem =
          problemOf(outcome, settings.boundMs) ??
          `answered ${outcome.kind === "answer" ? outcome.status : "?"}`;
        findings.push({ ...current, problem: `health check beside it: ${problem}` });
      }
      slowBefore = slow;
    }
  })();

  let sent = 0;
  try {
    for (let index = 0; index < operations.length * settings.perRoute; index++) {
      if (settings.only && !settings.only.has(index)) continue;
      const operation = operations[Math.floor(index / settings.perRoute)];
      const request = fuzzRequest(requestRandom(settings.seed, index), operation, options.target);
      current = { index, operation: `${operation.method} ${operation.path}`, request };
      let outcome = await send(base, agent, request, settings.boundMs);
      if (isSlow(outcome, settings.boundMs)) {
        const again = await send(base, agent, request, settings.boundMs);
        if (!isSlow(again, settings.boundMs)) outcome = again;
      }
      const problem = problemOf(outcome, settings.boundMs, {
        target: options.target,
        operation: operation.path,
        method: request.method,
      });
      sent++;
      if (problem) findings.push({ ...current, problem });
    }
  } finally {
    running = false;
    await health;
    agent.destroy();
  }
  return { sent, findings };
}

/** How many times `unit` follows itself in `text` from `start`. */
function repeats(text: string, start: number, unit: string): number {
  let count = 0;
  while (text.startsWith(unit, start + count * unit.length)) count++;
  return count;
}

const RUN_UNITS = [1, 2, 3];
const SHORTEST_RUN = 10;

/** The start of a text, runs of a repeated unit (`%00%00…`) written once with their count. */
function excerpt(text: string, length: number): string {
  // A scan that stops once the excerpt is long enough: a regex backtracks through a whole run, and
  // one of 11 MB overflows its stack.
  let runs = "";
  let at = 0;
  while (at < text.length && runs.length <= length) {
    const unit = RUN_UNITS.map((size) => text.slice(at, at + size)).find(
      (candidate) => repeats(text, at, candidate) >= SHORTEST_RUN,
    );
    if (unit === undefined) {
      runs += text[at];
      at++;
    } else {
      const count = repeats(text, at, unit);
      runs += `[${unit}×${count}]`;
      at += count * unit.length;
    }
  }
  const shown = runs.length <= length ? runs : `${runs.slice(0, length)}…`;
  return shown === text ? text : `${shown} (${text.length} chars)`;
}

/** The kind of a problem without its details: what findings are grouped by. */
function kindOf(problem: string): string {
  return (
    /^(answered \d+ only after|answered \d+ out of shape|answered \d+|no answer|connection failed|health check)/.exec(
      problem,
    )?.[1] ?? problem
  );
}

const SHOWN_PER_GROUP = 3;

/** The start of a body: as JSON-escaped text, or in base64 when it is not UTF-8. */
function bodyExcerpt(body: Buffer | undefined): string {
  const text = body?.toString("utf8") ?? "";
  if (!text.includes("\ufffd")) return JSON.stringify(excerpt(text, 200));
  return `base64 ${body?.subarray(0, 150).toString("base64")}${(body?.length ?? 0) > 150 ? "…" : ""}`;
}

/**
 * A report that groups the findings by operation and kind (a few requests shown of each) and says
 * how to send the requests shown again.
 */
export function describeFindings(run: FuzzRun, settings: FuzzSettings, file: string): string {
  const groups = new Map<string, Finding[]>();
  for (const finding of run.findings) {
    const key = `${finding.operation}: ${kindOf(finding.problem)}`;
    groups.set(key, [...(groups.get(key) ?? []), finding]);
  }
  const lines = [
    `fuzz seed ${settings.seed}, ${run.sent} requests: ${run.findings.length} problem(s) in ${groups.size} group(s)`,
  ];
  const shown: number[] = [];
  for (const [key, findings] of groups) {
    lines.push(`${key} (${findings.length}×)`);
    for (const finding of findings.slice(0, SHOWN_PER_GROUP)) {
      const { request } = finding;
      const headers = Object.entries(request.headers)
        .filter(([name]) => name !== "authorization")
        .map(([name, value]) => `${name}: ${JSON.stringify(excerpt(value, 60))}`);
      shown.push(finding.index);
      lines.push(
        `  #${finding.index} ${finding.problem}`,
        `    ${request.method} ${excerpt(request.path, 600)} [${request.auth}] ${headers.join(", ")}`,
        `    body (${request.body?.length ?? 0} bytes): ${bodyExcerpt(request.body)}`,
      );
    }
  }
  lines.push(
    `replay: ANVIL_FUZZ_SEED=${settings.seed} ANVIL_FUZZ_PER_ROUTE=${settings.perRoute} ANVIL_FUZZ_ONLY=${shown.join(",")} scripts/test.sh ${file}`,
  );
  return lines.join("\n");
}
