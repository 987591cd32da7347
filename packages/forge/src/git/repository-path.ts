import { isAbsolute, join, relative, resolve } from "node:path";
import { Invalid } from "@anvil/core";

// Owner and repository names become directory names under the storage root, so anything that
// could name another place (`..`, a separator), hide (a leading dot), read as an option to a
// command (a leading dash) or corrupt a path (NUL, control characters) is refused here, whatever
// the caller validated before.

/** Leaves room for `.git` and `.wiki.git` within the usual 255-byte limit of a file name. */
const MAX_NAME_BYTES = 240;

/** Whether `name` can be used as one directory name under the storage root. */
export function isPlainName(name: string): boolean {
  return (
    name !== "" &&
    !name.startsWith(".") &&
    !name.startsWith("-") &&
    !name.includes("/") &&
    !name.includes("\\") &&
    !hasControlCharacter(name) &&
    Buffer.byteLength(name) <= MAX_NAME_BYTES
  );
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function plainName(field: "owner" | "name", value: string): string {
  if (!isPlainName(value)) {
    throw new Invalid(`invalid repository ${field}`, { [field]: ["is not a plain name"] });
  }
  return value.toLowerCase();
}

function inside(root: string, path: string): string {
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new Invalid("repository path is outside the storage root");
  }
  return path;
}

/** `<root>/<owner>`, lower-cased: the directory holding an owner's repositories. */
export function ownerPath(root: string, owner: string): string {
  const base = resolve(root);
  return inside(base, join(base, plainName("owner", owner)));
}

// Every read of a repository's files asks for its path: the answers are kept (the checks and path
// arithmetic cost more than a hot read's other work).
const KEPT_PATHS = 4096;
const keptPaths = new Map<string, string>();

/** `<root>/<owner>/<name>.git`, lower-cased as Gitea stores it; throws Invalid for unsafe names. */
export function repositoryPath(root: string, owner: string, name: string): string {
  const key = `${root}\0${owner}\0${name}`;
  const kept = keptPaths.get(key);
  if (kept !== undefined) return kept;
  const base = resolve(root);
  const found = inside(base, join(ownerPath(base, owner), `${plainName("name", name)}.git`));
  if (keptPaths.size >= KEPT_PATHS) keptPaths.delete(keptPaths.keys().next().value as string);
  keptPaths.set(key, found);
  return found;
}
