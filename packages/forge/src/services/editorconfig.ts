import { NotFound } from "@anvil/core";
import { readBlobBytes, treeEntry } from "../git/index.ts";
import { readRef } from "./contents.ts";
import { type RepositoryContext, repositoryFilesPath, requireUnit, type Storage } from "./repositories.ts";

// GET /editorconfig/{path}: the root `.editorconfig` of a ref, and the properties its sections give
// a path, later sections winning (editorconfig-core-go's GetDefinitionForFilename, as Gitea answers
// it: charset, indent_style, indent_size and end_of_line). Section globs are matched by a dynamic
// programme over the pattern, never by a regular expression, so no .editorconfig can make the
// match slow; brace alternatives expand up to a bound.

const MAX_EDITORCONFIG_BYTES = 64 * 1024;
const MAX_ALTERNATIVES = 256;

type Token =
  | { kind: "char"; char: string }
  | { kind: "one" }
  | { kind: "star" }
  | { kind: "globstar" }
  | { kind: "class"; chars: string; negated: boolean };

interface Section {
  glob: string;
  properties: Map<string, string>;
}

function parse(text: string): Section[] {
  const sections: Section[] = [];
  let current: Section | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("[") && line.endsWith("]")) {
      current = { glob: line.slice(1, -1), properties: new Map() };
      sections.push(current);
      continue;
    }
    const split = line.search(/[=:]/);
    if (split <= 0 || !current) continue;
    current.properties.set(line.slice(0, split).trim().toLowerCase(), line.slice(split + 1).trim());
  }
  return sections;
}

/** The first top-level `{…}` holding a comma or a numeric range, as [start, end, alternatives]. */
function firstBrace(glob: string): [number, number, string[]] | undefined {
  for (let start = glob.indexOf("{"); start !== -1; start = glob.indexOf("{", start + 1)) {
    if (start > 0 && glob[start - 1] === "\\") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < glob.length; i++) {
      const c = glob[i];
      if (c === "\\") i++;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        const body = glob.slice(start + 1, i);
        const range = /^(-?\d+)\.\.(-?\d+)$/.exec(body);
        if (range) {
          const [from, to] = [Number(range[1]), Number(range[2])];
          const count = Math.abs(to - from) + 1;
          if (count > MAX_ALTERNATIVES) return undefined;
          const step = from <= to ? 1 : -1;
          return [start, i, Array.from({ length: count }, (_, k) => String(from + k * step))];
        }
        if (commas.length === 0) break;
        const cuts = [start, ...commas, i];
        return [start, i, cuts.slice(0, -1).map((cut, k) => glob.slice(cut + 1, cuts[k + 1]))];
      } else if (c === "," && depth === 1) commas.push(i);
    }
  }
  return undefined;
}

function expand(glob: string, out: string[]): void {
  if (out.length >= MAX_ALTERNATIVES) return;
  const brace = firstBrace(glob);
  if (!brace) {
    out.push(glob);
    return;
  }
  const [start, end, alternatives] = brace;
  for (const alternative of alternatives)
    expand(glob.slice(0, start) + alternative + glob.slice(end + 1), out);
}

function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "\\" && i + 1 < glob.length) tokens.push({ kind: "char", char: glob[++i] });
    else if (c === "*" && glob[i + 1] === "*") {
      tokens.push({ kind: "globstar" });
      while (glob[i + 1] === "*") i++;
    } else if (c === "*") tokens.push({ kind: "star" });
    else if (c === "?") tokens.push({ kind: "one" });
    else if (c === "[" && glob.indexOf("]", i + 1) > i + 1) {
      const end = glob.indexOf("]", i + 1);
      const body = glob.slice(i + 1, end);
      const negated = body.startsWith("!") || body.startsWith("^");
      let chars = "";
      const set = negated ? body.slice(1) : body;
      for (let k = 0; k < set.length; k++) {
        if (set[k + 1] === "-" && k + 2 < set.length) {
          for (let code = set.charCodeAt(k); code <= set.charCodeAt(k + 2) && chars.length < 1024; code++)
            chars += String.fromCharCode(code);
          k += 2;
        } else chars += set[k];
      }
      tokens.push({ kind: "class", chars, negated });
      i = end;
    } else tokens.push({ kind: "char", char: c });
  }
  return tokens;
}

/** Whether `tokens` match all of `path`: O(tokens × path), whatever the pattern. */
function matches(tokens: Token[], path: string): boolean {
  let row = new Array<boolean>(path.length + 1).fill(false);
  row[0] = true;
  for (const token of tokens) {
    const next = new Array<boolean>(path.length + 1).fill(false);
    for (let j = 0; j <= path.length; j++) {
      if (token.kind === "star" || token.kind === "globstar") {
        // Zero characters, or one more than the match at j - 1 (no slash for a single star).
        next[j] = row[j] || (j > 0 && next[j - 1] && (token.kind === "globstar" || path[j - 1] !== "/"));
      } else if (j > 0 && row[j - 1]) {
        const c = path[j - 1];
        next[j] =
          token.kind === "one"
            ? c !== "/"
            : token.kind === "char"
              ? c === token.char
              : c !== "/" && token.chars.includes(c) !== token.negated;
      }
    }
    row = next;
  }
  return row[path.length];
}

function sectionMatches(glob: string, path: string): boolean {
  const alternatives: string[] = [];
  expand(glob, alternatives);
  return alternatives.some((alternative) => {
    const anchored = alternative.includes("/");
    const pattern = anchored ? alternative.replace(/^\//, "") : `**/${alternative}`;
    const tokens = tokenize(pattern);
    // `**/x` also matches `x` at the root.
    return matches(tokens, path) || (!anchored && matches(tokenize(alternative), path));
  });
}

/** The editorconfig definition of `path` at `ref` (default branch); 404 when there is no .editorconfig. */
export async function editorconfigFor(
  storage: Storage,
  context: RepositoryContext,
  path: string,
  ref?: string,
): Promise<Record<string, string>> {
  requireUnit(context, "repo.code", 1);
  const resolved = await readRef(storage, context, ref);
  const repoPath = repositoryFilesPath(storage, context);
  const entry = await treeEntry(repoPath, resolved.commit, ".editorconfig");
  if (entry?.type !== "blob") throw new NotFound("object does not exist [id: , rel_path: .editorconfig]");
  const text = (
    await readBlobBytes(repoPath, entry.id, MAX_EDITORCONFIG_BYTES).catch(() => Buffer.alloc(0))
  ).toString("utf8");
  const merged = new Map<string, string>();
  for (const section of parse(text)) {
    if (!sectionMatches(section.glob, path)) continue;
    for (const [key, value] of section.properties) merged.set(key, value);
  }
  const definition: Record<string, string> = {};
  for (const key of ["charset", "indent_style", "indent_size", "end_of_line"]) {
    const value = merged.get(key);
    if (value === undefined || value === "" || value.toLowerCase() === "unset") continue;
    definition[key] = key === "indent_size" ? value : value.toLowerCase();
  }
  return definition;
}
