// Loading one hooks file: read, optional -template pass, YAML with webhook's semantics, decode, validate.
import { readFile } from "node:fs/promises";
import { errnoText } from "../go/errors.ts";
import { renderTemplate, TemplateError } from "../template/exec.ts";
import type { ConfigProblem, Hook } from "../types.ts";
import { decodeHook, hookValues } from "./decode.ts";
import { validateHook } from "./validate.ts";
import { ConfigError, parseYaml } from "./yaml.ts";

export { formatProblem } from "./validate.ts";
export { ConfigError } from "./yaml.ts";

export interface HooksFile {
  hooks: Hook[];
  problems: ConfigProblem[];
}

/**
 * Parses the text of a hooks file. Throws ConfigError when webhook could not load it at all; hooks it
 * would load but that cannot work as written come back as problems.
 */
export function parseHooksFile(text: string, file: string): HooksFile {
  const values = hookValues(parseYaml(text, file), file);
  const hooks: Hook[] = [];
  const problems: ConfigProblem[] = [];
  const firstIndexById = new Map<string, number>();
  values.forEach((value, index) => {
    const decoded = decodeHook(value, index, file);
    const { hook } = decoded;
    for (const { field, message } of decoded.problems)
      problems.push({ file, hookId: hook.id, field, message });
    const firstIndex = firstIndexById.get(hook.id);
    if (firstIndex === undefined) firstIndexById.set(hook.id, index);
    problems.push(...validateHook(hook, index, firstIndex));
    hooks.push(hook);
  });
  return { hooks, problems };
}

/** The raw text of a hooks file; read errors are worded like webhook's (`open x: no such file or directory`). */
export async function readHooksFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const verb = (error as NodeJS.ErrnoException).code === "EISDIR" ? "read" : "open";
    throw new ConfigError(`${verb} ${path}: ${errnoText(error)}`, { cause: error });
  }
}

/** Parses the raw text of the hooks file at `path`, first executing it as a Go text/template with `template`. */
export function parseHooksSource(raw: string, path: string, opts: { template: boolean }): HooksFile {
  let text = raw;
  if (opts.template) {
    try {
      text = renderTemplate(raw, path);
    } catch (error) {
      if (error instanceof TemplateError) throw new ConfigError(error.message, { cause: error });
      throw error;
    }
  }
  return parseHooksFile(text, path);
}

/** Reads and parses a hooks file; throws ConfigError when webhook would drop it. */
export async function loadHooksFile(path: string, opts: { template: boolean }): Promise<HooksFile> {
  return parseHooksSource(await readHooksFile(path), path, opts);
}
