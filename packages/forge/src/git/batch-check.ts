import { type GitProcess, spawnGit } from "./process.ts";
import { runGit } from "./run.ts";

// Object look-ups (`<name>` → `<id> <type>`) answered by one long-lived `git cat-file
// --batch-check` per repository, as Gitea keeps its batch readers: a request that only needs to
// know which commit a branch names pays a round trip through a pipe, not a new process. git reads
// refs afresh for every name it is given (loose ref files each time, packed-refs when their file
// changed), so a process kept alive still sees every push, from this process or another one.

const FORMAT = "--batch-check=%(objectname) %(objecttype)";
/** A process unused this long ends. */
const IDLE_MS = 10_000;
/** At most this many are kept; the least recently used one ends first. */
const MAX_PROCESSES = 32;

class BatchCheck {
  private readonly git: GitProcess;
  private readonly waiting: Array<(line: string | undefined) => void> = [];
  private pending = "";
  private timer: NodeJS.Timeout | undefined;
  private readonly onEnd: (batch: BatchCheck) => void;
  readonly repoPath: string;
  alive = true;

  constructor(repoPath: string, onEnd: (batch: BatchCheck) => void) {
    this.repoPath = repoPath;
    this.onEnd = onEnd;
    this.git = spawnGit([`--git-dir=${repoPath}`, "cat-file", FORMAT]);
    this.git.unref();
    this.git.stdout.setEncoding("utf8");
    this.git.stdout.on("data", (chunk: string) => {
      const lines = (this.pending + chunk).split("\n");
      this.pending = lines.pop() ?? "";
      for (const line of lines) this.waiting.shift()?.(line);
    });
    void this.git.exited.then(() => this.end());
    this.touch();
  }

  private touch() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.close(), IDLE_MS);
    // An idle look-up process never keeps the server from exiting.
    this.timer.unref();
  }

  private end() {
    if (!this.alive) return;
    this.alive = false;
    clearTimeout(this.timer);
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
    this.onEnd(this);
  }

  close() {
    this.git.stdin.end();
    this.end();
  }

  /** One answer line per name, in order; undefined for each when the process ended first. */
  check(names: readonly string[]): Promise<(string | undefined)[]> {
    if (!this.alive) return Promise.resolve(names.map(() => undefined));
    this.touch();
    const answers = names.map(
      () =>
        new Promise<string | undefined>((resolve) => {
          this.waiting.push(resolve);
        }),
    );
    this.git.stdin.write(names.map((name) => `${name}\n`).join(""));
    return Promise.all(answers);
  }
}

const processes = new Map<string, BatchCheck>();

function batchFor(repoPath: string): BatchCheck {
  let batch = processes.get(repoPath);
  if (batch?.alive) {
    // Most recently used last, so the first one is the one to end.
    processes.delete(repoPath);
    processes.set(repoPath, batch);
    return batch;
  }
  if (processes.size >= MAX_PROCESSES) processes.values().next().value?.close();
  batch = new BatchCheck(repoPath, (ended) => {
    if (processes.get(ended.repoPath) === ended) processes.delete(ended.repoPath);
  });
  processes.set(repoPath, batch);
  return batch;
}

/**
 * `git cat-file --batch-check` answers for `names` (`<id> <type>`, or `<name> missing`), through
 * the repository's kept process; a fresh one when that process went away meanwhile. Names must not
 * hold a newline.
 */
export async function batchCheck(repoPath: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const answers = await batchFor(repoPath).check(names);
  if (answers.every((answer) => answer !== undefined)) return answers as string[];
  const { stdout } = await runGit([`--git-dir=${repoPath}`, "cat-file", FORMAT], {
    input: names.map((name) => `${name}\n`).join(""),
  });
  return stdout.split("\n").slice(0, names.length);
}

/** Ends every kept process (a server shutting down, a test finishing). */
export function closeBatchChecks(): void {
  for (const batch of [...processes.values()]) batch.close();
}
