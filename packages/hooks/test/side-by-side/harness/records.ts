// Reading what fixtures/recorder.sh wrote: one folder per command run under a server's RECORD_DIR.
import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** How a hook command was started, with server-specific text replaced by placeholders. */
export interface CommandRecord {
  /** argv[1..] (argv[0] is not observable through a script interpreter). */
  args: string[];
  cwd: string;
  /** Every HOOK_* variable and the fixture's named ones. */
  env: Record<string, string>;
  /** Content of each file named by one of those variables (pass-file-to-command), by variable. */
  files: Record<string, string>;
  /** Files of pass-file-to-command still present after the command ended (webhook deletes them). */
  leftFiles: string[];
}

interface RawRecord {
  args: string[];
  cwd: string;
  env: Map<string, string>;
  files: Map<string, string>;
}

const waitLimitMs = 10_000;
const removalLimitMs = 3000;

export async function clearRecords(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) await rm(path.join(dir, entry), { recursive: true, force: true });
}

/**
 * Waits for `count` records, or when none is expected waits `settleMs` so that a command started
 * by mistake has time to show up, then returns every record present, oldest first.
 */
export async function collectRecords(
  dir: string,
  count: number,
  settleMs: number,
  normalise: (text: string) => string,
  recordEnv: string[],
): Promise<CommandRecord[]> {
  const finished = async () => (await readdir(dir)).filter((entry) => !entry.startsWith(".")).sort();
  if (count === 0) await sleep(settleMs);
  const deadline = Date.now() + waitLimitMs;
  let names = await finished();
  while (names.length < count && Date.now() < deadline) {
    await sleep(10);
    names = await finished();
  }
  const raws = await Promise.all(names.map((name) => readRecord(path.join(dir, name), recordEnv)));
  return Promise.all(raws.map((raw) => normaliseRecord(raw, normalise)));
}

/** Text as recorded; bytes that are not valid UTF-8 stay visible (as hex) rather than becoming U+FFFD. */
function shown(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : `bytes:${bytes.toString("hex")}`;
}

async function readRecord(folder: string, recordEnv: string[]): Promise<RawRecord> {
  /** NUL-terminated entries; `variables`: `NAME=value` entries, whose name stays readable. */
  const nulList = async (file: string, variables = false) => {
    const bytes = existsSync(file) ? await readFile(file) : Buffer.alloc(0);
    const entries: string[] = [];
    for (let start = 0; start < bytes.length; ) {
      const nul = bytes.indexOf(0, start);
      const end = nul < 0 ? bytes.length : nul;
      const entry = bytes.subarray(start, end);
      const equals = variables ? entry.indexOf(0x3d) : -1;
      const name = equals < 0 ? "" : `${entry.toString("utf8", 0, equals)}=`;
      entries.push(name + shown(entry.subarray(equals + 1)));
      start = end + 1;
    }
    return entries;
  };
  const wanted = (name: string) => name.startsWith("HOOK_") || recordEnv.includes(name);
  const env = new Map<string, string>();
  for (const entry of await nulList(path.join(folder, "env"), true)) {
    const equals = entry.indexOf("=");
    const name = entry.slice(0, equals);
    if (wanted(name)) env.set(name, entry.slice(equals + 1));
  }
  const files = new Map<string, string>();
  const fileNames = await nulList(path.join(folder, "files", "names"));
  for (const [index, name] of fileNames.entries()) {
    files.set(name, shown(await readFile(path.join(folder, "files", String(index + 1)))));
  }
  return {
    args: await nulList(path.join(folder, "args")),
    cwd: (await readFile(path.join(folder, "cwd"), "utf8")).trimEnd(),
    env,
    files,
  };
}

async function normaliseRecord(raw: RawRecord, normalise: (text: string) => string): Promise<CommandRecord> {
  const env: Record<string, string> = {};
  const files: Record<string, string> = {};
  const leftFiles: string[] = [];
  for (const [name, value] of [...raw.env].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!raw.files.has(name)) {
      env[name] = normalise(value);
      continue;
    }
    // Temp file names are random on both sides; only the folder they were made in is comparable.
    const tempFile = `${normalise(path.dirname(value))}/<tempfile>`;
    env[name] = tempFile;
    files[name] = raw.files.get(name) ?? "";
    if (!(await removed(value))) leftFiles.push(tempFile);
  }
  return { args: raw.args.map(normalise), cwd: normalise(raw.cwd), env, files, leftFiles };
}

async function removed(file: string): Promise<boolean> {
  const deadline = Date.now() + removalLimitMs;
  while (existsSync(file)) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}
