// A pair (or, for anvil-only features, a single) of servers started on one fixture: the shared
// working folder, hooks files rendered from the fixture, per-server record and temp folders, and
// what a case may do to the servers (edit hooks files, send signals).
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, open, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type RunningServer, type ServerCommand, startServer } from "./servers.ts";

export const fixturesDir = path.join(import.meta.dirname, "../fixtures");
const recorder = path.join(fixturesDir, "recorder.sh");

/** A hooks file written by the test itself (for content no linter of the repository would accept). */
export interface InlineHooksFile {
  name: string;
  text: string;
}

export interface Fixture {
  /** Hooks files (relative to fixtures/, or inline), passed as `-hooks` in this order. */
  hooks: (string | InlineHooksFile)[];
  /** Further webhook flags (placeholders allowed, as in hooks files). */
  flags?: string[];
  /** Variables the recorder reports besides HOOK_* (custom `envname`s). */
  recordEnv?: string[];
  /** Added to both servers' environment (read by -template's getenv, passed on to commands). */
  env?: Record<string, string>;
  /** Symlinks to create in the shared working folder (the servers' cwd): name → target. */
  workLinks?: Record<string, string>;
  /** Put a throw-away self-signed cert.pem/key.pem in the working folder (webhook's -secure defaults). */
  selfSignedCert?: boolean;
}

/** What a case may do to both servers before its request. */
export interface PairControl {
  /**
   * Rewrites a hooks file in place: overwritten from the start, then cut to the new length. Never
   * empty in between: webhook reloads on every write event, and a transient empty file would
   * leave it with no hooks, by a race, whenever the new content is invalid.
   */
  writeHooks(name: string, text: string): Promise<void>;
  /** Replaces a hooks file atomically: a new file renamed over it. */
  replaceHooks(name: string, text: string): Promise<void>;
  signal(signal: NodeJS.Signals): void;
}

export interface Side {
  server: RunningServer;
  records: string;
  normalise: (text: string) => string;
}

export interface Pair {
  root: string;
  work: string;
  sides: Side[];
}

/** Placeholders fixture hooks files may use; they are replaced before any server reads the file. */
function renderFixture(text: string, work: string): string {
  return text
    .replaceAll("@RECORDER@", recorder)
    .replaceAll("@FIXTURES@", fixturesDir)
    .replaceAll("@WORK@", work);
}

export async function startPair(fixture: Fixture, commands: [string, ServerCommand][]): Promise<Pair> {
  await chmod(recorder, 0o755);
  const root = await mkdtemp(path.join(os.tmpdir(), "anvil-sbs-"));
  const work = path.join(root, "work");
  await mkdir(path.join(root, "hooks"), { recursive: true });
  await mkdir(work);
  for (const [name, target] of Object.entries(fixture.workLinks ?? {})) {
    await symlink(renderFixture(target, work), path.join(work, name));
  }
  if (fixture.selfSignedCert) await makeSelfSignedCert(work);
  const hooksFlags: string[] = [];
  for (const file of fixture.hooks) {
    const [name, text] =
      typeof file === "string"
        ? [path.basename(file), await readFile(path.resolve(fixturesDir, file), "utf8")]
        : [file.name, file.text];
    const rendered = path.join(root, "hooks", name);
    await writeFile(rendered, renderFixture(text, work));
    hooksFlags.push("-hooks", rendered);
  }
  const pair: Pair = { root, work, sides: [] };
  const started = await Promise.allSettled(
    commands.map(async ([name, command]) => {
      const dir = path.join(root, name);
      await mkdir(path.join(dir, "records"), { recursive: true });
      await mkdir(path.join(dir, "tmp"));
      const server = await startServer({
        name,
        command,
        flags: [...hooksFlags, "-verbose", ...(fixture.flags ?? []).map((flag) => renderFixture(flag, work))],
        cwd: work,
        env: {
          PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
          HOME: process.env.HOME ?? "/",
          LANG: "C.UTF-8",
          RECORD_DIR: path.join(dir, "records"),
          TMPDIR: path.join(dir, "tmp"),
          RECORD_ENV: (fixture.recordEnv ?? []).join(" "),
          ...fixture.env,
        },
      });
      return { server, records: path.join(dir, "records"), normalise: normaliser(dir, work, server.port) };
    }),
  );
  for (const result of started) if (result.status === "fulfilled") pair.sides.push(result.value);
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await stopPair(pair);
    throw failed.reason;
  }
  return pair;
}

async function makeSelfSignedCert(folder: string): Promise<void> {
  const args = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  args.push("-subj", "/CN=127.0.0.1", "-days", "1", "-keyout", "key.pem", "-out", "cert.pem");
  try {
    await promisify(execFile)("openssl", args, { cwd: folder });
  } catch (error) {
    throw new Error(`openssl could not make a test certificate for -secure: ${error}`);
  }
}

export function pairControl(pair: Pair): PairControl {
  const hooksPath = (name: string) => path.join(pair.root, "hooks", name);
  return {
    writeHooks: async (name, text) => {
      const bytes = Buffer.from(renderFixture(text, pair.work));
      const file = await open(hooksPath(name), "r+");
      try {
        await file.write(bytes, 0, bytes.length, 0);
        await file.truncate(bytes.length);
      } finally {
        await file.close();
      }
    },
    replaceHooks: async (name, text) => {
      await writeFile(`${hooksPath(name)}.new`, renderFixture(text, pair.work));
      await rename(`${hooksPath(name)}.new`, hooksPath(name));
    },
    signal: (signal) => {
      for (const side of pair.sides) process.kill(side.server.pid, signal);
    },
  };
}

export async function stopPair(pair: Pair): Promise<void> {
  await Promise.all(pair.sides.map((side) => side.server.stop()));
  if (pair.root) await rm(pair.root, { recursive: true, force: true });
}

/** Replaces what must differ between the two servers: their own folder, ports, the shared folders. */
function normaliser(sideDir: string, work: string, port: number): (text: string) => string {
  return (text) =>
    text
      .replaceAll(sideDir, "<server>")
      .replaceAll(work, "@WORK@")
      .replaceAll(fixturesDir, "@FIXTURES@")
      .replaceAll(`127.0.0.1:${port}`, "127.0.0.1:<server-port>")
      // request remote-addr: the client's ephemeral port differs on each connection.
      .replace(/127\.0\.0\.1:\d{1,5}\b/g, "127.0.0.1:<port>");
}
