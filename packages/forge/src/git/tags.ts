import { GitCommandError } from "./command-error.ts";
import { type PageRequest, pageOffset } from "./paging.ts";
import { isTagName } from "./ref-name.ts";
import { RefUpdateRefused, updateRefs } from "./ref-updates.ts";
import { runGit } from "./run.ts";

export interface Tag {
  name: string;
  /** The tag object's id for an annotated tag, the commit's for a lightweight one. */
  id: string;
  /** The object the tag points at (an annotated tag's target). */
  objectId: string;
  /** The tag's message, or the commit's for a lightweight tag. */
  message: string;
  /** When it was tagged (the tagger's date), or committed for a lightweight tag; ISO 8601. */
  created: string;
}

const TAGS = "refs/tags/";
// One record per tag, its fields ended by NUL and the record by NUL and git's newline: messages
// hold newlines but never a NUL (git refuses them in tag and commit messages).
const FORMAT =
  "--format=%(refname:lstrip=2)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(creatordate:iso-strict)%00%(contents)%00";

function parseTags(output: string): Tag[] {
  return output
    .split("\0\n")
    .filter((record) => record !== "")
    .map((record) => {
      const [name, objectName, type, target, created, message] = record.split("\0");
      return { name, id: objectName, objectId: type === "tag" ? target : objectName, message, created };
    });
}

// Newest first, as Gitea lists tags; names break ties (the last --sort is the first key).
const ORDER = ["--sort=refname", "--sort=-creatordate"];

/** One page of the tags, newest first, and how many there are. */
export async function listTags(repoPath: string, page: PageRequest): Promise<{ tags: Tag[]; total: number }> {
  const gitDir = `--git-dir=${repoPath}`;
  const { stdout } = await runGit([gitDir, "for-each-ref", ...ORDER, "--format=%(refname)", TAGS]);
  const refs = stdout.split("\n").filter((line) => line !== "");
  const offset = pageOffset(page);
  const wanted = refs.slice(offset, offset + page.limit);
  if (wanted.length === 0) return { tags: [], total: refs.length };
  // Tag names hold no glob characters, so each pattern names its ref (and any below it, left out).
  const details = await runGit([gitDir, "for-each-ref", ...ORDER, FORMAT, ...wanted], {
    maxOutputBytes: 64 * 1024 * 1024,
  });
  const names = new Set(wanted.map((ref) => ref.slice(TAGS.length)));
  return { tags: parseTags(details.stdout).filter((tag) => names.has(tag.name)), total: refs.length };
}

/** The tag called `name`, or undefined. */
export async function getTag(repoPath: string, name: string): Promise<Tag | undefined> {
  if (!isTagName(name)) return undefined;
  const { stdout } = await runGit([`--git-dir=${repoPath}`, "for-each-ref", FORMAT, `${TAGS}${name}`]);
  return parseTags(stdout).find((tag) => tag.name === name);
}

export interface NewTag {
  name: string;
  /** The commit id to tag. */
  target: string;
  /** A message makes an annotated tag; none (or an empty one) a lightweight tag. */
  message?: string;
  tagger: { name: string; email: string };
}

// git refuses these in a signature's name and e-mail.
const cleanIdentity = (text: string) => text.replace(/[<>\n\0]/g, "").trim();

/**
 * Creates the tag, annotated when it has a message (tagged by `tagger`, now), lightweight
 * otherwise; RefUpdateRefused when a tag of that name exists (or is being made by another request).
 */
export async function createTag(repoPath: string, tag: NewTag): Promise<Tag> {
  if (!tag.message) {
    await updateRefs(repoPath, [{ ref: `${TAGS}${tag.name}`, create: tag.target }]);
  } else {
    const name = cleanIdentity(tag.tagger.name) || "anvil";
    try {
      // `git tag` writes its ref as a create, checked against none under the ref's lock.
      await runGit([`--git-dir=${repoPath}`, "tag", "--annotate", "--file=-", "--", tag.name, tag.target], {
        input: tag.message,
        env: { GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: cleanIdentity(tag.tagger.email) },
      });
    } catch (error) {
      if (error instanceof GitCommandError && /already exists|cannot lock ref/.test(error.stderr))
        throw new RefUpdateRefused(error.stderr.trim());
      throw error;
    }
  }
  const created = await getTag(repoPath, tag.name);
  if (!created) throw new Error(`tag ${tag.name} vanished after it was created`);
  return created;
}

/** Deletes the tag if it still points where `tag.id` says; RefUpdateRefused when it moved or went. */
export async function deleteTag(repoPath: string, tag: Tag): Promise<void> {
  await updateRefs(repoPath, [{ ref: `${TAGS}${tag.name}`, delete: tag.id }]);
}
