// webhook's hookHandler: find the hook, check the method, read and parse the body, decode JSON
// parameters, evaluate the trigger rule, then answer and run the command (async, captured or,
// beyond webhook, streamed), with webhook's exact status codes, bodies and log lines.

import { constants as osConstants } from "node:os";
import { type Exchange, logExchange, rawHeader, remoteAddr } from "./exchange.ts";
import type { CommandResult, Executor, Ticket } from "./executor.ts";
import type { HooksConfig } from "./flags.ts";
import { quote } from "./go-strconv.ts";
import type { Logger } from "./log.ts";
import { buildHeaderMap, buildQueryMap, parseBody } from "./request.ts";
import {
  combineHeaders,
  effectiveStatus,
  type HeaderList,
  headerList,
  httpDate,
  rawResponse,
  sendResponse,
  statusText,
  writeGoHead,
} from "./response.ts";
import { evaluateRule, topLevelOutcome } from "./rules.ts";
import type { Hook, HookRequest } from "./types.ts";
import { applyJsonStringParameters, DottedJsonParameterError } from "./values.ts";

/** The live hook set, as the registry provides it. */
export interface HookLookup {
  find(id: string): Hook | undefined;
}

export const TEXT = "text/plain; charset=utf-8";
const EMPTY: Buffer = Buffer.alloc(0);
const NO_HEADERS: HeaderList = [];
/** Defaults of a streamed answer; the hook's and global headers may override them. */
const STREAM_HEADERS: HeaderList = [
  ["Content-Type", TEXT],
  ["Trailer", "X-Hook-Exit-Code"],
  ["X-Content-Type-Options", "nosniff"],
];
const RETRY_AFTER: HeaderList = [["Retry-After", "1"]];

const BODY = {
  hookNotFound: Buffer.from("Hook not found."),
  mismatch: Buffer.from("Hook rules were not satisfied."),
  ruleError: Buffer.from("Error occurred while evaluating hook rules."),
  multipartError: Buffer.from("Error occurred while parsing multipart form."),
  commandError: Buffer.from(
    "Error occurred while executing the hook's command. Please check your logs for more details.",
  ),
};

/** What a hook answers that depends only on the hook and the flags, computed once per hook object. */
interface HookPlan {
  /** Global -header list with the hook's response-headers applied over it. */
  firedHeaders: HeaderList;
  responseMessage: Buffer;
  allowedMethods: string[];
  jsonParameterNames: string[];
}

type BodyOutcome = Buffer | "too-large";

/** The request body, up to -max-request-body bytes; no waiting when there is none. */
function readBody(exchange: Exchange, limit: number): BodyOutcome | Promise<BodyOutcome> {
  const { req } = exchange;
  const length = rawHeader(req.rawHeaders, "content-length");
  if (
    (length === undefined || length === "0") &&
    rawHeader(req.rawHeaders, "transfer-encoding") === undefined
  ) {
    return EMPTY;
  }
  if (length !== undefined && Number(length) > limit) return "too-large";
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        req.off("data", onData);
        req.pause();
        resolve("too-large");
      }
    };
    req.on("data", onData);
    req.once("end", () => resolve(size > limit ? "too-large" : Buffer.concat(chunks, size)));
    req.once("error", () => resolve(Buffer.concat(chunks)));
  });
}

export class HookHandler {
  readonly #config: HooksConfig;
  readonly #hooks: HookLookup;
  readonly #executor: Executor;
  readonly #logger: Logger;
  readonly #globalHeaders: HeaderList;
  readonly #plans = new WeakMap<Hook, HookPlan>();

  constructor(options: { config: HooksConfig; hooks: HookLookup; executor: Executor; logger: Logger }) {
    this.#config = options.config;
    this.#hooks = options.hooks;
    this.#executor = options.executor;
    this.#logger = options.logger;
    this.#globalHeaders = headerList(options.config.headers);
  }

  /** Answers `/<prefix>/<id>`; the promise (if any) settles once the answer is complete. */
  handle(exchange: Exchange, id: string): Promise<void> | undefined {
    const { req, rid, log } = exchange;
    const method = req.method ?? "GET";
    log?.(`[${rid}] incoming HTTP ${method} request from ${remoteAddr(req)}`);
    const hook = this.#hooks.find(id);
    if (hook === undefined) {
      this.#respond(exchange, 404, NO_HEADERS, BODY.hookNotFound, TEXT);
      return undefined;
    }
    const plan = this.#plan(hook);
    if (plan.allowedMethods.length > 0 && !plan.allowedMethods.includes(method)) {
      log?.(`[${rid}] HTTP ${method} method not allowed for hook ${quote(id)}`);
      this.#respond(exchange, 405, NO_HEADERS, EMPTY);
      return undefined;
    }
    log?.(`[${rid}] ${id} got matched`);
    const body = readBody(exchange, this.#config.maxRequestBody);
    return body instanceof Promise
      ? body.then((received) => this.#withBody(exchange, hook, plan, received))
      : this.#withBody(exchange, hook, plan, body);
  }

  /**
   * A request Node's parser refused but Go would route (a method llhttp does not know, such as
   * `post`): the raw 404 or 405 webhook gives, or undefined when webhook would run the hook.
   */
  refuseUnparsed(method: string, id: string): string | undefined {
    const hook = this.#hooks.find(id);
    if (hook === undefined) return rawResponse(404, NO_HEADERS, BODY.hookNotFound, TEXT);
    const allowed = this.#plan(hook).allowedMethods;
    if (allowed.length > 0 && !allowed.includes(method)) return rawResponse(405, NO_HEADERS, EMPTY);
    return undefined;
  }

  #plan(hook: Hook): HookPlan {
    let plan = this.#plans.get(hook);
    if (plan === undefined) {
      plan = {
        firedHeaders: combineHeaders(this.#globalHeaders, headerList(hook.responseHeaders)),
        responseMessage: Buffer.from(hook.responseMessage, "utf8"),
        allowedMethods: hook.httpMethods.length > 0 ? hook.httpMethods : this.#config.httpMethods,
        jsonParameterNames: hook.jsonStringParameters
          .filter((parameter) => parameter.source === "payload")
          .map((parameter) => parameter.name),
      };
      this.#plans.set(hook, plan);
    }
    return plan;
  }

  #respond(
    exchange: Exchange,
    status: number,
    headers: HeaderList,
    body: Buffer,
    contentType?: string,
  ): void {
    const sent = sendResponse(exchange.res, exchange.isHead, status, headers, body, contentType);
    logExchange(this.#logger, exchange, sent, body);
  }

  async #withBody(exchange: Exchange, hook: Hook, plan: HookPlan, body: BodyOutcome): Promise<void> {
    const { req, res, rid, log } = exchange;
    const headers = this.#globalHeaders;
    if (body === "too-large") {
      res.shouldKeepAlive = false; // the rest of the body is not read
      const limit = this.#config.maxRequestBody;
      log?.(`[${rid}] request body larger than ${limit} bytes refused`);
      const text = Buffer.from(`Request body too large: the limit is ${limit} bytes.\n`);
      return this.#respond(exchange, 413, headers, text, TEXT);
    }
    exchange.requestBody = body;
    const contentType = hook.incomingPayloadContentType || (rawHeader(req.rawHeaders, "content-type") ?? "");
    const url = req.url ?? "";
    const queryAt = url.indexOf("?");
    const rawQuery = queryAt < 0 ? "" : url.slice(queryAt + 1);
    const parsed = await parseBody(contentType, body, {
      maxMultipartMem: this.#config.maxMultipartMem,
      jsonParameterNames: plan.jsonParameterNames,
      rawQuery,
    });
    if (log !== undefined) for (const line of parsed.log) log(`[${rid}] ${line}`);
    if (parsed.multipartError) return this.#respond(exchange, 500, headers, BODY.multipartError, TEXT);

    const request: HookRequest = {
      id: rid,
      method: req.method ?? "GET",
      remoteAddr: remoteAddr(req),
      headers: buildHeaderMap(req.rawHeaders),
      query: buildQueryMap(rawQuery),
      payload: parsed.payload,
      rawBody: parsed.rawBody,
      contentType,
    };
    try {
      const problems = applyJsonStringParameters(hook.jsonStringParameters, request);
      if (log !== undefined) for (const line of problems) log(`[${rid}] ${line}`);
    } catch (error) {
      if (!(error instanceof DottedJsonParameterError)) throw error;
      // webhook 2.8.0 panics here (500 "Internal Server Error"); the spec asks for a clear answer.
      log?.(`[${rid}] ${error.message}`);
      const text = Buffer.from(`Error occurred while parsing JSON parameters: ${error.message}\n`);
      return this.#respond(exchange, 500, headers, text, TEXT);
    }

    const result = evaluateRule(hook.triggerRule, request, {
      signatureSoftFailures: hook.triggerSignatureSoftFailures,
      log,
    });
    const outcome = topLevelOutcome(result);
    if (outcome === "error") {
      log?.(`[${rid}] error evaluating hook: ${result.error?.message}`);
      return this.#respond(exchange, 500, headers, BODY.ruleError, TEXT);
    }
    if (result.error !== undefined) log?.(`[${rid}] ${result.error.message}`);
    if (outcome === "mismatch") {
      const status = this.#configuredStatus(exchange, hook, hook.triggerRuleMismatchHttpResponseCode);
      log?.(
        `[${rid}] ${hook.id} got matched, but didn't get triggered because the trigger rules were not satisfied`,
      );
      return this.#respond(exchange, status, headers, BODY.mismatch, TEXT);
    }
    log?.(`[${rid}] ${hook.id} hook triggered successfully`);
    return this.#fire(exchange, hook, plan, request);
  }

  async #fire(exchange: Exchange, hook: Hook, plan: HookPlan, request: HookRequest): Promise<void> {
    const { rid, log } = exchange;
    const ticket = this.#executor.admit(hook);
    if (ticket === undefined) {
      log?.(
        `[${rid}] ${hook.id} already runs ${hook.maxConcurrency} command(s) with ${hook.maxQueue} waiting; answering 429`,
      );
      const text = Buffer.from(`Too many concurrent requests for hook ${quote(hook.id)}; retry later.\n`);
      return this.#respond(exchange, 429, combineHeaders(plan.firedHeaders, RETRY_AFTER), text, TEXT);
    }
    if (hook.streamCommandOutput) return this.#stream(exchange, hook, plan, request, ticket);
    if (!hook.captureCommandOutput) {
      // Answer first, then run: webhook starts the command in a goroutine and answers at once.
      const status = this.#configuredStatus(exchange, hook, hook.successHttpResponseCode);
      this.#respond(exchange, status, plan.firedHeaders, plan.responseMessage);
      this.#executor
        .run(hook, request, "ignore", ticket)
        .catch((error: unknown) => this.#logger.log(`[${rid}] running the command failed: ${String(error)}`));
      return;
    }
    const command = await this.#executor.run(hook, request, "capture", ticket);
    const failure = commandFailure(hook, command);
    if (failure !== undefined)
      return this.#respond(exchange, failure.status, plan.firedHeaders, failure.body, failure.type);
    const status = this.#configuredStatus(exchange, hook, hook.successHttpResponseCode);
    return this.#respond(exchange, status, plan.firedHeaders, command.output);
  }

  /** A configured success/mismatch code, with webhook's log line when Go has no text for it. */
  #configuredStatus(exchange: Exchange, hook: Hook, code: number): number {
    if (code === 0) return 200;
    if (statusText(code) === undefined) {
      exchange.log?.(
        `[${exchange.rid}] ${hook.id} got matched, but the configured return code ${code} is unknown - defaulting to 200`,
      );
    }
    return effectiveStatus(code);
  }

  /** stream-command-output: chunked text as the command writes it, its exit status in a trailer. */
  async #stream(
    exchange: Exchange,
    hook: Hook,
    plan: HookPlan,
    request: HookRequest,
    ticket: Ticket,
  ): Promise<void> {
    const { res, isHead } = exchange;
    const status = this.#configuredStatus(exchange, hook, hook.successHttpResponseCode);
    const headers = combineHeaders(STREAM_HEADERS, plan.firedHeaders);
    let started = false;
    let bytes = 0;
    const command = await this.#executor.run(hook, request, "stream", ticket, {
      onSpawn: () => {
        started = true;
        const flat = headers.flat();
        writeGoHead(res, status, [...flat, "Date", httpDate()]);
        res.flushHeaders();
      },
      onData: (chunk) => {
        bytes += chunk.length;
        if (!isHead && !res.destroyed) res.write(chunk);
      },
    });
    if (!started) {
      // The command could not start: answered as in capture mode.
      const failure = commandFailure(hook, command) ?? { status: 500, body: BODY.commandError, type: TEXT };
      return this.#respond(exchange, failure.status, plan.firedHeaders, failure.body, failure.type);
    }
    res.addTrailers({ "X-Hook-Exit-Code": String(exitStatus(command)) });
    res.end();
    logExchange(this.#logger, exchange, { status, bytes, headers: [...headers] }, EMPTY);
  }
}

/** The answer for a command that failed in capture mode, or undefined when it succeeded. */
function commandFailure(
  hook: Hook,
  command: CommandResult,
): { status: number; body: Buffer; type?: string } | undefined {
  if (command.timedOut) {
    const text = `The hook's command timed out after ${command.timeout / 1000}s and was stopped.\n`;
    return { status: 504, body: Buffer.from(text), type: TEXT };
  }
  if (command.error === undefined) return undefined;
  if (hook.captureCommandOutputOnError) return { status: 500, body: command.output };
  return { status: 500, body: BODY.commandError, type: TEXT };
}

/** The shell's convention: the exit status, or 128 + the signal number when killed. */
function exitStatus(command: CommandResult): number {
  if (command.exitCode !== null) return command.exitCode;
  const signal = command.signal as keyof typeof osConstants.signals | null;
  return signal === null ? 1 : 128 + (osConstants.signals[signal] ?? 0);
}
