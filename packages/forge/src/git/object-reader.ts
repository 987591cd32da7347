import { type GitProcess, spawnGit } from "./process.ts";

// Objects read through one long-lived `git cat-file --batch-command` per repository (batch-check.ts
// answers its look-ups through it too): a file's tree entry and bytes cost round trips through a pipe,
// not new processes, and starting a process from a server holding hundreds of megabytes costs
// milliseconds of its event loop each time. git looks each name up afresh (refs, new packs), so a
// kept process sees every push.

const FORMAT = "--batch-command=%(objectname) %(objecttype) %(objectsize)";
/** A process unused this long ends. */
const IDLE_MS = 10_000;
/** At most this many are kept; the least recently used one ends first. */
const MAX_PROCESSES = 32;
const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+) (\d+)$/;

export interface ObjectInfo {
  id: string;
  type: string;
  size: number;
}

interface Waiting {
  contents: boolean;
  resolve: (answer: { info: ObjectInfo; bytes?: Buffer } | "missing" | undefined) => void;
  info?: ObjectInfo;
}

class ObjectReader {
  private readonly git: GitProcess;
  private readonly waiting: Waiting[] = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly onEnd: (reader: ObjectReader) => void;
  readonly repoPath: string;
  alive = true;

  constructor(repoPath: string, onEnd: (reader: ObjectReader) => void) {
    this.repoPath = repoPath;
    this.onEnd = onEnd;
    this.git = spawnGit([`--git-dir=${repoPath}`, "cat-file", FORMAT]);
    this.git.unref();
    this.git.stdout.on("data", (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.parse();
    });
    void this.git.exited.then(() => this.end());
    this.touch();
  }

  private touch() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.close(), IDLE_MS);
    this.timer.unref();
  }

  /** The buffered output as one buffer (joined only when an answer is complete or a header awaited). */
  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private consume(bytes: number) {
    const rest = this.joined().subarray(bytes);
    this.chunks = rest.length === 0 ? [] : [rest];
    this.buffered = rest.length;
  }

  private parse() {
    for (;;) {
      const next = this.waiting[0];
      if (!next) return;
      if (next.info === undefined) {
        const output = this.joined();
        const newline = output.indexOf(0x0a);
        if (newline === -1) return;
        const header = output.subarray(0, newline).toString("utf8");
        this.consume(newline + 1);
        const match = HEADER.exec(header);
        if (!match) {
          // `<name> missing`, `<name> ambiguous`: nothing follows the line.
          this.waiting.shift();
          next.resolve("missing");
          continue;
        }
        next.info = { id: match[1], type: match[2], size: Number(match[3]) };
        if (!next.contents) {
          this.waiting.shift();
          next.resolve({ info: next.info });
          continue;
        }
      }
      // The contents, then a newline.
      if (this.buffered < next.info.size + 1) return;
      const bytes = Buffer.from(this.joined().subarray(0, next.info.size));
      this.consume(next.info.size + 1);
      this.waiting.shift();
      next.resolve({ info: next.info, bytes });
    }
  }

  private end() {
    if (!this.alive) return;
    this.alive = false;
    clearTimeout(this.timer);
    for (const waiting of this.waiting.splice(0)) waiting.resolve(undefined);
    this.onEnd(this);
  }

  close() {
    this.git.stdin.end();
    this.end();
  }

  ask(command: "info" | "contents", name: string) {
    if (!this.alive) return Promise.resolve(undefined);
    this.touch();
    return new Promise<{ info: ObjectInfo; bytes?: Buffer } | "missing" | undefined>((resolve) => {
      this.waiting.push({ contents: command === "contents", resolve });
      this.git.stdin.write(`${command} ${name}\n`);
    });
  }
}

const readers = new Map<string, ObjectReader>();

function readerFor(repoPath: string): ObjectReader {
  let reader = readers.get(repoPath);
  if (reader?.alive) {
    readers.delete(repoPath);
    readers.set(repoPath, reader);
    return reader;
  }
  if (readers.size >= MAX_PROCESSES) readers.values().next().value?.close();
  reader = new ObjectReader(repoPath, (ended) => {
    if (readers.get(ended.repoPath) === ended) readers.delete(ended.repoPath);
  });
  readers.set(repoPath, reader);
  return reader;
}

/**
 * What `name` (any object name git takes: `<commit>:<path>`, an id) is, or "missing"; undefined
 * when no answer came (the process ended): the caller asks git another way. `name` must not hold
 * a newline.
 */
export async function objectInfo(
  repoPath: string,
  name: string,
): Promise<ObjectInfo | "missing" | undefined> {
  if (name.includes("\n")) return undefined;
  const answer = await readerFor(repoPath).ask("info", name);
  return answer === "missing" || answer === undefined ? answer : answer.info;
}

/** An object whole, with what it is: for objects known to be small enough to hold (see objectInfo). */
export async function objectBytes(
  repoPath: string,
  id: string,
): Promise<{ info: ObjectInfo; bytes: Buffer } | "missing" | undefined> {
  if (id.includes("\n")) return undefined;
  const answer = await readerFor(repoPath).ask("contents", id);
  return answer === "missing" || answer === undefined
    ? answer
    : { info: answer.info, bytes: answer.bytes as Buffer };
}

/** Ends every kept process (a server shutting down, a test finishing). */
export function closeObjectReaders(): void {
  for (const reader of [...readers.values()]) reader.close();
}
