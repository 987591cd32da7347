// The live set of hooks: loaded from the -hooks files at start, reloaded on SIGHUP/SIGUSR1 with
// webhook's rules, and (with -hotreload) kept in step with the files through directory watches.
import { type FSWatcher, realpathSync, watch } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import type { Hook, Log } from "../types.ts";
import { formatProblem, type HooksFile, parseHooksSource, readHooksFile } from "./hooks-file.ts";

/** Two -hooks files define the same id; webhook refuses to start (exit status 1). */
export class DuplicateHookError extends Error {
  readonly hookId: string;
  constructor(hookId: string) {
    super(duplicateMessage(hookId));
    this.name = "DuplicateHookError";
    this.hookId = hookId;
  }
}

/** A hook the running setup cannot serve correctly (see HookRegistryOptions.refuse): start-up stops. */
export class RefusedHookError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RefusedHookError";
  }
}

function duplicateMessage(id: string): string {
  return `error: hook with the id ${id} has already been loaded!\nplease check your hooks file for duplicate hooks ids!`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function listOrNone(ids: string[]): string {
  return ids.length === 0 ? "none" : ids.join(", ");
}

/** Identity of a file version: a change while it is being read means a writer is still at work. */
async function fileVersion(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch {
    return undefined;
  }
}

interface WatchedDirectory {
  names: Set<string>;
  /** Some hooks file here is a symlink: any entry may be a link on its path (Kubernetes' ..data swap). */
  anyEntry: boolean;
}

export interface HookRegistryOptions {
  files: string[];
  template: boolean;
  log: Log;
  /** Why a hook cannot be served here (e.g. max-concurrency under -workers), or undefined when it can. */
  refuse?: (hook: Hook) => string | undefined;
  /** Quiet time after the last file event before files are read again. */
  debounceMs?: number;
  /** Longest wait for quiet time while events keep coming. */
  maxWaitMs?: number;
}

export class HookRegistry {
  private readonly configured: string[];
  private readonly template: boolean;
  private readonly log: Log;
  private readonly refuse: (hook: Hook) => string | undefined;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  /** Hooks of each file in use; a file that failed at start or was deleted has no entry (webhook's list). */
  private readonly byFile = new Map<string, Hook[]>();
  /** The text each file had when last read, so watch events that change nothing are ignored. */
  private readonly lastText = new Map<string, string>();
  private index = new Map<string, Hook>();
  private queue: Promise<void> = Promise.resolve();
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private pendingSince: number | undefined;
  private closed = false;

  constructor(opts: HookRegistryOptions) {
    this.configured = [...opts.files];
    this.template = opts.template;
    this.log = opts.log;
    this.refuse = opts.refuse ?? (() => undefined);
    this.debounceMs = opts.debounceMs ?? 100;
    this.maxWaitMs = opts.maxWaitMs ?? 1000;
  }

  /** O(1), exact and case-sensitive; inside a file the first definition of an id wins. */
  find(id: string): Hook | undefined {
    return this.index.get(id);
  }

  get size(): number {
    return this.index.size;
  }

  /** Start-up: a file that cannot be loaded is logged and left out; an id in two files throws DuplicateHookError. */
  load(): Promise<void> {
    return this.serialized(async () => {
      for (const file of this.configured) {
        this.log(`attempting to load hooks from ${file}`);
        const loaded = await this.readAndParse(file);
        if (loaded === undefined) continue;
        this.log(`found ${loaded.hooks.length} hook(s) in file`);
        for (const hook of loaded.hooks) {
          // Only other files count: inside one file duplicates are allowed and the first one wins.
          if (this.index.has(hook.id)) throw new DuplicateHookError(hook.id);
          const refused = this.refuse(hook);
          if (refused !== undefined) throw new RefusedHookError(refused);
          this.log(`\tloaded: ${hook.id}`);
        }
        this.apply(file, loaded);
      }
    });
  }

  /** SIGHUP/SIGUSR1: reloads every file in use; a file that fails or would clash keeps its previous hooks. */
  reload(): Promise<void> {
    return this.serialized(async () => {
      for (const file of this.configured) if (this.byFile.has(file)) await this.reloadFile(file);
    });
  }

  /**
   * -hotreload. Watches each file's directory, so replacing the file (editors' rename-on-save,
   * `mv tmp hooks.json`) is seen as well as writes; reads once events settle; an empty or invalid file
   * keeps the last good hooks; a deleted file drops its hooks and is picked up again if it comes back.
   */
  watch(): void {
    if (this.watchers.length > 0 || this.closed) return;
    const directories = new Map<string, WatchedDirectory>();
    const add = (path: string, anyEntry: boolean) => {
      const directory = dirname(path);
      const entry = directories.get(directory) ?? { names: new Set<string>(), anyEntry: false };
      entry.names.add(basename(path));
      entry.anyEntry ||= anyEntry;
      directories.set(directory, entry);
    };
    for (const file of this.configured) {
      this.log(`setting up file watcher for ${file}`);
      const absolute = resolve(file);
      let real = absolute;
      try {
        real = realpathSync(absolute);
      } catch {
        // Not there yet: watching its directory shows when it appears.
      }
      add(absolute, real !== absolute);
      if (real !== absolute) add(real, false);
    }
    for (const [directory, entry] of directories) {
      try {
        const watcher = watch(directory, { persistent: false }, (_event, name) => {
          if (entry.anyEntry || name === null || entry.names.has(name)) this.scheduleCheck();
        });
        watcher.on("error", (error) => this.log(`watcher error: ${errorText(error)}`));
        this.watchers.push(watcher);
      } catch (error) {
        this.log(`couldn't watch directory ${directory}: ${errorText(error)}`);
      }
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }

  /** Runs one change at a time, so reloads from signals and from the watcher never interleave. */
  private serialized(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async readAndParse(file: string, text?: string): Promise<HooksFile | undefined> {
    try {
      const raw = text ?? (await readHooksFile(file));
      this.lastText.set(file, raw);
      return parseHooksSource(raw, file, { template: this.template });
    } catch (error) {
      this.log(`couldn't load hooks from file! ${errorText(error)}`);
      return undefined;
    }
  }

  private apply(file: string, loaded: HooksFile): void {
    this.byFile.set(file, loaded.hooks);
    this.rebuildIndex();
    for (const problem of loaded.problems) this.log(formatProblem(problem));
  }

  private rebuildIndex(): void {
    const index = new Map<string, Hook>();
    for (const file of this.configured) {
      for (const hook of this.byFile.get(file) ?? []) if (!index.has(hook.id)) index.set(hook.id, hook);
    }
    this.index = index;
  }

  /** webhook's reload of one file: refused when it fails to load or repeats an id (its own or another file's). */
  private async reloadFile(file: string, text?: string): Promise<void> {
    this.log(`attempting to reload hooks from ${file}`);
    const previous = this.byFile.get(file);
    const loaded = await this.readAndParse(file, text);
    if (loaded === undefined) {
      if (previous !== undefined)
        this.log(`keeping the ${previous.length} hook(s) previously loaded from ${file}`);
      return;
    }
    this.log(`found ${loaded.hooks.length} hook(s) in file`);
    const seen = new Set<string>();
    for (const hook of loaded.hooks) {
      const owner = this.index.get(hook.id)?.source;
      if ((owner !== undefined && owner !== file) || seen.has(hook.id)) {
        this.log(duplicateMessage(hook.id));
        this.log("reverting hooks back to the previous configuration");
        return;
      }
      const refused = this.refuse(hook);
      if (refused !== undefined) {
        this.log(refused);
        this.log("reverting hooks back to the previous configuration");
        return;
      }
      seen.add(hook.id);
      this.log(`\tloaded: ${hook.id}`);
    }
    const before = new Set((previous ?? []).map((hook) => hook.id));
    const added = [...seen].filter((id) => !before.has(id));
    const removed = [...before].filter((id) => !seen.has(id));
    const kept = seen.size - added.length;
    this.log(
      `applied hooks from ${file}: added ${listOrNone(added)}; removed ${listOrNone(removed)}; kept ${kept}`,
    );
    this.apply(file, loaded);
  }

  private removeFile(file: string): void {
    const hooks = this.byFile.get(file) ?? [];
    this.log(`hooks file ${file} removed, removing hooks that were loaded from it`);
    this.log(`removing hooks from ${file}`);
    for (const hook of hooks) this.log(`\tremoving: ${hook.id}`);
    this.byFile.delete(file);
    this.lastText.delete(file);
    this.rebuildIndex();
    this.log(`removed ${hooks.length} hook(s) that were loaded from file ${file}`);
  }

  /** Debounced: waits for quiet, but no longer than maxWaitMs when events never stop. */
  private scheduleCheck(): void {
    if (this.closed) return;
    const now = Date.now();
    this.pendingSince ??= now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.debounceMs, this.pendingSince + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.pendingSince = undefined;
      void this.serialized(() => this.checkFiles());
    }, wait);
  }

  private async checkFiles(): Promise<void> {
    for (const file of this.configured) {
      if (this.closed) return;
      await this.checkFile(file);
    }
  }

  private async checkFile(file: string): Promise<void> {
    const version = await fileVersion(file);
    if (version === undefined) {
      if (this.byFile.has(file)) this.removeFile(file);
      else this.lastText.delete(file);
      return;
    }
    let text: string;
    try {
      text = await readHooksFile(file);
    } catch (error) {
      this.log(`couldn't read hooks file ${file}: ${errorText(error)}`);
      return;
    }
    if ((await fileVersion(file)) !== version) {
      // Still being written: look again once the writer is done.
      this.scheduleCheck();
      return;
    }
    if (text === this.lastText.get(file)) return;
    const known = this.lastText.has(file);
    const previous = this.byFile.get(file);
    if (text.trim() === "") {
      // Editors and `>` redirections truncate before writing; an empty file is not taken as "no hooks".
      this.lastText.set(file, text);
      const kept =
        previous === undefined ? "" : `; keeping the ${previous.length} hook(s) previously loaded from it`;
      this.log(`hooks file ${file} is empty${kept} (write [] to remove all its hooks)`);
      return;
    }
    this.log(`hooks file ${file} ${known ? "modified" : "created"}`);
    await this.reloadFile(file, text);
  }
}
