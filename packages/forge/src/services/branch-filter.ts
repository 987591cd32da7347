// A webhook's branch filter, with the glob syntax Gitea's (gobwas/glob, no separators) accepts:
// `*` any run of characters (slashes included), `?` one character, `[abc]`, `[a-z]`, `[!abc]`, a
// `{one,two}` choice, `\` quoting the next character; empty or `*` matches every branch.
// Matching runs over a compiled token list with the set of positions reached (no regex, no
// backtracking), so a pattern of length p costs at most p steps per character of the branch name
// and alternative; patterns are bounded in length and in the alternatives their choices expand to.

export const MAX_BRANCH_FILTER = 512;
const MAX_ALTERNATIVES = 64;

type Token =
  | { kind: "char"; char: string }
  | { kind: "one" }
  | { kind: "any" }
  // `**` where a separator is given: any run of characters, separators included.
  | { kind: "super" }
  | { kind: "class"; negated: boolean; ranges: Array<[string, string]> };

/** The patterns a `{a,b}` choice expands to; undefined when the pattern does not parse. */
function expand(pattern: string): string[] | undefined {
  let open = -1;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) return undefined;
      i = close;
    } else if (pattern[i] === "{") {
      open = i;
      break;
    } else if (pattern[i] === "}" || pattern[i] === ",") return undefined;
  }
  if (open === -1) return [pattern];
  // The choice's own alternatives, split at its top-level commas.
  const parts: string[] = [];
  let depth = 0;
  let start = open + 1;
  let close = -1;
  for (let i = open + 1; i < pattern.length && close === -1; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && depth > 0) depth--;
    else if (c === "}") {
      parts.push(pattern.slice(start, i));
      close = i;
    } else if (c === "," && depth === 0) {
      parts.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  if (close === -1) return undefined;
  const before = pattern.slice(0, open);
  const after = pattern.slice(close + 1);
  const results: string[] = [];
  for (const part of parts) {
    const expanded = expand(before + part + after);
    if (!expanded) return undefined;
    results.push(...expanded);
    if (results.length > MAX_ALTERNATIVES) return undefined;
  }
  return results;
}

function tokenize(pattern: string, separator: string | undefined): Token[] | undefined {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      if (i + 1 >= pattern.length) return undefined;
      tokens.push({ kind: "char", char: pattern[++i] });
    } else if (c === "*" && separator !== undefined && pattern[i + 1] === "*") {
      i++;
      if (tokens.at(-1)?.kind === "any") tokens.pop();
      if (tokens.at(-1)?.kind !== "super") tokens.push({ kind: "super" });
    } else if (c === "*") {
      const last = tokens.at(-1)?.kind;
      if (last !== "any" && last !== "super") tokens.push({ kind: "any" });
    } else if (c === "?") tokens.push({ kind: "one" });
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) return undefined;
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith("!");
      if (negated) body = body.slice(1);
      if (body === "") return undefined;
      const ranges: Array<[string, string]> = [];
      for (let j = 0; j < body.length; j++) {
        if (body[j + 1] === "-" && j + 2 < body.length) {
          if (body[j] > body[j + 2]) return undefined;
          ranges.push([body[j], body[j + 2]]);
          j += 2;
        } else ranges.push([body[j], body[j]]);
      }
      tokens.push({ kind: "class", negated, ranges });
      i = close;
    } else tokens.push({ kind: "char", char: c });
  }
  return tokens;
}

function step(token: Token, char: string, separator: string | undefined): boolean {
  switch (token.kind) {
    case "char":
      return token.char === char;
    case "super":
      return true;
    case "one":
    case "any":
      return char !== separator;
    case "class":
      return token.ranges.some(([low, high]) => char >= low && char <= high) !== token.negated;
  }
}

function matches(tokens: Token[], text: string, separator: string | undefined): boolean {
  // reached[i]: the first i tokens match the text read so far; `*` also matches nothing, so a
  // position before one reaches the position after it.
  const close = (reached: Uint8Array) => {
    for (let i = 0; i < tokens.length; i++) if (reached[i] && repeats(tokens[i])) reached[i + 1] = 1;
    return reached;
  };
  let reached = close(new Uint8Array(tokens.length + 1).fill(1, 0, 1));
  for (const char of text) {
    const next = new Uint8Array(tokens.length + 1);
    let any = false;
    for (let i = 0; i < tokens.length; i++) {
      if (!reached[i] || !step(tokens[i], char, separator)) continue;
      next[repeats(tokens[i]) ? i : i + 1] = 1;
      any = true;
    }
    if (!any) return false;
    reached = close(next);
  }
  return reached[tokens.length] === 1;
}

function repeats(token: Token): boolean {
  return token.kind === "any" || token.kind === "super";
}

export interface BranchFilter {
  matches(branch: string): boolean;
}

/**
 * The compiled filter, or undefined when the pattern is not a glob Gitea would accept. With a
 * separator (branch protection rules compile theirs with `/`), `*` and `?` stop at it and `**`
 * crosses it.
 */
export function compileBranchFilter(pattern: string, separator?: string): BranchFilter | undefined {
  if (pattern.length > MAX_BRANCH_FILTER) return undefined;
  if (pattern === "" || (pattern === "*" && separator === undefined)) return { matches: () => true };
  const alternatives = expand(pattern)?.map((alternative) => tokenize(alternative, separator));
  if (!alternatives || alternatives.some((tokens) => tokens === undefined)) return undefined;
  const compiled = alternatives as Token[][];
  return { matches: (branch) => compiled.some((tokens) => matches(tokens, branch, separator)) };
}
