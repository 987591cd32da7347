// Side-by-side harness: the same hooks files and the same requests go to Debian's `webhook` and to
// anvil hooks; answers and command side effects must be identical. webhook's answer is also held to
// the case's own expectation first, so a wrong case (or a fixture neither server loaded) cannot pass
// just because both servers agree.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type Fixture, type Pair, type PairControl, pairControl, startPair, stopPair } from "./pair.ts";
import { type HttpRequest, type HttpResponse, sendRequest } from "./raw-http.ts";
import { type CommandRecord, clearRecords, collectRecords } from "./records.ts";
import { anvilCommand, anvilIsWebhook, webhookCommand } from "./servers.ts";

export interface Want {
  status: number;
  /** Exact body; omitted when it is not the point of the case. */
  body?: string;
  /** Response headers that must be present with these values (lower-case names). */
  headers?: Record<string, string>;
  /** How many times the hook command must run (default 0). */
  runs?: number;
  /** Expected parts of the first command record. */
  record?: Partial<CommandRecord>;
}

export interface Case {
  name: string;
  req: HttpRequest;
  /** webhook's answer (and, by comparison, anvil's). */
  want: Want;
  /**
   * Only for a behaviour the spec names as a webhook bug that anvil fixes: anvil is held to this
   * answer instead of webhook's.
   */
  anvil?: { status: number; body?: string | RegExp; runs?: number };
  setup?: (control: PairControl) => Promise<void>;
  /**
   * For asynchronous effects (reloads): repeat the request until both servers answer the wanted
   * status, or this many milliseconds pass; then compare as usual.
   */
  retryMs?: number;
}

/**
 * Registers one node:test suite: both servers start once with the fixture, every case runs against
 * both, both servers are stopped at the end whatever happened.
 */
export function sideBySide(title: string, fixture: Fixture, cases: Case[]): void {
  if (!webhookInstalled(title)) return;
  const webhook = webhookCommand();
  const pair: Pair = { root: "", work: "", sides: [] };
  describe(title, () => {
    before(async () => {
      Object.assign(
        pair,
        await startPair(fixture, [
          ["webhook", webhook],
          ["anvil", anvilCommand()],
        ]),
      );
    });
    after(() => stopPair(pair));
    for (const c of cases) test(c.name, () => runCase(pair, fixture, c));
  });
}

/**
 * Features webhook 2.8.0 lacks (the spec lists them from later upstream source): anvil alone is
 * started and held to the case's expectation.
 */
export function anvilOnly(title: string, fixture: Fixture, cases: Case[]): void {
  if (anvilIsWebhook()) {
    describe(title, {
      skip: "ANVIL_HOOKS_CMD is the webhook binary; these features exist only in anvil",
    }, () => {});
    return;
  }
  const pair: Pair = { root: "", work: "", sides: [] };
  describe(title, () => {
    before(async () => {
      Object.assign(pair, await startPair(fixture, [["anvil", anvilCommand()]]));
    });
    after(() => stopPair(pair));
    for (const c of cases) {
      test(c.name, async () => {
        const [answer] = await exchange(pair, fixture, c);
        withLogs(pair, () => checkAgainstWant(answer.response, answer.records, c.want, "anvil"));
      });
    }
  });
}

/**
 * False, with a suite registered that says why, when the webhook program is missing: skipped on a
 * developer's machine, failed in CI (CI installs it, so its absence is a broken setup).
 */
export function webhookInstalled(title: string): boolean {
  const file = webhookCommand().file;
  if (existsSync(file)) return true;
  const message = `${file} not found: the side-by-side suite needs Debian's webhook (apt-get install webhook)`;
  if (process.env.CI === "true") {
    describe(title, () => {
      test("webhook is installed", () => assert.fail(`${message}; CI must install it`));
    });
  } else {
    describe(title, { skip: message }, () => {});
  }
  return false;
}

interface Answer {
  response: HttpResponse;
  records: CommandRecord[];
}

/** A command that did not run cannot be seen; wait this long before believing it. */
const settleMs = 150;

async function exchange(pair: Pair, fixture: Fixture, c: Case): Promise<Answer[]> {
  if (c.setup) await c.setup(pairControl(pair));
  await Promise.all(pair.sides.map((side) => clearRecords(side.records)));
  const send = () => Promise.all(pair.sides.map((side) => sendRequest(side.server.port, c.req)));
  const wanted = pair.sides.map((side) => expectedStatus(side.server.name, c));
  let responses = await send();
  const deadline = Date.now() + (c.retryMs ?? 0);
  while (responses.some((response, index) => response.status !== wanted[index]) && Date.now() < deadline) {
    await sleep(100);
    await Promise.all(pair.sides.map((side) => clearRecords(side.records)));
    responses = await send();
  }
  return Promise.all(
    pair.sides.map(async (side, index) => {
      const runs = expectedRuns(side.server.name, c);
      // No hook was found (404) or the router redirected (301): nothing can have started. A command
      // webhook runs and anvil must not gets longer to show up, as it would after a late start.
      const deliberate = runs < (c.want.runs ?? 0);
      const settle =
        runs === 0 && c.want.status !== 404 && c.want.status !== 301 ? (deliberate ? 1000 : settleMs) : 0;
      return {
        response: responses[index],
        records: await collectRecords(side.records, runs, settle, side.normalise, fixture.recordEnv ?? []),
      };
    }),
  );
}

/** How many command runs to wait for on a side: anvil's own for a deliberate difference, else webhook's. */
function expectedRuns(side: string, c: Case): number {
  const deliberate = side === "anvil" && !anvilIsWebhook() ? c.anvil?.runs : undefined;
  return deliberate ?? c.want.runs ?? 0;
}

/** The status a side should answer: anvil's own for a deliberate difference, else webhook's. */
function expectedStatus(side: string, c: Case): number {
  return side === "anvil" && c.anvil && !anvilIsWebhook() ? c.anvil.status : c.want.status;
}

async function runCase(pair: Pair, fixture: Fixture, c: Case): Promise<void> {
  const [webhook, anvil] = await exchange(pair, fixture, c);
  withLogs(pair, () => {
    checkAgainstWant(webhook.response, webhook.records, c.want, "webhook (the case itself is wrong)");
    if (c.anvil && !anvilIsWebhook()) {
      assert.equal(anvil.response.status, c.anvil.status, "anvil status (deliberate difference)");
      const body = anvil.response.body.toString("utf8");
      if (typeof c.anvil.body === "string")
        assert.equal(body, c.anvil.body, "anvil body (deliberate difference)");
      else if (c.anvil.body) assert.match(body, c.anvil.body, "anvil body (deliberate difference)");
      if (c.anvil.runs !== undefined) {
        assert.equal(anvil.records.length, c.anvil.runs, "anvil command runs (deliberate difference)");
        return;
      }
    } else {
      assert.deepEqual(comparable(anvil.response), comparable(webhook.response), "anvil answers differently");
    }
    assert.deepEqual(anvil.records, webhook.records, "anvil ran the command differently");
  });
}

function checkAgainstWant(response: HttpResponse, records: CommandRecord[], want: Want, who: string): void {
  assert.equal(response.status, want.status, `${who}: status`);
  if (want.body !== undefined) assert.equal(response.body.toString("utf8"), want.body, `${who}: body`);
  for (const [name, value] of Object.entries(want.headers ?? {})) {
    const got = response.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
    assert.deepEqual(got, [value], `${who}: header ${name}`);
  }
  assert.equal(records.length, want.runs ?? 0, `${who}: number of command runs`);
  if (want.record) {
    const first = records[0] as unknown as Record<string, unknown>;
    const picked = Object.fromEntries(Object.keys(want.record).map((key) => [key, first[key]]));
    assert.deepEqual(picked, want.record, `${who}: command record`);
  }
}

/**
 * Node's HTTP server always sends Connection (and Keep-Alive) headers while Go's omits them on
 * keep-alive connections, and Date differs by nature: those three are left out. Names are compared
 * case-insensitively and sorted (Go writes headers sorted, Node in insertion order; HTTP gives
 * neither meaning); repeated values keep their order.
 */
const ignoredHeaders = new Set(["date", "connection", "keep-alive"]);

function comparable(response: HttpResponse) {
  const headers = response.headers
    .map(([name, value]) => `${name.toLowerCase()}: ${value}`)
    .filter((line) => !ignoredHeaders.has(line.slice(0, line.indexOf(":"))))
    .sort((a, b) => {
      const [nameA, nameB] = [a.slice(0, a.indexOf(":")), b.slice(0, b.indexOf(":"))];
      return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
    });
  const text = response.body.toString("utf8");
  const body = Buffer.from(text, "utf8").equals(response.body)
    ? text
    : `base64:${response.body.toString("base64")}`;
  return { status: response.status, reason: response.reason, headers, body };
}

/** Failure messages end with what each server logged, which usually says why. */
function withLogs(pair: Pair, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof Error) {
      // The test runner prints the stack, which was built with the original message.
      for (const side of pair.sides) {
        const tail = side.server.output().trimEnd().split("\n").slice(-12).join("\n");
        error.stack += `\n--- ${side.server.name} log (last lines) ---\n${tail}`;
      }
    }
    throw error;
  }
}
