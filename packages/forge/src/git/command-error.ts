/** How a git process ended. */
export interface GitExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The start of what git wrote to stderr. */
  stderr: string;
  /** Set when git could not be started at all. */
  spawnError?: Error;
}

/**
 * A git command that failed. The message names the command and carries git's stderr, so a log line
 * says what went wrong; the environment is never part of it.
 */
export class GitCommandError extends Error {
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  constructor(args: readonly string[], exit: GitExit, reason?: string) {
    super(`git ${args.join(" ")} failed: ${reason ?? describeExit(exit)}`, { cause: exit.spawnError });
    this.name = "GitCommandError";
    this.args = args;
    this.exitCode = exit.code;
    this.signal = exit.signal;
    this.stderr = exit.stderr;
  }
}

function describeExit(exit: GitExit): string {
  if (exit.spawnError) return `could not start git: ${exit.spawnError.message}`;
  const status = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
  const stderr = exit.stderr.trim();
  return stderr === "" ? status : `${status}: ${stderr}`;
}
