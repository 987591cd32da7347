import type { Signature } from "./commit.ts";
import { runGit, runGitForBytes } from "./run.ts";

/** The id of the object `revision` names, peeled to `type` when given; undefined when none. */
export async function resolveObject(
  repoPath: string,
  revision: string,
  type?: "commit" | "tree" | "blob" | "tag",
): Promise<string | undefined> {
  if (revision === "" || revision.includes("\0")) return undefined;
  const { stdout, exitCode } = await runGit(
    [
      `--git-dir=${repoPath}`,
      "rev-parse",
      "--verify",
      "--quiet",
      "--end-of-options",
      type ? `${revision}^{${type}}` : revision,
    ],
    { acceptExitCodes: [1] },
  );
  return exitCode === 0 ? stdout.trim() : undefined;
}

/** The type and size of object `id` (a full id), or undefined when the repository lacks it. */
export async function objectInfo(
  repoPath: string,
  id: string,
): Promise<{ type: string; size: number } | undefined> {
  // The id arrives on stdin, where git reads an object name and never an option.
  const { stdout } = await runGit([`--git-dir=${repoPath}`, "cat-file", "--batch-check"], {
    input: `${id}\n`,
  });
  const [, type, size] = stdout.trim().split(" ");
  return size === undefined ? undefined : { type, size: Number(size) };
}

export interface Blob {
  id: string;
  size: number;
  /** Undefined when the blob is larger than asked for. */
  content?: Buffer;
}

/**
 * The blob `revision` names, its content read only when it has at most `maxBytes`; undefined
 * when `revision` names no blob.
 */
export async function readBlob(
  repoPath: string,
  revision: string,
  maxBytes: number,
): Promise<Blob | undefined> {
  const id = await resolveObject(repoPath, revision);
  const info = id === undefined ? undefined : await objectInfo(repoPath, id);
  if (id === undefined || info?.type !== "blob") return undefined;
  if (info.size > maxBytes) return { id, size: info.size };
  const { stdout } = await runGitForBytes([`--git-dir=${repoPath}`, "cat-file", "blob", id], {
    maxOutputBytes: maxBytes,
  });
  return { id, size: info.size, content: stdout };
}

/** `1700000000 +0200` (git's raw date) as ISO 8601 in the signer's own offset, as git's %aI prints it. */
export function isoDate(seconds: number, offset: string): string {
  const sign = offset.startsWith("-") ? -1 : 1;
  const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
  const local = new Date((seconds + minutes * 60) * 1000).toISOString().slice(0, 19);
  return `${local}${sign < 0 ? "-" : "+"}${offset.slice(1, 3)}:${offset.slice(3, 5)}`;
}

/** `Name <email> 1700000000 +0200`, as a tagger or committer line holds it. */
function parseSignature(text: string): Signature {
  const match = /^(.*) <([^>]*)> (\d+) ([+-]\d{4})$/.exec(text);
  if (!match) return { name: text, email: "", date: isoDate(0, "+0000") };
  return { name: match[1], email: match[2], date: isoDate(Number(match[3]), match[4]) };
}

export interface AnnotatedTag {
  id: string;
  name: string;
  /** The commit the tag ends at, through any tags of tags. */
  commit: string;
  tagger: Signature;
  /** Without a signature block, as Gitea shows it. */
  message: string;
}

// The largest tag object read; a tag message is a paragraph or two.
const MAX_TAG_BYTES = 1024 * 1024;
const SIGNATURE_START = /\n?-----BEGIN (PGP|SSH) SIGNATURE-----\n[\s\S]*$/;

/**
 * The annotated tag object `revision` names and the commit it tags; undefined when it names no
 * tag object or the tag ends at something other than a commit.
 */
export async function readAnnotatedTag(
  repoPath: string,
  revision: string,
): Promise<AnnotatedTag | undefined> {
  const id = await resolveObject(repoPath, revision);
  if (!id || (await objectInfo(repoPath, id))?.type !== "tag") return undefined;
  const commit = await resolveObject(repoPath, id, "commit");
  if (!commit) return undefined;
  const { stdout } = await runGit([`--git-dir=${repoPath}`, "cat-file", "tag", id], {
    maxOutputBytes: MAX_TAG_BYTES,
  });
  const split = stdout.indexOf("\n\n");
  const headers = (split === -1 ? stdout : stdout.slice(0, split)).split("\n");
  const header = (name: string) =>
    headers.find((line) => line.startsWith(`${name} `))?.slice(name.length + 1) ?? "";
  return {
    id,
    name: header("tag"),
    commit,
    tagger: parseSignature(header("tagger")),
    message: split === -1 ? "" : stdout.slice(split + 2).replace(SIGNATURE_START, "\n"),
  };
}
