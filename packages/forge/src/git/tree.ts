import { batchCheck } from "./batch-check.ts";
import { objectBytes, objectInfo } from "./object-reader.ts";
import { spawnGit } from "./process.ts";
import { refFromFiles } from "./ref-files.ts";
import { runGit, runGitForBytes } from "./run.ts";
import { parseEntry, type TreeEntry } from "./trees.ts";

// Reading what a commit holds: which ref a name means, the entries of its tree, the last commit
// that touched a path, and blobs. Tree paths reach git as literal pathspecs (no glob or magic),
// after treePathProblem refused what no tree can hold.

/** What a ref name resolved to: the kind of ref Gitea saw it as, and the commit. */
export interface ResolvedRef {
  kind: "branch" | "tag" | "commit";
  /** The name as given (for a commit, the id as given). */
  name: string;
  commit: string;
}

// Gitea takes an abbreviated commit id from 7 hex digits on.
const HEX_ID = /^[0-9a-f]{7,64}$/;

/**
 * Why `path` cannot name anything in a tree (Gitea's CleanGitTreePath refuses `.git`, we refuse
 * what it would silently clean too), or undefined. The root is "".
 */
export function treePathProblem(path: string): string | undefined {
  if (path === "") return undefined;
  if (path.includes("\0")) return "contains a NUL character";
  if (path.startsWith("/")) return "is absolute";
  for (const part of path.split("/")) {
    if (part === "" || part === "." || part === "..") return "has an empty, '.' or '..' component";
    if (part.toLowerCase() === ".git") return "has a '.git' component";
  }
  if (Buffer.byteLength(path) > 4096) return "is longer than 4096 bytes";
  return undefined;
}

/** A ref-like name we may hand to git: no control characters, no option look-alike. */
function isRefCandidate(name: string): boolean {
  if (name === "" || name.length > 255 || name.startsWith("-")) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/**
 * The commits several object names resolve to, in one `git cat-file --batch-check`: undefined for
 * each that names none. Names must not hold a newline (isRefCandidate).
 */
export async function commitsOf(repoPath: string, names: readonly string[]): Promise<(string | undefined)[]> {
  const answers = await batchCheck(
    repoPath,
    names.map((name) => `${name}^{commit}`),
  );
  return answers.map((line) => {
    const [id, type] = line.split(" ");
    return type === "commit" ? id : undefined;
  });
}

/**
 * What `ref` names, as Gitea resolves a `ref` query: a branch first, then a tag, then a commit id
 * (7 to 64 hex digits); undefined when none.
 */
export async function resolveRef(repoPath: string, ref: string): Promise<ResolvedRef | undefined> {
  const fromFiles = refFromFiles(repoPath, ref);
  if (fromFiles) {
    const commit = await peeledCommit(repoPath, fromFiles.id);
    if (commit) return { kind: fromFiles.kind, name: fromFiles.name, commit };
  }
  // A full ref name says which kind it is.
  for (const [prefix, kind] of FULL_REF_PREFIXES) {
    if (!ref.startsWith(prefix)) continue;
    const name = ref.slice(prefix.length);
    if (!isRefCandidate(name) || !isRefCandidate(ref)) return undefined;
    const [commit] = await commitsOf(repoPath, [ref]);
    return commit === undefined ? undefined : { kind, name, commit };
  }
  return (await resolveRefPrefix(repoPath, [ref]))?.ref;
}

// The commit an object peels to never changes: kept by object id, so a branch whose tip did not
// move is resolved without git.
const PEELED_KEPT = 4096;
const peeled = new Map<string, string>();

async function peeledCommit(repoPath: string, id: string): Promise<string | undefined> {
  const kept = peeled.get(id);
  if (kept) return kept;
  const [commit] = await commitsOf(repoPath, [id]);
  if (commit === undefined) return undefined;
  if (peeled.size >= PEELED_KEPT) peeled.delete(peeled.keys().next().value as string);
  peeled.set(id, commit);
  return commit;
}

const FULL_REF_PREFIXES = [
  ["refs/heads/", "branch"],
  ["refs/tags/", "tag"],
] as const;

/**
 * Gitea's legacy `{ref}/{path}` form (raw, media): the shortest leading run of `parts` that names a
 * branch, else a tag, else a commit id; and the parts after it. Undefined when no prefix names one.
 */
export async function resolveRefPrefix(
  repoPath: string,
  parts: readonly string[],
): Promise<{ ref: ResolvedRef; rest: string[] } | undefined> {
  const prefixes = parts
    .map((_, i) => parts.slice(0, i + 1).join("/"))
    .filter(isRefCandidate)
    .slice(0, 32);
  const ids = prefixes.filter((name) => HEX_ID.test(name));
  const candidates = [
    ...prefixes.map((name) => ({ kind: "branch" as const, name, full: `refs/heads/${name}` })),
    ...prefixes.map((name) => ({ kind: "tag" as const, name, full: `refs/tags/${name}` })),
    ...ids.map((name) => ({ kind: "commit" as const, name, full: name })),
  ];
  const commits = await commitsOf(
    repoPath,
    candidates.map((candidate) => candidate.full),
  );
  for (const [i, candidate] of candidates.entries()) {
    const commit = commits[i];
    // An abbreviated id must name a commit, not pick a ref that happens to look like hex.
    if (commit === undefined || (candidate.kind === "commit" && !commit.startsWith(candidate.name))) continue;
    const consumed = candidate.name.split("/").length;
    return { ref: { kind: candidate.kind, name: candidate.name, commit }, rest: parts.slice(consumed) };
  }
  return undefined;
}

function parseEntries(stdout: string): TreeEntry[] {
  return stdout
    .split("\0")
    .filter((record) => record !== "")
    .map(parseEntry);
}

/**
 * The entries at `paths` in `commit`'s tree and at every directory above them (`ls-tree -t`), by
 * path; a path with nothing there is missing from the map.
 */
export async function treeEntries(
  repoPath: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, TreeEntry>> {
  const wanted = paths.filter((path) => path !== "");
  if (wanted.length === 0) return new Map();
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "--literal-pathspecs",
    "ls-tree",
    "-t",
    "-l",
    "-z",
    "--full-tree",
    "--end-of-options",
    commit,
    "--",
    ...wanted,
  ]);
  return new Map(parseEntries(stdout).map((entry) => [entry.path, entry]));
}

/** The entry at `path` in `commit`'s tree, or undefined; the root is a tree entry of its own. */
export async function treeEntry(
  repoPath: string,
  commit: string,
  path: string,
): Promise<TreeEntry | undefined> {
  if (path === "") {
    const { stdout } = await runGit([`--git-dir=${repoPath}`, "rev-parse", "--verify", `${commit}^{tree}`]);
    return { mode: "040000", type: "tree", id: stdout.trim(), size: 0, path: "" };
  }
  return (await treeEntries(repoPath, commit, [path])).get(path);
}

// Trees read whole through the object reader, parsed and kept by id (what a tree holds never
// changes), up to this many entries in all.
const KEPT_TREE_ENTRIES = 200_000;
const keptTrees = new Map<string, Map<string, { mode: string; id: string }>>();
let keptTreeEntries = 0;

/** A raw tree object's entries by name: `<mode> <name>\0<id bytes>` each. */
function parseTree(bytes: Buffer, idBytes: number): Map<string, { mode: string; id: string }> {
  const entries = new Map<string, { mode: string; id: string }>();
  let at = 0;
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at);
    const nul = bytes.indexOf(0, space);
    if (space === -1 || nul === -1) break;
    const mode = bytes.toString("latin1", at, space).padStart(6, "0");
    entries.set(bytes.toString("utf8", space + 1, nul), {
      mode,
      id: bytes.toString("hex", nul + 1, nul + 1 + idBytes),
    });
    at = nul + 1 + idBytes;
  }
  return entries;
}

async function readTree(repoPath: string, name: string) {
  const info = await objectInfo(repoPath, name);
  if (info === undefined || info === "missing") return info;
  if (info.type !== "tree") return "missing";
  const kept = keptTrees.get(info.id);
  if (kept) return kept;
  const object = await objectBytes(repoPath, info.id);
  if (object === undefined || object === "missing") return object;
  const entries = parseTree(object.bytes, info.id.length / 2);
  if (entries.size <= KEPT_TREE_ENTRIES) {
    for (const [id, oldest] of keptTrees) {
      if (keptTreeEntries + entries.size <= KEPT_TREE_ENTRIES) break;
      keptTrees.delete(id);
      keptTreeEntries -= oldest.size;
    }
    keptTrees.set(info.id, entries);
    keptTreeEntries += entries.size;
  }
  return entries;
}

const TYPE_OF_MODE: Record<string, string> = { "040000": "tree", "160000": "commit" };

/**
 * The entry at `path` (not the root) in `commit`'s tree, as treeEntry finds it, and a blob's bytes
 * when it holds at most `maxBytes`; read through the repository's kept object reader, with
 * treeEntry and readBlobBytes when that reader cannot answer.
 */
export async function fileAt(
  repoPath: string,
  commit: string,
  path: string,
  maxBytes: number,
): Promise<{ entry: TreeEntry; bytes?: Buffer } | undefined> {
  const slash = path.lastIndexOf("/");
  const tree = await readTree(
    repoPath,
    slash === -1 ? `${commit}^{tree}` : `${commit}:${path.slice(0, slash)}`,
  );
  if (tree === "missing") return undefined;
  const found = tree?.get(path.slice(slash + 1));
  if (tree !== undefined && found === undefined) return undefined;
  const type = found && (TYPE_OF_MODE[found.mode] ?? "blob");
  const info = found && type === "blob" ? await objectInfo(repoPath, found.id) : undefined;
  if (found && type !== "blob")
    return { entry: { mode: found.mode, type: type as string, id: found.id, size: 0, path } };
  if (found && info !== undefined && info !== "missing") {
    const entry = { mode: found.mode, type: "blob", id: found.id, size: info.size, path };
    if (info.size > maxBytes) return { entry };
    const object = await objectBytes(repoPath, found.id);
    if (object !== undefined && object !== "missing") return { entry, bytes: object.bytes };
  }
  const entry = await treeEntry(repoPath, commit, path);
  if (!entry) return undefined;
  const bytes =
    entry.type === "blob" && entry.size <= maxBytes
      ? await readBlobBytes(repoPath, entry.id, maxBytes)
      : undefined;
  return { entry, bytes };
}

/** Most entries one directory listing reads: Gitea lists a directory whole, we stop there. */
export const MAX_DIRECTORY_ENTRIES = 5000;

/** The entries directly inside the directory at `path` ("" for the root), in git's order. */
export async function listDirectory(repoPath: string, commit: string, path: string): Promise<TreeEntry[]> {
  const args = path === "" ? [] : ["--", `${path}/`];
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "--literal-pathspecs",
    "ls-tree",
    "-l",
    "-z",
    "--full-tree",
    "--end-of-options",
    commit,
    ...args,
  ]);
  return parseEntries(stdout).slice(0, MAX_DIRECTORY_ENTRIES);
}

/** The last commit that changed each of `paths` in the history of `commit`, by path. */
export interface LastCommit {
  id: string;
  authorDate: string;
  committerDate: string;
}

const LAST_COMMIT_FORMAT = "--format=%x01%H %aI %cI";
const RECORD = "\u0001";

function parseLastCommit(header: string): LastCommit {
  const [id, authorDate, committerDate] = header.split(" ");
  return { id, authorDate, committerDate };
}

/** The last commit that changed `path` (or anything under it), as `git log -1 -- path` finds it. */
export async function lastCommitOf(
  repoPath: string,
  commit: string,
  path: string,
): Promise<LastCommit | undefined> {
  const paths = path === "" ? [] : ["--", path];
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "--literal-pathspecs",
    "log",
    "-1",
    LAST_COMMIT_FORMAT,
    "--end-of-options",
    commit,
    ...paths,
  ]);
  const line = stdout.trim();
  const header = line.startsWith(RECORD) ? line.slice(RECORD.length) : line;
  return header === "" ? undefined : parseLastCommit(header);
}

// A directory's entries get their last commits from one walk of the directory's history, read as
// it streams and stopped once every entry is placed; what this many commits do not place is asked
// for one entry at a time, for this many entries at most (the others go without, as Gitea's
// omitempty fields allow).
const LAST_COMMITS_WALK = 2000;
const LAST_COMMITS_ONE_BY_ONE = 100;

/**
 * Walks `git log --name-only` of `revisions` limited to `pathspecs`, handing each changed path with
 * the commit that changed it to `take`, newest first, until `take` says it has all it wants.
 */
async function walkChanges(
  repoPath: string,
  revisions: readonly string[],
  pathspecs: readonly string[],
  take: (path: string, commit: LastCommit) => boolean,
  maxCount?: number,
): Promise<void> {
  const git = spawnGit([
    `--git-dir=${repoPath}`,
    "--literal-pathspecs",
    "log",
    "-z",
    "--name-only",
    "--no-renames",
    ...(maxCount === undefined ? [] : [`--max-count=${maxCount}`]),
    LAST_COMMIT_FORMAT,
    "--end-of-options",
    ...revisions,
    ...(pathspecs.length === 0 ? [] : ["--", ...pathspecs]),
  ]);
  git.stdin.end();
  let pending = "";
  let current: LastCommit | undefined;
  let done = false;
  git.stdout.setEncoding("utf8");
  for await (const chunk of git.stdout as AsyncIterable<string>) {
    const tokens = (pending + chunk).split("\0");
    pending = tokens.pop() ?? "";
    for (const token of tokens) {
      if (token.startsWith(RECORD)) current = parseLastCommit(token.slice(1));
      else if (current && take(token.replace(/^\n/, ""), current)) done = true;
      if (done) break;
    }
    if (done) {
      git.kill();
      break;
    }
  }
  await git.exited;
}

/** The last commit of each entry directly inside the directory `dir`, as lastCommitOf finds it. */
export async function lastCommitsIn(
  repoPath: string,
  commit: string,
  dir: string,
  names: readonly string[],
): Promise<Map<string, LastCommit>> {
  const found = new Map<string, LastCommit>();
  const wanted = new Set(names);
  if (wanted.size === 0) return found;
  const prefix = dir === "" ? "" : `${dir}/`;
  await walkChanges(
    repoPath,
    [commit],
    dir === "" ? [] : [dir],
    (path, last) => {
      if (!path.startsWith(prefix)) return false;
      const name = path.slice(prefix.length).split("/", 1)[0];
      if (wanted.has(name) && !found.has(name)) found.set(name, last);
      return found.size === wanted.size;
    },
    LAST_COMMITS_WALK,
  );
  const missing = [...wanted].filter((name) => !found.has(name)).slice(0, LAST_COMMITS_ONE_BY_ONE);
  for (const name of missing) {
    const last = await lastCommitOf(repoPath, commit, `${prefix}${name}`);
    if (last) found.set(name, last);
  }
  return found;
}

// The first merge in a commit's history (none: "") never changes: kept by commit.
const FIRST_MERGES_KEPT = 1024;
const firstMerges = new Map<string, string>();

async function firstMergeOf(repoPath: string, commit: string): Promise<string> {
  const kept = firstMerges.get(commit);
  if (kept !== undefined) return kept;
  const { stdout } = await runGit([
    `--git-dir=${repoPath}`,
    "rev-list",
    "--min-parents=2",
    "--max-count=1",
    "--end-of-options",
    commit,
  ]);
  const merge = stdout.trim();
  if (firstMerges.size >= FIRST_MERGES_KEPT) firstMerges.delete(firstMerges.keys().next().value as string);
  firstMerges.set(commit, merge);
  return merge;
}

/** Most paths beyond those asked for that one walk of lastCommitsOf reports. */
const LAST_COMMITS_EXTRA = 10_000;

/**
 * The last commit that changed each of several files, exactly as lastCommitOf finds each, from one
 * walk of the history of their directories (a file at the root: of the file alone); with the last
 * commits of the other files of those directories the walk passed on its way, for a caller to keep.
 * Above the history's first merge the history is a line, where the first commit of a walk limited
 * to some directories that lists a path is the one `git log -1 -- path` finds; for a path that walk
 * does not place (its last change lies at or below a merge, where git's history simplification for
 * one path may differ from the one for several), lastCommitOf answers.
 */
export async function lastCommitsOf(
  repoPath: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, LastCommit>> {
  const found = new Map<string, LastCommit>();
  const wanted = new Set(paths);
  if (wanted.size === 0) return found;
  const merge = await firstMergeOf(repoPath, commit);
  const pathspecs = new Set(
    [...wanted].map((path) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : path)),
  );
  let placed = 0;
  let extra = 0;
  await walkChanges(
    repoPath,
    merge === "" ? [commit] : [commit, `^${merge}`],
    [...pathspecs],
    (path, last) => {
      if (found.has(path)) return false;
      if (wanted.has(path)) placed += 1;
      else if (extra < LAST_COMMITS_EXTRA) extra += 1;
      else return placed === wanted.size;
      found.set(path, last);
      return placed === wanted.size;
    },
  );
  for (const path of wanted) {
    if (found.has(path)) continue;
    const last = await lastCommitOf(repoPath, commit, path);
    if (last) found.set(path, last);
  }
  return found;
}

/** The URL of each submodule in `commit`'s .gitmodules, by its path; empty when there is none. */
export async function submoduleUrls(repoPath: string, commit: string): Promise<Map<string, string>> {
  const { stdout, exitCode } = await runGit(
    [
      `--git-dir=${repoPath}`,
      "config",
      "--blob",
      `${commit}:.gitmodules`,
      "-z",
      "--get-regexp",
      "^submodule\\..*\\.(path|url)$",
    ],
    { acceptExitCodes: [1, 128], maxOutputBytes: 1024 * 1024 },
  );
  const byName = new Map<string, { path?: string; url?: string }>();
  if (exitCode === 0)
    for (const record of stdout.split("\0")) {
      const newline = record.indexOf("\n");
      if (newline === -1) continue;
      const key = record.slice(0, newline);
      const dot = key.lastIndexOf(".");
      const name = key.slice("submodule.".length, dot);
      const module = byName.get(name) ?? {};
      module[key.slice(dot + 1) as "path" | "url"] = record.slice(newline + 1);
      byName.set(name, module);
    }
  const urls = new Map<string, string>();
  for (const { path, url } of byName.values()) if (path && url) urls.set(path, url);
  return urls;
}

/** The bytes of the blob `id` (known to be one), whole: for blobs of at most `maxBytes` only. */
export async function readBlobBytes(repoPath: string, id: string, maxBytes: number): Promise<Buffer> {
  const { stdout } = await runGitForBytes([`--git-dir=${repoPath}`, "cat-file", "blob", id], {
    maxOutputBytes: maxBytes,
  });
  return stdout;
}

/**
 * Several small blobs in one `git cat-file --batch` (symlink targets of a directory), by id; a blob
 * larger than `maxEach` bytes, or missing, is left out.
 */
export async function readSmallBlobs(
  repoPath: string,
  ids: readonly string[],
  maxEach: number,
): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return found;
  const git = spawnGit([`--git-dir=${repoPath}`, "cat-file", "--batch"]);
  git.stdin.end(wanted.map((id) => `${id}\n`).join(""));
  const chunks: Buffer[] = [];
  let size = 0;
  // Each answer is `<id> <type> <size>\n<bytes>\n`; a blob beyond the bound stops the reading.
  const limit = wanted.length * (maxEach + 128);
  for await (const chunk of git.stdout as AsyncIterable<Buffer>) {
    size += chunk.length;
    chunks.push(chunk);
    if (size > limit) {
      git.kill();
      break;
    }
  }
  await git.exited;
  const output = Buffer.concat(chunks);
  let at = 0;
  while (at < output.length) {
    const newline = output.indexOf(0x0a, at);
    if (newline === -1) break;
    const [id, type, length] = output.subarray(at, newline).toString("utf8").split(" ");
    at = newline + 1;
    if (type === "missing" || length === undefined) continue;
    const bytes = Number(length);
    if (at + bytes > output.length) break;
    if (type === "blob" && bytes <= maxEach) found.set(id, Buffer.from(output.subarray(at, at + bytes)));
    at += bytes + 1;
  }
  return found;
}

/** Starts `git cat-file blob <id>`: its stdout is the blob, streamed. */
export function streamBlob(repoPath: string, id: string) {
  const git = spawnGit([`--git-dir=${repoPath}`, "cat-file", "blob", id]);
  git.stdin.end();
  return git;
}

/**
 * Every blob of `commit`'s tree with its size (`ls-tree -r -l`), read as it streams, at most
 * `limit` of them; `each` sees them one by one so the tree is never held whole.
 */
export async function eachBlob(
  repoPath: string,
  commit: string,
  limit: number,
  each: (entry: TreeEntry) => void,
): Promise<void> {
  const git = spawnGit([
    `--git-dir=${repoPath}`,
    "ls-tree",
    "-r",
    "-l",
    "-z",
    "--full-tree",
    "--end-of-options",
    commit,
  ]);
  git.stdin.end();
  git.stdout.setEncoding("utf8");
  let pending = "";
  let seen = 0;
  for await (const chunk of git.stdout as AsyncIterable<string>) {
    const records = (pending + chunk).split("\0");
    pending = records.pop() ?? "";
    for (const entry of parseEntries(records.join("\0"))) {
      if (entry.type !== "blob") continue;
      each(entry);
      if (++seen >= limit) break;
    }
    if (seen >= limit) {
      git.kill();
      break;
    }
  }
  await git.exited;
}
