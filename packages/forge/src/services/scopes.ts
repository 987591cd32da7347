import { BadRequest, Forbidden } from "@anvil/core";

// Gitea's token scopes: `all`, `public-only`, and read:/write: per category. Write implies read.

export const SCOPE_CATEGORIES = [
  "activitypub",
  "admin",
  "issue",
  "misc",
  "notification",
  "organization",
  "package",
  "repository",
  "user",
] as const;

export type ScopeCategory = (typeof SCOPE_CATEGORIES)[number];

/** The scopes as Gitea stores them: deduplicated, `read:x` dropped where `write:x` is held, `all` alone. */
export function normalizeScopes(requested: readonly string[]): string[] {
  const given = new Set(
    requested
      .flatMap((scope) => scope.split(","))
      .map((scope) => scope.trim())
      .filter(Boolean),
  );
  for (const scope of given) {
    const [level, category] = scope.split(":");
    const known =
      scope === "all" ||
      scope === "public-only" ||
      ((level === "read" || level === "write") && SCOPE_CATEGORIES.includes(category as ScopeCategory));
    if (!known)
      throw new BadRequest(`invalid access token scope provided: invalid access token scope: ${scope}`);
  }
  if (given.size === 0) throw new BadRequest("access token must have a scope");
  const result: string[] = [];
  if (given.has("all")) result.push("all");
  else {
    for (const category of SCOPE_CATEGORIES) {
      if (given.has(`write:${category}`)) result.push(`write:${category}`);
      else if (given.has(`read:${category}`)) result.push(`read:${category}`);
    }
  }
  if (given.has("public-only")) result.push("public-only");
  return result;
}

/** Refuses a token call to a route of `category` that its scopes do not cover. */
export function checkScope(scopes: readonly string[], category: ScopeCategory, write: boolean): void {
  if (scopes.includes("all")) return;
  const needed = write ? [`write:${category}`] : [`read:${category}`, `write:${category}`];
  if (needed.some((scope) => scopes.includes(scope))) return;
  throw new Forbidden(
    `token does not have at least one of required scope(s), required=[${needed.join(" ")}], token scope=${scopes.join(",")}`,
  );
}
