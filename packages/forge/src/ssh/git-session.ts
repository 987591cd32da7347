import { type ChildProcess, spawn } from "node:child_process";
import { isAbsolute } from "node:path";
import type { Logger } from "@anvil/core";
import type { ServerChannel, Session } from "ssh2";
import { gitEnvironment, gitProtocolEnvironment } from "../git/index.ts";
import { type GitRequest, NO_SHELL_MESSAGE, parseGitCommand } from "./git-command.ts";

/** The forge's answer for one request: the bare repository to serve (and extra environment for
 * its hooks), or a refusal the user sees on stderr. */
export type GitAccess =
  | {
      repoPath: string;
      env?: Record<string, string>;
      /** Called once git has exited (the forge notes a push); its failure is logged, never shown. */
      afterExit?: (code: number) => Promise<void>;
    }
  | { refuse: string };

export type Authorize<P> = (principal: P, request: GitRequest) => Promise<GitAccess>;

interface SessionContext<P> {
  principal: P;
  authorize: Authorize<P>;
  gitPath: string;
  logger: Logger;
  /** Git processes of this connection; a dropped connection or a closing server kills them. */
  running: Set<ChildProcess>;
}

// Git's protocol negotiation values look like `version=2` or `version=2:key=value`.
const GIT_PROTOCOL_VALUE = /^[A-Za-z0-9=:._-]{1,256}$/;
const EMPTY = Buffer.alloc(0);

/** Serves one SSH session: git's env request, one git command, and a polite no to anything else. */
export function serveSession<P>(session: Session, context: SessionContext<P>): void {
  let gitProtocol: string | undefined;
  let newline = "\n";
  session.on("env", (accept, reject, { key, val }) => {
    if (key === "GIT_PROTOCOL" && GIT_PROTOCOL_VALUE.test(val)) {
      gitProtocol = val;
      accept?.();
    } else {
      reject?.();
    }
  });
  // Granted but never backed by a terminal, as Gitea does: `ssh git@host` from a terminal (or
  // `ssh -tt`) then reaches the shell request and shows the message instead of failing early.
  session.on("pty", (accept) => {
    newline = "\r\n";
    accept?.();
  });
  session.on("shell", (accept) => {
    const channel = accept();
    if (!channel) return;
    quiet(channel, context.logger);
    endChannel(channel, 1, `${NO_SHELL_MESSAGE}${newline}`).catch(abandon(channel, context.logger));
  });
  session.on("exec", (accept, _reject, { command }) => {
    const channel = accept();
    if (!channel) return;
    quiet(channel, context.logger);
    runCommand(channel, command, gitProtocol, context).catch(abandon(channel, context.logger));
  });
}

// A failure here (git's path rejected by spawn, a channel torn down mid-write) ends this session only.
function abandon(channel: ServerChannel, logger: Logger): (error: unknown) => void {
  return (error) => {
    logger.error({ err: error }, "SSH session failed");
    channel.destroy();
  };
}

// Writes racing a client that hangs up fail on the channel; that is the client's choice, not a crash.
function quiet(channel: ServerChannel, logger: Logger): void {
  const log = (error: Error) => logger.debug({ err: error }, "SSH channel error");
  channel.on("error", log);
  channel.stderr.on("error", log);
}

async function runCommand<P>(
  channel: ServerChannel,
  command: string,
  gitProtocol: string | undefined,
  context: SessionContext<P>,
): Promise<void> {
  const parsed = parseGitCommand(command);
  if ("refuse" in parsed) return endChannel(channel, 1, `${parsed.refuse}\n`);
  const { request } = parsed;
  let access: GitAccess;
  try {
    access = await context.authorize(context.principal, request);
  } catch (error) {
    context.logger.error({ err: error, ...request }, "SSH git authorization failed");
    return endChannel(channel, 1, "anvil: internal error\n");
  }
  if ("refuse" in access) {
    context.logger.info(request, "SSH git request refused");
    return endChannel(channel, 1, `${access.refuse}\n`);
  }
  if (!isAbsolute(access.repoPath)) {
    context.logger.error(request, "SSH git authorization returned a relative repository path");
    return endChannel(channel, 1, "anvil: internal error\n");
  }
  const code = await runGit(channel, request, access.repoPath, gitEnv(access.env, gitProtocol), context);
  context.logger.info({ ...request, code }, "SSH git request served");
  await access.afterExit?.(code).catch((error: unknown) => {
    context.logger.error({ err: error, ...request }, "after the SSH git request");
  });
  return endChannel(channel, code);
}

// git runs in the git layer's isolated environment (nothing of the server's own environment or
// the host's configuration reaches it); the client decides only the protocol version.
function gitEnv(
  forge: Record<string, string> | undefined,
  gitProtocol: string | undefined,
): NodeJS.ProcessEnv {
  return gitEnvironment({ ...forge, ...gitProtocolEnvironment(gitProtocol) });
}

// Streams both ways with backpressure (SSH window ↔ pipe buffers), so a clone or push of any size
// holds only a few buffers in memory.
function runGit<P>(
  channel: ServerChannel,
  request: GitRequest,
  repoPath: string,
  env: NodeJS.ProcessEnv,
  context: SessionContext<P>,
): Promise<number> {
  const subcommand = request.service.slice("git-".length);
  const child = spawn(context.gitPath, [subcommand, repoPath], { env, stdio: "pipe" });
  context.running.add(child);
  // git may exit before reading everything the client sent (a refused push, a broken pipe).
  child.stdin.on("error", () => {});
  channel.pipe(child.stdin);
  child.stdout.pipe(channel, { end: false });
  child.stderr.pipe(channel.stderr, { end: false });
  channel.once("close", () => child.kill());
  return new Promise((resolve) => {
    const finish = (code: number) => {
      context.running.delete(child);
      channel.unpipe(child.stdin);
      channel.resume();
      resolve(code);
    };
    child.once("error", (error) => {
      context.logger.error({ err: error, ...request }, "could not start git");
      finish(1);
    });
    child.once("close", (code) => finish(code ?? 1));
  });
}

/** Sends the exit status only after everything written so far has left, then closes the channel. */
async function endChannel(channel: ServerChannel, code: number, text?: string): Promise<void> {
  // The client may have closed the channel already (an interrupted clone).
  if (!channel.writable || !channel.stderr.writable) return;
  if (text !== undefined) channel.stderr.write(text);
  await new Promise<void>((resolve) => {
    let pending = 2;
    const written = () => {
      pending--;
      if (pending === 0) resolve();
    };
    channel.write(EMPTY, written);
    channel.stderr.write(EMPTY, written);
    channel.once("close", resolve);
  });
  channel.exit(code);
  channel.end();
}
