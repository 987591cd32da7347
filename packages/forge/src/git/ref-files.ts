import { type BigIntStats, closeSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { isTagName } from "./ref-name.ts";

// Which object a branch or tag names, read from the repository's ref files without asking git:
// a read that only needs a branch's tip (every GET of a file) then costs a few system calls, not a
// round trip to a git process. Nothing is kept that could go stale: a loose ref's file is read on
// every call (git replaces it by rename, so a read sees the old or the new id, whole), and the
// packed-refs file is parsed again whenever its stat changes (device, inode, size, change and
// modification times: the check git itself makes before trusting its parse of that file). So a
// push, a commit made through the API, a merge, a branch or tag created, moved or deleted, by this
// process or any other, shows in the next read. Anything unusual (a symbolic ref, a file that is
// not an object id, a ref only git can find: reftable, a name these rules refuse) is no answer
// here, and the caller asks git.

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Beyond this, packed-refs is left to git rather than parsed here. */
const MAX_PACKED_REFS_BYTES = 16 * 1024 * 1024;
/** Parsed packed-refs files kept, one per repository; the least recently used goes first. */
const MAX_REPOSITORIES = 64;

interface PackedRefs {
  signature: string;
  ids: Map<string, string>;
}

const packed = new Map<string, PackedRefs>();
const NONE = new Map<string, string>();

function signatureOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

function parsePackedRefs(text: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const line of text.split("\n")) {
    // `# pack-refs with: …` and the `^<id>` a tag peels to are not refs.
    if (line === "" || line[0] === "#" || line[0] === "^") continue;
    const space = line.indexOf(" ");
    const id = line.slice(0, space);
    if (space > 0 && OBJECT_ID.test(id)) ids.set(line.slice(space + 1), id);
  }
  return ids;
}

/** The refs of packed-refs by full name; undefined when only git should read it. */
function packedRefs(repoPath: string): Map<string, string> | undefined {
  const file = path.join(repoPath, "packed-refs");
  let stats: BigIntStats | undefined;
  try {
    stats = statSync(file, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!stats) return NONE;
  const kept = packed.get(repoPath);
  if (kept && kept.signature === signatureOf(stats)) {
    packed.delete(repoPath);
    packed.set(repoPath, kept);
    return kept.ids;
  }
  if (stats.size > MAX_PACKED_REFS_BYTES) return undefined;
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    // The stat kept is the one of the bytes parsed: a file replaced meanwhile is parsed again.
    const opened = fstatSync(fd, { bigint: true });
    if (opened.size > MAX_PACKED_REFS_BYTES) return undefined;
    const ids = parsePackedRefs(readFileSync(fd, "utf8"));
    packed.delete(repoPath);
    if (packed.size >= MAX_REPOSITORIES) packed.delete(packed.keys().next().value as string);
    packed.set(repoPath, { signature: signatureOf(opened), ids });
    return ids;
  } finally {
    closeSync(fd);
  }
}

type Found = { id: string } | "absent" | "unknown";

/** The object a full ref name (`refs/heads/main`) names: loose first, then packed, as git looks. */
function readRefFile(repoPath: string, fullName: string): Found {
  const file = path.join(repoPath, fullName);
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(file, { throwIfNoEntry: false });
  } catch {
    // ENOTDIR (`main/x` where `main` is a branch's file), EACCES…: git knows what that means.
    return "unknown";
  }
  if (stats?.isFile()) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return "unknown";
    }
    const id = text.trim();
    return OBJECT_ID.test(id) ? { id } : "unknown";
  }
  if (stats && !stats.isDirectory()) return "unknown";
  const ids = packedRefs(repoPath);
  if (ids === undefined) return "unknown";
  const id = ids.get(fullName);
  return id === undefined ? "absent" : { id };
}

const KINDS = [
  ["refs/heads/", "branch"],
  ["refs/tags/", "tag"],
] as const;

/**
 * The object `ref` names as a branch, else as a tag (a full `refs/heads/…` or `refs/tags/…` name
 * names only that kind), read from the ref files; undefined when git must answer.
 */
export function refFromFiles(
  repoPath: string,
  ref: string,
): { kind: "branch" | "tag"; name: string; id: string } | undefined {
  const full = KINDS.find(([prefix]) => ref.startsWith(prefix));
  const name = full ? ref.slice(full[0].length) : ref;
  // Only names git could have written as files under refs/: nothing else becomes a path.
  if (!isTagName(name)) return undefined;
  for (const [prefix, kind] of full ? [full] : KINDS) {
    const found = readRefFile(repoPath, `${prefix}${name}`);
    if (found === "unknown") return undefined;
    if (found !== "absent") return { kind, name, id: found.id };
  }
  return undefined;
}
