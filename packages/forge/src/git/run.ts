import { GitCommandError } from "./command-error.ts";
import { type SpawnGitOptions, spawnGit } from "./process.ts";

const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface RunGitOptions extends SpawnGitOptions {
  /** Written to git's stdin, which is then closed. */
  input?: string | Buffer;
  /** More stdout than this stops git and fails the command. */
  maxOutputBytes?: number;
  /** Exit codes besides 0 that are answers rather than failures (`rev-parse --verify --quiet`: 1). */
  acceptExitCodes?: readonly number[];
}

export interface GitResult {
  stdout: string;
  exitCode: number;
}

/** Runs `git <args>` to completion and returns its output; throws GitCommandError when it fails. */
export async function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> {
  const { stdout, exitCode } = await runGitForBytes(args, options);
  return { stdout: stdout.toString("utf8"), exitCode };
}

/** runGit for output that need not be text (a blob's content). */
export async function runGitForBytes(
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<{ stdout: Buffer; exitCode: number }> {
  const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const git = spawnGit(args, options);
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  git.stdout.on("data", (chunk: Buffer) => {
    if (overflowed) return;
    size += chunk.length;
    if (size > limit) {
      overflowed = true;
      git.kill();
    } else {
      chunks.push(chunk);
    }
  });
  git.stdin.end(options.input);
  const exit = await git.exited;
  if (overflowed) throw new GitCommandError(args, exit, `its output exceeded ${limit} bytes`);
  const code = exit.code;
  if (code !== null && (code === 0 || options.acceptExitCodes?.includes(code))) {
    return { stdout: Buffer.concat(chunks), exitCode: code };
  }
  throw new GitCommandError(args, exit);
}
