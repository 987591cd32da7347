// webhook's hookHandler: find the hook, check the method, read and parse the body, decode JSON
// parameters, evaluate the trigger rule, then answer and run the command (async, captured or,
// beyond webhook, streamed), with webhook's exact status codes, bodies and log lines.

import { constants as osConstants } from "node:os";
import type { HooksConfig } from "../cli/flags.ts";
import type { CommandResult, Executor, Ticket } from "../command/executor.ts";
import { waitingForResources } from "../command/files.ts";
import { quote } from "../go/strconv.ts";
import type { Logger } from "../log/logger.ts";
import { buildHeaderMap, buildQueryMap, parseBody } from "../request/maps.ts";
import { applyJsonStringParameters, DottedJsonParameterError } from "../request/values.ts";
import { evaluateRule, topLevelOutcome } from "../rules/trigger-rule.ts";
import type { Hook, HookRequest } from "../types.ts";
import { type Exchange, logExchange, rawHeader, remoteAddr } from "./exchange.ts";
import {
  combineHeaders,
  effectiveStatus,
  type HeaderList,
  headerList,
  httpDate,
  plainAnswer,
  rawResponse,
  sendResponse,
  statusText,
  writeGoHead,
} from "./response.ts";

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
/** Marks an answer whose captured command output was cut at -max-command-output. */
const TRUNCATED: HeaderList = [["X-Hook-Output-Truncated", "true"]];

const BODY = {
  hookNotFound: Buffer.from("Hook not found."),
  mismatch: Buffer.from("Hook rules were not satisfied."),
  ruleError: Buffer.from("Error occurred while evaluating hook rules."),
  multipartError: Buffer.from("Error occurred while parsing multipart form."),
  commandError: Buffer.from(
    "Error occurred while executing the hook's command. Please check your logs for more details.",
  ),
  shuttingDown: Buffer.from("The server is shutting down; the hook's command was not run.\n"),
  starved: Buffer.from(
    "The server cannot start more commands now (file descriptors or processes are used up); retry later.\n",
  ),
};

/** A complete answer, as #respond sends it (a command running in the background is not part of it). */
interface Answer {
  status: number;
  headers: HeaderList;
  body: Buffer;
  /** Skips sniffing, as in sendResponse. */
  contentType?: string;
}

/** What the rules and the command see of a request besides its body. */
export interface RequestParts {
  method: string;
  /** The request target as sent: path and query. */
  url: string;
  rawHeaders: string[];
  remoteAddr: string;
}

/** Where a request's log lines go (nowhere on the fast path). */
type LogContext = Pick<Exchange, "rid" | "log">;

const QUIET: LogContext = { rid: "", log: undefined };
const HOOK_NOT_FOUND: Answer = {
  status: 404,
  headers: NO_HEADERS,
  body: BODY.hookNotFound,
  contentType: TEXT,
};
const METHOD_NOT_ALLOWED: Answer = { status: 405, headers: NO_HEADERS, body: EMPTY };

/** What a hook answers that depends only on the hook and the flags, computed once per hook object. */
interface HookPlan {
  /** Global -header list with the hook's response-headers applied over it. */
  firedHeaders: HeaderList;
  responseMessage: Buffer;
  allowedMethods: string[];
  jsonParameterNames: string[];
  /**
   * The fast path may fire the hook: webhook's default (answer at once, command in the background),
   * no concurrency limit, and an answer the fast path writes as node:http would.
   */
  firesDirectly: boolean;
}

/**
 * The request body, or why there is none to act on: larger than -max-request-body, incomplete (the
 * client left, or sent a malformed chunked body: Node's parser has already answered 400), or cut
 * short by shutdown. Only a body received whole and correctly lets a command run.
 */
type BodyOutcome = Buffer | "too-large" | "incomplete" | "shutdown";

export class HookHandler {
  readonly #config: HooksConfig;
  readonly #hooks: HookLookup;
  readonly #executor: Executor;
  readonly #logger: Logger;
  readonly #globalHeaders: HeaderList;
  readonly #plans = new WeakMap<Hook, HookPlan>();
  /** Requests whose body is still arriving, and how to stop waiting for it. */
  readonly #reading = new Set<(outcome: BodyOutcome) => void>();

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
    if (hook === undefined) return this.#answer(exchange, HOOK_NOT_FOUND);
    const plan = this.#plan(hook);
    if (!methodAllowed(plan, method)) {
      log?.(`[${rid}] HTTP ${method} method not allowed for hook ${quote(id)}`);
      return this.#answer(exchange, METHOD_NOT_ALLOWED);
    }
    log?.(`[${rid}] ${id} got matched`);
    const body = this.#readBody(exchange);
    return body instanceof Promise
      ? body.then((received) => this.#withBody(exchange, hook, plan, received))
      : this.#withBody(exchange, hook, plan, body);
  }

  /**
   * The fast path's question, for a request without a body, not logged: the answer node:http's
   * path would give, with the command started when it runs in the background; undefined when the
   * answer waits for the command (or the hook limits its concurrency): node:http's path then
   * takes the request, and nothing has been started for it.
   */
  answerDirectly(parts: RequestParts, id: string): Answer | undefined {
    const hook = this.#hooks.find(id);
    if (hook === undefined) return HOOK_NOT_FOUND;
    const plan = this.#plan(hook);
    if (!methodAllowed(plan, parts.method)) return METHOD_NOT_ALLOWED;
    const verdict = this.#judge(QUIET, parts, hook, plan, EMPTY);
    if ("status" in verdict) return verdict;
    if (!plan.firesDirectly) return undefined;
    const starved = this.#starved(QUIET, plan);
    if (starved !== undefined) return starved;
    // Always a ticket: the hook has no concurrency limit.
    const ticket = this.#executor.admit(hook);
    return ticket && this.#inBackground(QUIET, hook, plan, verdict, ticket);
  }

  /**
   * A request Node's parser refused but Go would route (a method llhttp does not know, such as
   * `post`): the raw 404 or 405 webhook gives, or undefined when webhook would run the hook.
   */
  refuseUnparsed(method: string, id: string): string | undefined {
    const hook = this.#hooks.find(id);
    if (hook === undefined) return rawResponse(404, NO_HEADERS, BODY.hookNotFound, TEXT);
    if (!methodAllowed(this.#plan(hook), method)) return rawResponse(405, NO_HEADERS, EMPTY);
    return undefined;
  }

  /** Shutdown: requests still sending their body are answered 503, and nothing runs for them. */
  close(): void {
    for (const stop of this.#reading) stop("shutdown");
  }

  /** The request body, up to -max-request-body bytes; no waiting when there is none. */
  #readBody(exchange: Exchange): BodyOutcome | Promise<BodyOutcome> {
    const { req } = exchange;
    const limit = this.#config.maxRequestBody;
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
      const finish = (outcome: BodyOutcome) => {
        if (!this.#reading.delete(finish)) return;
        req.off("data", onData);
        if (!Buffer.isBuffer(outcome)) req.pause();
        resolve(outcome);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= limit) chunks.push(chunk);
        else finish("too-large");
      };
      this.#reading.add(finish);
      req.on("data", onData);
      const whole = () => finish(Buffer.concat(chunks, size));
      // Closed before its end, or refused by the parser (a malformed chunked body).
      const cut = () => (req.complete ? whole() : finish("incomplete"));
      req.once("end", whole);
      req.once("close", cut);
      req.once("error", cut);
    });
  }

  #plan(hook: Hook): HookPlan {
    let plan = this.#plans.get(hook);
    if (plan === undefined) {
      const firedHeaders = combineHeaders(this.#globalHeaders, headerList(hook.responseHeaders));
      const responseMessage = Buffer.from(hook.responseMessage, "utf8");
      plan = {
        firedHeaders,
        responseMessage,
        allowedMethods: hook.httpMethods.length > 0 ? hook.httpMethods : this.#config.httpMethods,
        jsonParameterNames: hook.jsonStringParameters
          .filter((parameter) => parameter.source === "payload")
          .map((parameter) => parameter.name),
        firesDirectly:
          !hook.captureCommandOutput &&
          !hook.streamCommandOutput &&
          hook.maxConcurrency <= 0 &&
          plainAnswer(firedHeaders, responseMessage),
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
  ): undefined {
    const sent = sendResponse(exchange.res, exchange.isHead, status, headers, body, contentType);
    logExchange(this.#logger, exchange, sent, body);
    return undefined;
  }

  #answer(exchange: Exchange, answer: Answer): undefined {
    return this.#respond(exchange, answer.status, answer.headers, answer.body, answer.contentType);
  }

  /**
   * Everything after the body: synchronous up to the command, so that an answer without one (a
   * rule mismatch, an error) costs no promise and goes out in the turn the request arrived in.
   */
  #withBody(exchange: Exchange, hook: Hook, plan: HookPlan, body: BodyOutcome): Promise<void> | undefined {
    const { req, res, rid, log } = exchange;
    const headers = this.#globalHeaders;
    if (body === "incomplete") {
      log?.(`[${rid}] the request body did not arrive whole; nothing is run`);
      return;
    }
    if (body === "shutdown") {
      res.shouldKeepAlive = false; // the rest of the body is not read
      log?.(`[${rid}] the server is shutting down before the request body arrived; nothing is run`);
      return this.#respond(exchange, 503, headers, BODY.shuttingDown, TEXT);
    }
    if (body === "too-large") {
      res.shouldKeepAlive = false; // the rest of the body is not read
      const limit = this.#config.maxRequestBody;
      log?.(`[${rid}] request body larger than ${limit} bytes refused`);
      const text = Buffer.from(`Request body too large: the limit is ${limit} bytes.\n`);
      return this.#respond(exchange, 413, headers, text, TEXT);
    }
    exchange.requestBody = body;
    const parts = {
      method: req.method ?? "GET",
      url: req.url ?? "",
      rawHeaders: req.rawHeaders,
      remoteAddr: remoteAddr(req),
    };
    const verdict = this.#judge(exchange, parts, hook, plan, body);
    return "status" in verdict ? this.#answer(exchange, verdict) : this.#fire(exchange, hook, plan, verdict);
  }

  /**
   * webhook's steps between the body and the command: parse the body, build the request's maps,
   * decode JSON parameters, evaluate the trigger rule. Returns the answer sent instead of running
   * the command (a mismatch, a bad multipart body, a rule error), or the request the command runs with.
   */
  #judge(
    context: LogContext,
    parts: RequestParts,
    hook: Hook,
    plan: HookPlan,
    body: Buffer,
  ): Answer | HookRequest {
    const { rid, log } = context;
    const headers = this.#globalHeaders;
    const contentType =
      hook.incomingPayloadContentType || (rawHeader(parts.rawHeaders, "content-type") ?? "");
    const queryAt = parts.url.indexOf("?");
    const rawQuery = queryAt < 0 ? "" : parts.url.slice(queryAt + 1);
    const parsed = parseBody(contentType, body, {
      maxMultipartMem: this.#config.maxMultipartMem,
      jsonParameterNames: plan.jsonParameterNames,
      rawQuery,
    });
    if (log !== undefined) for (const line of parsed.log) log(`[${rid}] ${line}`);
    if (parsed.multipartError) return { status: 500, headers, body: BODY.multipartError, contentType: TEXT };

    const request: HookRequest = {
      id: rid,
      method: parts.method,
      remoteAddr: parts.remoteAddr,
      headers: buildHeaderMap(parts.rawHeaders),
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
      return { status: 500, headers, body: text, contentType: TEXT };
    }

    const result = evaluateRule(hook.triggerRule, request, {
      signatureSoftFailures: hook.triggerSignatureSoftFailures,
      log,
    });
    const outcome = topLevelOutcome(result);
    if (outcome === "error") {
      log?.(`[${rid}] error evaluating hook: ${result.error?.message}`);
      return { status: 500, headers, body: BODY.ruleError, contentType: TEXT };
    }
    if (result.error !== undefined) log?.(`[${rid}] ${result.error.message}`);
    if (outcome === "mismatch") {
      const status = this.#configuredStatus(context, hook, hook.triggerRuleMismatchHttpResponseCode);
      log?.(
        `[${rid}] ${hook.id} got matched, but didn't get triggered because the trigger rules were not satisfied`,
      );
      return { status, headers, body: BODY.mismatch, contentType: TEXT };
    }
    log?.(`[${rid}] ${hook.id} hook triggered successfully`);
    return request;
  }

  async #fire(exchange: Exchange, hook: Hook, plan: HookPlan, request: HookRequest): Promise<void> {
    const { rid, log } = exchange;
    const starved = this.#starved(exchange, plan);
    if (starved !== undefined) return this.#answer(exchange, starved);
    const ticket = this.#executor.admit(hook);
    if (ticket === undefined) {
      log?.(
        `[${rid}] ${hook.id} already runs ${hook.maxConcurrency} command(s) with ${hook.maxQueue} waiting; answering 429`,
      );
      const text = Buffer.from(`Too many concurrent requests for hook ${quote(hook.id)}; retry later.\n`);
      return this.#respond(exchange, 429, combineHeaders(plan.firedHeaders, RETRY_AFTER), text, TEXT);
    }
    if (hook.streamCommandOutput) return this.#stream(exchange, hook, plan, request, ticket);
    if (!hook.captureCommandOutput)
      return this.#answer(exchange, this.#inBackground(exchange, hook, plan, request, ticket));
    const command = await this.#executor.run(hook, request, "capture", ticket);
    const failure = commandFailure(hook, command);
    if (failure !== undefined && failure.body !== command.output)
      return this.#respond(exchange, failure.status, plan.firedHeaders, failure.body, failure.type);
    const status = failure?.status ?? this.#configuredStatus(exchange, hook, hook.successHttpResponseCode);
    if (!command.truncated) return this.#respond(exchange, status, plan.firedHeaders, command.output);
    // Cut output must not pass for the whole: the answer says so, in a header and at its end.
    const limit = this.#config.maxCommandOutput;
    const note = `\n[output cut: the command wrote more than ${limit} bytes; see -max-command-output]\n`;
    const body = Buffer.concat([command.output, Buffer.from(note)]);
    return this.#respond(exchange, status, combineHeaders(plan.firedHeaders, TRUNCATED), body);
  }

  /** The 503 while commands already accepted wait for resources: no more are taken meanwhile. */
  #starved(context: LogContext, plan: HookPlan): Answer | undefined {
    if (!waitingForResources()) return undefined;
    context.log?.(
      `[${context.rid}] commands already accepted are waiting for resources to start; answering 503`,
    );
    return {
      status: 503,
      headers: combineHeaders(plan.firedHeaders, RETRY_AFTER),
      body: BODY.starved,
      contentType: TEXT,
    };
  }

  /**
   * webhook's default once a hook fires: the answer, sent at once, while the command runs in the
   * background. It starts once the caller has written the answer (a microtask later), as webhook
   * answers and runs the command in a goroutine of its own.
   */
  #inBackground(
    context: LogContext,
    hook: Hook,
    plan: HookPlan,
    request: HookRequest,
    ticket: Ticket,
  ): Answer {
    const status = this.#configuredStatus(context, hook, hook.successHttpResponseCode);
    queueMicrotask(() => {
      this.#executor
        .run(hook, request, "ignore", ticket)
        .catch((error: unknown) =>
          this.#logger.log(`[${context.rid}] running the command failed: ${String(error)}`),
        );
    });
    return { status, headers: plan.firedHeaders, body: plan.responseMessage };
  }

  /** A configured success/mismatch code, with webhook's log line when Go has no text for it. */
  #configuredStatus(exchange: LogContext, hook: Hook, code: number): number {
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
  if (command.cancelled) return { status: 503, body: BODY.shuttingDown, type: TEXT };
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

/** The hook's http-methods (or -http-methods) allow the method; an empty list allows all. */
function methodAllowed(plan: HookPlan, method: string): boolean {
  return plan.allowedMethods.length === 0 || plan.allowedMethods.includes(method);
}
