import { type Readable, Transform } from "node:stream";
import { GitCommandError, type GitExit } from "./command-error.ts";
import type { GitProcess } from "./process.ts";

export interface GitOutputOptions {
  /** Sent before git's first byte. */
  prefix?: Buffer;
  /**
   * Settles when git's input has been delivered, with the client's fault if it was refused (a body
   * over the limit): that fault is the answer, whatever git makes of the input it was cut off from.
   */
  input?: Promise<Error | undefined>;
  /** The client's fault among git's failures (a malformed request), answered instead of a server error. */
  clientFault?: (exit: GitExit) => Error | undefined;
  /** The body was destroyed before git finished (the client went away). */
  abandoned: () => void;
}

export interface GitOutput {
  /** git's stdout; it ends only when git succeeded, and fails otherwise. */
  body: Readable;
  /**
   * Resolves once git has written something (or succeeded without a word), so a response can
   * still become an error response until then; rejects with the failure when git fails first.
   */
  started: Promise<void>;
}

/**
 * git's stdout as a response body. A failure after the start breaks the body off rather than end
 * it, so a client never takes a truncated pack for a complete one; a request git refused after
 * the start (the client's fault) ends it, git having said why. Backpressure reaches git through
 * the pipe.
 */
export function gitOutput(git: GitProcess, options: GitOutputOptions): GitOutput {
  const started = Promise.withResolvers<void>();
  let begun = false;
  let exited = false;
  const begin = (body: Transform) => {
    if (begun) return;
    begun = true;
    if (options.prefix) body.push(options.prefix);
    started.resolve();
  };
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      begin(this);
      done(null, chunk);
    },
    flush(done) {
      begin(this);
      done();
    },
  });
  // A failure reaches the HTTP server through its own listeners; this one only keeps a failure
  // that nobody is listening for yet from becoming an uncaught exception.
  body.on("error", () => {});
  git.stdout.pipe(body, { end: false });
  body.once("close", () => {
    if (exited) return;
    options.abandoned();
    // Unread output would keep git blocked on a full pipe and its streams from closing.
    git.stdout.resume();
  });
  let failed = false;
  const fail = (error: Error) => {
    if (failed) return;
    failed = true;
    if (begun) {
      body.destroy(error);
    } else {
      // Nobody reads the body yet: the failure goes to whoever awaits `started`.
      started.reject(error);
      body.destroy();
    }
  };
  // A refused body is answered at once, before git reports on the input it was cut off from.
  void options.input?.then((fault) => fault && fail(fault));
  void git.exited.then(async (exit) => {
    exited = true;
    const fault = await options.input;
    const refused = exit.code === 0 ? undefined : options.clientFault?.(exit);
    if (fault) fail(fault);
    // git refused the request after it began answering: what it wrote (an `ERR` packet saying why)
    // is its whole answer, which the client reads to its end.
    else if (exit.code === 0 || (refused && begun)) body.end();
    else fail(refused ?? new GitCommandError(git.args, exit));
  });
  return { body, started: started.promise };
}
