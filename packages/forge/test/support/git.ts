import { run } from "../ssh/tools.ts";

/** Runs the real git client in `cwd`, isolated from the host's configuration, without a shell. */
export function git(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return run("git", args, { cwd, env: { HOME: cwd, ...env } }).then((result) => ({
    ...result,
    code: result.code ?? -1,
  }));
}

/** An http URL with credentials in it, as users paste them into `git clone`. */
export function withCredentials(base: string, user: string, secret: string): string {
  const url = new URL(base);
  url.username = encodeURIComponent(user);
  url.password = encodeURIComponent(secret);
  return url.href.replace(/\/$/, "");
}
