import { Conflict, Forbidden, Invalid, NotFound, readBool } from "@anvil/core";
import {
  type Commit,
  commitFiles,
  type FileWrite,
  fileAt,
  getCommit,
  isBranchName,
  isEmpty,
  type LastCommit,
  lastCommitsIn,
  lastCommitsOf,
  listDirectory,
  type NewSignature,
  type ResolvedRef,
  readBlobBytes,
  readCommits,
  readSmallBlobs,
  resolveRef,
  resolveRefPrefix,
  submoduleUrls,
  type TreeEntry,
  treeEntries,
  treeEntry,
  treePathProblem,
} from "../git/index.ts";
import type { AccountRow } from "../repositories/accounts.ts";
import { ACCESS_READ, ACCESS_WRITE } from "./access.ts";
import { type ForgeDatabase, isAdmin } from "./accounts.ts";
import { canPush, protectionFor } from "./branch-protection.ts";
import { KeptAnswers } from "./kept.ts";
import {
  announceRefChanges,
  type RepositoryContext,
  repositoryFilesPath,
  requireUnit,
  type Storage,
} from "./repositories.ts";

// A repository's files as Gitea's contents API shows and changes them. Reads resolve a ref (a
// branch, a tag or a commit id; the default branch when none is given) and look into its tree.
// Changes are commits made with plumbing (git/commit-files.ts) checked as Gitea checks them
// (handleCheckErrors): the `sha` of the blob being replaced, no file where a directory must go,
// no directory where a file must go. A branch that moved between the check and the commit is
// checked again on its new tip, a few times, before the change gives up with 409.

/** Gitea's API.DEFAULT_MAX_BLOB_SIZE: larger files are listed without their content. */
export const MAX_INLINE_BLOB_BYTES = 10 * 1024 * 1024;
/** Most file operations in one commit. */
export const MAX_CHANGED_FILES = 1000;
const RACE_ATTEMPTS = 4;
/** The paths one change checks (each with the directories above it), in bytes together. */
const MAX_CHECKED_PATH_BYTES = 512 * 1024;
const SYMLINK_TARGET_BYTES = 1024;

const SYMLINK = "120000";
const EXECUTABLE = "100755";
const REGULAR = "100644";

/** What a raw read looks at: the ref as resolved, the commit's entry at a path, a small blob's bytes. */
export interface ContentsAt {
  ref: ResolvedRef;
  entry: TreeEntry;
  bytes?: Buffer;
}

const SMALL_BLOB_BYTES = 64 * 1024;

function notExist(path: string): NotFound {
  return new NotFound(`object does not exist [id: , rel_path: ${path}]`);
}

/** The ref a read names (`ref` query), or the default branch; 404 when it names nothing. */
export async function readRef(
  storage: Storage,
  context: RepositoryContext,
  ref?: string,
): Promise<ResolvedRef> {
  requireUnit(context, "repo.code", ACCESS_READ);
  const name = ref || context.repository.default_branch;
  const found = await resolveRef(repositoryFilesPath(storage, context), name);
  if (!found) throw new NotFound(`no such ref: ${name}`);
  return found;
}

/** What a file, symlink, directory or submodule shows in GET /contents/{path}. */
export interface ContentsItem {
  entry: TreeEntry;
  content?: Buffer;
  target?: string;
  lastCommit?: LastCommit;
  /** A submodule's URL, from the commit's .gitmodules. */
  submoduleUrl?: string;
}

const SUBMODULE = "160000";

/** The URLs of the submodules among `entries`, by path: .gitmodules is read only when there are some. */
async function submodulesOf(repoPath: string, commit: string, entries: readonly TreeEntry[]) {
  return entries.some((entry) => entry.mode === SUBMODULE)
    ? submoduleUrls(repoPath, commit)
    : new Map<string, string>();
}

/**
 * The ref a GET /contents of `path` reads (see readRef); undefined for the root of an empty
 * repository, which lists nothing.
 */
export async function contentsRef(
  storage: Storage,
  context: RepositoryContext,
  path: string,
  ref?: string,
): Promise<ResolvedRef | undefined> {
  requireUnit(context, "repo.code", ACCESS_READ);
  const repoPath = repositoryFilesPath(storage, context);
  if (path === "" && readBool(context.repository.is_empty) && (await isEmpty(repoPath))) return undefined;
  return readRef(storage, context, ref);
}

/**
 * GET /contents/{path} at a resolved ref (contentsRef): one item for a file (with its bytes), a
 * symlink or a submodule; the items of a directory (without bytes). Each with the last commit
 * that changed it.
 */
export async function getContents(
  storage: Storage,
  context: RepositoryContext,
  path: string,
  resolved: ResolvedRef,
): Promise<ContentsAnswer> {
  requireUnit(context, "repo.code", ACCESS_READ);
  const repoPath = repositoryFilesPath(storage, context);
  const key = `${repoPath}\0${resolved.commit}\0${path}`;
  const known = keptContents.get(key);
  if (known) return known;
  const answer = await readContents(repoPath, resolved, path);
  const items = answer.item ? [answer.item] : answer.items;
  keptContents.keep(
    key,
    answer,
    items.reduce((total, item) => total + 512 + item.entry.path.length + (item.content?.length ?? 0), 0),
  );
  return answer;
}

export type ContentsAnswer =
  | { item: ContentsItem; items?: undefined }
  | { items: ContentsItem[]; item?: undefined };

// What a commit holds never changes: answers are kept by commit and path, raw entries too, and
// small blobs by id.
const keptContents = new KeptAnswers<ContentsAnswer>(16 * 1024 * 1024, 256 * 1024);
const keptEntries = new KeptAnswers<TreeEntry>(4 * 1024 * 1024, 8 * 1024);
const keptBlobs = new KeptAnswers<Buffer>(16 * 1024 * 1024, 64 * 1024);

// Reads of files of one commit that miss at once (a client fetching many files) share one walk of
// the history for their last commits: the paths asked while a walk runs go into the next one.
const LAST_COMMITS_BATCH = 256;
const LAST_COMMITS_BATCH_BYTES = 256 * 1024;

interface LastCommitBatch {
  paths: Map<string, ((found: LastCommit | undefined | Error) => void)[]>;
  bytes: number;
}

const lastCommitBatches = new Map<string, { running: boolean; queued: LastCommitBatch[] }>();

// The last commits those walks place, asked for or passed on the way, by commit and path.
const keptLastCommits = new KeptAnswers<LastCommit>(8 * 1024 * 1024, 8 * 1024);

function lastCommitBatched(repoPath: string, commit: string, path: string): Promise<LastCommit | undefined> {
  const key = `${repoPath}\0${commit}`;
  const kept = keptLastCommits.get(`${key}\0${path}`);
  if (kept) return Promise.resolve(kept);
  let state = lastCommitBatches.get(key);
  if (!state) {
    state = { running: false, queued: [] };
    lastCommitBatches.set(key, state);
  }
  let batch = state.queued.at(-1);
  if (
    !batch ||
    (!batch.paths.has(path) &&
      (batch.paths.size >= LAST_COMMITS_BATCH || batch.bytes + path.length > LAST_COMMITS_BATCH_BYTES))
  ) {
    batch = { paths: new Map(), bytes: 0 };
    state.queued.push(batch);
  }
  const waiting = batch.paths.get(path) ?? [];
  if (waiting.length === 0) {
    batch.paths.set(path, waiting);
    batch.bytes += path.length;
  }
  const answer = new Promise<LastCommit | undefined>((resolve, reject) => {
    waiting.push((found) => (found instanceof Error ? reject(found) : resolve(found)));
  });
  if (!state.running) {
    state.running = true;
    const running = state;
    // The rest of this turn's misses join the first walk.
    setImmediate(() => void runLastCommitBatches(repoPath, commit, key, running));
  }
  return answer;
}

async function runLastCommitBatches(
  repoPath: string,
  commit: string,
  key: string,
  state: { running: boolean; queued: LastCommitBatch[] },
) {
  for (let batch = state.queued.shift(); batch; batch = state.queued.shift()) {
    let found: Map<string, LastCommit> | Error;
    try {
      found = await lastCommitsOf(repoPath, commit, [...batch.paths.keys()]);
    } catch (error) {
      found = error instanceof Error ? error : new Error(String(error));
    }
    if (!(found instanceof Error))
      for (const [path, last] of found)
        keptLastCommits.keep(`${key}\0${path}`, last, 256 + key.length + path.length);
    for (const [path, waiting] of batch.paths)
      for (const settle of waiting) settle(found instanceof Error ? found : found.get(path));
  }
  state.running = false;
  lastCommitBatches.delete(key);
}

async function readContents(repoPath: string, resolved: ResolvedRef, path: string): Promise<ContentsAnswer> {
  if (treePathProblem(path) !== undefined) throw notExist(path);
  const file = path === "" ? undefined : await fileAt(repoPath, resolved.commit, path, MAX_INLINE_BLOB_BYTES);
  const entry = file?.entry ?? (path === "" ? await treeEntry(repoPath, resolved.commit, path) : undefined);
  if (!entry) throw notExist(path);
  if (entry.type !== "tree") {
    const [lastCommit, submodules] = await Promise.all([
      lastCommitBatched(repoPath, resolved.commit, path),
      submodulesOf(repoPath, resolved.commit, [entry]),
    ]);
    const bytes = file?.bytes;
    const symlink = entry.mode === SYMLINK;
    return {
      item: {
        entry,
        lastCommit,
        content: symlink ? undefined : bytes,
        target: symlink && bytes ? bytes.subarray(0, SYMLINK_TARGET_BYTES).toString("utf8") : undefined,
        submoduleUrl: submodules.get(entry.path),
      },
    };
  }
  const entries = await listDirectory(repoPath, resolved.commit, path);
  const names = entries.map((child) => child.path.slice(child.path.lastIndexOf("/") + 1));
  const [lastCommits, targets, submodules] = await Promise.all([
    lastCommitsIn(repoPath, resolved.commit, path, names),
    readSmallBlobs(
      repoPath,
      entries.filter((child) => child.mode === SYMLINK).map((child) => child.id),
      SYMLINK_TARGET_BYTES,
    ),
    submodulesOf(repoPath, resolved.commit, entries),
  ]);
  return {
    items: entries.map((child, i) => ({
      entry: child,
      lastCommit: lastCommits.get(names[i]),
      target: child.mode === SYMLINK ? targets.get(child.id)?.toString("utf8") : undefined,
      submoduleUrl: submodules.get(child.path),
    })),
  };
}

/** The messages of the commits with these ids (contents-ext's `commit_message`), by id. */
export async function commitMessages(
  storage: Storage,
  context: RepositoryContext,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const commits = await readCommits(repositoryFilesPath(storage, context), [...new Set(ids)]);
  return new Map([...commits].map(([id, commit]) => [id, commit.message]));
}

/**
 * The blob a raw or media request names: `ref` when given, else the `{ref}/{path}` form (a branch,
 * tag or commit id leading the path), else the default branch; 404 for a directory or submodule.
 */
export async function rawEntry(
  storage: Storage,
  context: RepositoryContext,
  path: string,
  ref?: string,
): Promise<ContentsAt> {
  requireUnit(context, "repo.code", ACCESS_READ);
  const repoPath = repositoryFilesPath(storage, context);
  let resolved: ResolvedRef | undefined;
  let filePath = path;
  if (ref) {
    resolved = await readRef(storage, context, ref);
  } else {
    const parts = path.split("/");
    const prefixed = await resolveRefPrefix(repoPath, parts.slice(0, -1));
    if (prefixed) {
      resolved = prefixed.ref;
      filePath = [...prefixed.rest, parts[parts.length - 1]].join("/");
    } else {
      resolved = await readRef(storage, context);
    }
  }
  if (treePathProblem(filePath) !== undefined) throw notExist(filePath);
  const key = `${repoPath}\0${resolved.commit}\0${filePath}`;
  let entry = keptEntries.get(key);
  if (!entry) {
    entry = await treeEntry(repoPath, resolved.commit, filePath);
    if (!entry) throw notExist(filePath);
    keptEntries.keep(key, entry, 256 + entry.path.length);
  }
  if (entry.type !== "blob") throw notExist(filePath);
  return { ref: resolved, entry, bytes: await smallBlob(repoPath, entry) };
}

/** A blob's bytes when it is small enough to keep (kept by id), else undefined: it is streamed. */
async function smallBlob(repoPath: string, entry: TreeEntry): Promise<Buffer | undefined> {
  if (entry.size > SMALL_BLOB_BYTES) return undefined;
  const kept = keptBlobs.get(entry.id);
  if (kept) return kept;
  const bytes = await readBlobBytes(repoPath, entry.id, SMALL_BLOB_BYTES);
  keptBlobs.keep(entry.id, bytes, bytes.length + 64);
  return bytes;
}

// Changes.

export type FileOperation = "create" | "update" | "upload" | "rename" | "delete";

export interface FileChange {
  operation: FileOperation;
  path: string;
  fromPath?: string;
  /** base64, as the API takes it. */
  content?: string;
  sha?: string;
}

export interface Identity {
  name?: string;
  email?: string;
}

export interface ChangeFilesOptions {
  message?: string;
  branch?: string;
  newBranch?: string;
  author?: Identity;
  committer?: Identity;
  dates?: { author?: string; committer?: string };
  signoff?: boolean;
  files: FileChange[];
}

export interface ChangedFiles {
  commit: Commit;
  ref: ResolvedRef;
  /** Each changed path's entry in the new commit (undefined for a deleted one), in request order. */
  files: (ContentsItem | undefined)[];
}

function malformed(path: string): Invalid {
  return new Invalid(`path contains a malformed path component [path: ${path}]`);
}

// Go's base64.StdEncoding, which skips line breaks: anything else is a 422 as Gitea answers it.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeContent(content: string | undefined): Buffer | undefined {
  if (content === undefined) return undefined;
  const text = content.replace(/[\r\n]/g, "");
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new Invalid("illegal base64 data in content");
  return Buffer.from(text, "base64");
}

function signatureOf(identity: Identity | undefined): Identity | undefined {
  return identity?.name && identity.email ? identity : undefined;
}

// git takes commit times from the epoch on; Go's time formats end at year 9999.
const LATEST_DATE = Date.UTC(9999, 11, 31, 23, 59, 59);

function dateOf(value: string | undefined, field: string): Date {
  if (!value) return new Date();
  const date = new Date(value);
  const time = date.getTime();
  if (Number.isNaN(time) || time < 0 || time > LATEST_DATE)
    throw new Invalid(`[Dates.${field}]: invalid date`);
  return date;
}

/** Gitea's commit identities: the one given stands for both, else the signed-in user. */
function identities(
  doer: AccountRow,
  options: ChangeFilesOptions,
): { author: NewSignature; committer: NewSignature } {
  const fallback = { name: doer.full_name || doer.name, email: doer.email };
  const author = signatureOf(options.author) ?? signatureOf(options.committer) ?? fallback;
  const committer = signatureOf(options.committer) ?? signatureOf(options.author) ?? fallback;
  return {
    author: {
      name: author.name as string,
      email: author.email as string,
      date: dateOf(options.dates?.author, "Author"),
    },
    committer: {
      name: committer.name as string,
      email: committer.email as string,
      date: dateOf(options.dates?.committer, "Committer"),
    },
  };
}

/** Gitea's default message: `Add a, b`, `Update c`, `Delete d`, one line each. */
function defaultMessage(files: readonly FileChange[]): string {
  const of = (operations: FileOperation[], verb: string) => {
    const paths = files.filter((file) => operations.includes(file.operation)).map((file) => file.path);
    return paths.length === 0 ? [] : [`${verb} ${paths.join(", ")}`];
  };
  return [
    ...of(["create"], "Add"),
    ...of(["update", "upload", "rename"], "Update"),
    ...of(["delete"], "Delete"),
  ].join("\n");
}

interface Prepared {
  file: FileChange;
  path: string;
  from: string;
  bytes?: Buffer;
}

function prepare(files: readonly FileChange[]): Prepared[] {
  if (files.length === 0) throw new Invalid("[Files]: Required");
  if (files.length > MAX_CHANGED_FILES)
    throw new Invalid(`at most ${MAX_CHANGED_FILES} files can change at once`);
  return files.map((file) => {
    if (treePathProblem(file.path) !== undefined || file.path === "") throw malformed(file.path);
    const from = file.fromPath || file.path;
    if (treePathProblem(from) !== undefined) throw malformed(from);
    return {
      file,
      path: file.path,
      from,
      bytes: file.operation === "delete" ? undefined : decodeContent(file.content),
    };
  });
}

/** Gitea's handleCheckErrors for one change against the tree it starts from; the write it makes. */
function check(
  prepared: Prepared,
  entries: Map<string, TreeEntry>,
  written: Written,
): { removal?: string; write?: FileWrite } {
  const { file, path, from, bytes } = prepared;
  const operation = file.operation;
  let fromEntry: TreeEntry | undefined;
  if (operation !== "create") {
    fromEntry = entries.get(from);
    if (fromEntry && fromEntry.type !== "blob") fromEntry = undefined;
    if (!fromEntry && operation !== "upload") throw notExist(from);
    if (file.sha && file.sha !== (fromEntry?.id ?? ""))
      throw new Invalid(`sha does not match [given: ${file.sha}, expected: ${fromEntry?.id ?? ""}]`);
  }
  if (operation === "delete") return { removal: from };
  const parts = path.split("/");
  for (let i = 0; i < parts.length; i++) {
    const sub = parts.slice(0, i + 1).join("/");
    const entry = entries.get(sub);
    if (!entry) break;
    if (i < parts.length - 1) {
      if (entry.type !== "tree")
        throw new Invalid(`a file exists where you’re trying to create a subdirectory [path: ${sub}]`);
    } else if (entry.mode === SYMLINK) {
      throw new Invalid(`a symbolic link exists where you’re trying to create a subdirectory [path: ${sub}]`);
    } else if (entry.type === "tree") {
      throw new Invalid(`a directory exists where you’re trying to create a file [path: ${sub}]`);
    } else if (from !== path || operation === "create") {
      throw new Invalid(`repository file already exists [path: ${path}]`);
    }
  }
  noteWritten(written, path, operation);
  const mode = fromEntry?.mode === EXECUTABLE ? EXECUTABLE : REGULAR;
  const removal = fromEntry && from !== path ? from : undefined;
  // A rename without new content keeps the blob, and a symlink stays one.
  if (operation === "rename" && bytes === undefined && fromEntry)
    return { removal, write: { path, mode: fromEntry.mode, blob: fromEntry.id } };
  return { removal, write: { path, mode, content: bytes ?? Buffer.alloc(0) } };
}

/** The files one change writes, and the directories above them. */
interface Written {
  files: Set<string>;
  dirs: Set<string>;
}

/** The checks above, among the files of the change itself: no file where another one needs a directory. */
function noteWritten(written: Written, path: string, operation: FileOperation): void {
  if (written.files.has(path) && operation === "create")
    throw new Invalid(`repository file already exists [path: ${path}]`);
  if (written.dirs.has(path))
    throw new Invalid(`a directory exists where you’re trying to create a file [path: ${path}]`);
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    if (written.files.has(dir))
      throw new Invalid(`a file exists where you’re trying to create a subdirectory [path: ${dir}]`);
    written.dirs.add(dir);
  }
  written.files.add(path);
}

/** Every path a check looks at: each change's source, its target and the directories above it. */
function pathsChecked(prepared: readonly Prepared[]): string[] {
  const paths = new Set<string>();
  for (const { path, from } of prepared) {
    paths.add(from);
    const parts = path.split("/");
    for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join("/"));
  }
  return [...paths];
}

/** The tip of a branch, or undefined. */
async function branchTip(repoPath: string, branch: string): Promise<string | undefined> {
  const found = await resolveRef(repoPath, branch);
  return found?.kind === "branch" ? found.commit : undefined;
}

/**
 * Gitea's ChangeRepoFiles: the files changed in one commit on `branch` (the default one) or on
 * `new_branch` made from it; the push webhook (and create for a new branch) queued as a push's.
 */
export async function changeFiles(
  database: ForgeDatabase,
  storage: Storage,
  context: RepositoryContext,
  doer: AccountRow,
  options: ChangeFilesOptions,
): Promise<ChangedFiles> {
  requireUnit(context, "repo.code", ACCESS_WRITE);
  const repoPath = repositoryFilesPath(storage, context);
  const oldBranch = options.branch || context.repository.default_branch;
  const newBranch = options.newBranch || oldBranch;
  if (!isBranchName(oldBranch)) throw new Invalid("[BranchName]: GitRefName");
  if (!isBranchName(newBranch)) throw new Invalid("[NewBranchName]: GitRefName");
  // Gitea's CanWriteToBranch: a protected target takes the change only from those who may push to it.
  const rule = await protectionFor(database.db, context.repository.id, newBranch);
  if (rule && !isAdmin(doer) && !(await canPush(database.db, rule, doer, context.permission)))
    throw new Forbidden("user should have a permission to write to the target branch");
  const prepared = prepare(options.files);
  const checked = pathsChecked(prepared);
  // They all reach one `git ls-tree` as arguments, which the kernel bounds.
  if (checked.reduce((total, path) => total + Buffer.byteLength(path) + 1, 0) > MAX_CHECKED_PATH_BYTES)
    throw new Invalid("the paths of one change are too long together");
  const { author, committer } = identities(doer, options);
  const base = options.message?.trim() || defaultMessage(options.files);
  // git refuses a NUL in a commit message.
  if (base.includes("\0")) throw new Invalid("[Message]: contains a NUL character");
  const message = options.signoff ? `${base}\n\nSigned-off-by: ${committer.name} <${committer.email}>` : base;
  const ref = `refs/heads/${newBranch}`;
  for (let attempt = 0; attempt < RACE_ATTEMPTS; attempt++) {
    const parent = await branchTip(repoPath, oldBranch);
    if (!parent) {
      if (!(await isEmpty(repoPath)))
        throw new NotFound(`branch does not exist [repo_id: ${context.repository.id} name: ${oldBranch}]`);
      const deletion = prepared.find(
        (change) => change.file.operation !== "create" && change.file.operation !== "upload",
      );
      if (deletion) throw notExist(deletion.from);
    }
    const expected = newBranch === oldBranch ? parent : undefined;
    if (newBranch !== oldBranch && (await branchTip(repoPath, newBranch)))
      throw new Invalid(`branch already exists [name: ${newBranch}]`);
    const entries = parent ? await treeEntries(repoPath, parent, checked) : new Map<string, TreeEntry>();
    const written: Written = { files: new Set(), dirs: new Set() };
    const removals: string[] = [];
    const writes: FileWrite[] = [];
    for (const change of prepared) {
      const { removal, write } = check(change, entries, written);
      if (removal) removals.push(removal);
      if (write) writes.push(write);
    }
    const made = await commitFiles(repoPath, {
      parent,
      removals,
      writes,
      message,
      author,
      committer,
      ref,
      expected,
    });
    if (made === undefined) continue;
    const before = new Map(expected ? [[ref, expected]] : []);
    await announceRefChanges(database, repoPath, context, doer, before, new Map([[ref, made]]));
    return changedFiles(repoPath, made, newBranch, prepared, writes);
  }
  throw new Conflict(`branch ${newBranch} kept moving while the change was made: try again`);
}

async function changedFiles(
  repoPath: string,
  commitId: string,
  branch: string,
  prepared: readonly Prepared[],
  writes: readonly FileWrite[],
): Promise<ChangedFiles> {
  const [commit, entries] = await Promise.all([
    getCommit(repoPath, commitId),
    treeEntries(
      repoPath,
      commitId,
      writes.map((write) => write.path),
    ),
  ]);
  if (!commit) throw new Error(`the commit ${commitId} just made cannot be read`);
  const lastCommit = {
    id: commit.id,
    authorDate: commit.author.date,
    committerDate: commit.committer.date,
  };
  const written = new Map(writes.map((write) => [write.path, write]));
  const files = await Promise.all(
    prepared.map(async (change) => {
      const entry = change.file.operation === "delete" ? undefined : entries.get(change.path);
      if (!entry) return undefined;
      const bytes =
        written.get(change.path)?.content ??
        (entry.size <= MAX_INLINE_BLOB_BYTES
          ? await readBlobBytes(repoPath, entry.id, MAX_INLINE_BLOB_BYTES)
          : undefined);
      const symlink = entry.mode === SYMLINK;
      return {
        entry,
        lastCommit,
        content: symlink ? undefined : bytes,
        target: symlink ? bytes?.toString("utf8") : undefined,
      };
    }),
  );
  return { commit, ref: { kind: "branch", name: branch, commit: commitId }, files };
}
