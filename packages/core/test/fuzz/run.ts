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

function problemOf(outcome: Outcome, boundMs: number): string | undefined {
  if (outcome.kind === "timeout") return `no answer within ${boundMs} ms`;
  if (outcome.kind === "error") return `connection failed (${outcome.code}) after ${outcome.ms} ms`;
  if (outcome.status >= 500) return `answered ${outcome.status} in ${outcome.ms} ms: ${outcome.excerpt}`;
  if (outcome.ms > boundMs) return `answered ${outcome.status} only after ${outcome.ms} ms`;
  return undefined;
}

/**
 * Sends `perRoute` malformed requests to every operation of the service's OpenAPI document, one at
 * a time, while a health check runs beside them; answers every 5xx, failed connection, slow answer
 * and slow health check.
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

  const health = (async () => {
    const probe: FuzzRequest = { method: "GET", path: options.healthPath, headers: {}, auth: "anonymous" };
    while (running) {
      await sleep(250);
      const outcome = await send(base, agent, probe, settings.boundMs);
      const problem =
        outcome.kind === "answer" && outcome.status === 200 && outcome.ms <= settings.boundMs
          ? undefined
          : `health check beside it: ${problemOf(outcome, settings.boundMs) ?? `answered ${outcome.kind === "answer" ? outcome.status : "?"}`}`;
      if (problem && current) findings.push({ ...current, problem });
    }
  })();

  let sent = 0;
  try {
    for (let index = 0; index < operations.length * settings.perRoute; index++) {
      if (settings.only && !settings.only.has(index)) continue;
      const operation = operations[Math.floor(index / settings.perRoute)];
      const request = fuzzRequest(requestRandom(settings.seed, index), operation, options.target);
      current = { index, operation: `${operation.method} ${operation.path}`, request };
      const problem = problemOf(await send(base, agent, request, settings.boundMs), settings.boundMs);
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

function excerpt(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}… (${text.length} chars)`;
}

/** A report that says how to run each failing request again. */
export function describeFindings(run: FuzzRun, settings: FuzzSettings, file: string): string {
  const lines = [`fuzz seed ${settings.seed}, ${run.sent} requests: ${run.findings.length} problem(s)`];
  for (const finding of run.findings.slice(0, 50)) {
    const { request } = finding;
    const body = request.body ? request.body.toString("utf8") : "";
    lines.push(
      `#${finding.index} ${finding.operation}: ${finding.problem}`,
      `    ${request.method} ${excerpt(request.path, 200)} [${request.auth}] ${JSON.stringify(
        Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== "authorization")),
      )}`,
      `    body (${request.body?.length ?? 0} bytes): ${JSON.stringify(excerpt(body, 200))}`,
    );
  }
  if (run.findings.length > 50) lines.push(`… and ${run.findings.length - 50} more`);
  const indexes = [...new Set(run.findings.map((finding) => finding.index))].slice(0, 50).join(",");
  lines.push(
    `replay: ANVIL_FUZZ_SEED=${settings.seed} ANVIL_FUZZ_PER_ROUTE=${settings.perRoute} ANVIL_FUZZ_ONLY=${indexes} scripts/test.sh ${file}`,
  );
  return lines.join("\n");
}
