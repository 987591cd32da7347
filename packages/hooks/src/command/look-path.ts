// Finding a hook's execute-command as webhook does (exec.LookPath), and Go's wording when it
// cannot be started.

import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { errnoText } from "../go/errors.ts";
import { quote } from "../go/strconv.ts";
import type { Hook } from "../types.ts";

/** PATH lookups are remembered this long, so a busy hook does not stat PATH on every request. */
const LOOKUP_CACHE_MS = 1000;

/** What webhook hands to exec.LookPath: absolute, or no working directory → as is; else joined. */
export function commandLookPath(hook: Hook): string {
  const command = hook.executeCommand;
  if (path.isAbsolute(command) || hook.commandWorkingDirectory === "") return command;
  return path.join(hook.commandWorkingDirectory, command);
}

export class CommandLookup {
  readonly #found = new Map<string, { file: string; until: number }>();

  /**
   * exec.LookPath: a path (anything with a slash) is taken as is, relative to the server's
   * directory, and checked by the spawn itself; a bare name is searched in PATH.
   */
  async resolve(lookPath: string): Promise<string | { error: string }> {
    if (lookPath.includes("/")) return path.resolve(lookPath);
    const searchPath = process.env.PATH ?? "";
    const key = `${lookPath}\0${searchPath}`;
    const cached = this.#found.get(key);
    const now = Date.now();
    if (cached !== undefined && cached.until > now) return cached.file;
    if (lookPath !== "") {
      for (const dir of searchPath.split(path.delimiter)) {
        const candidate = path.join(dir === "" ? "." : dir, lookPath);
        if (!(await isExecutable(candidate))) continue;
        if (!path.isAbsolute(candidate)) {
          return {
            error: `exec: ${quote(lookPath)}: cannot run executable found relative to current directory`,
          };
        }
        this.#found.set(key, { file: candidate, until: now + LOOKUP_CACHE_MS });
        return candidate;
      }
    }
    this.#found.delete(key);
    return { error: `exec: ${quote(lookPath)}: executable file not found in $PATH` };
  }
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const info = await stat(file);
    return !info.isDirectory() && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Go's message for a command that could not be started (errno code from the spawn). */
export async function spawnErrorText(
  code: string,
  lookPath: string,
  cwd: string,
  file: string,
): Promise<string> {
  const reason = errnoText({ code });
  if (code === "EACCES") return `exec: ${quote(lookPath)}: permission denied`;
  if (code !== "ENOENT") return `fork/exec ${file}: ${reason}`;
  // ENOENT is either the command (LookPath's stat in Go) or the working directory (chdir).
  const missing = await access(file, constants.F_OK).then(
    () => false,
    () => true,
  );
  if (missing || cwd === "") return `exec: ${quote(lookPath)}: stat ${lookPath}: ${reason}`;
  return `chdir ${cwd}: ${reason}`;
}
