// A repository's parts as Gitea names them ("units"): access through a team is given per unit.

/** Every unit Gitea 1.25 knows, in its unit type order. */
export const UNITS = [
  "repo.code",
  "repo.issues",
  "repo.pulls",
  "repo.releases",
  "repo.wiki",
  "repo.ext_wiki",
  "repo.ext_issues",
  "repo.projects",
  "repo.packages",
  "repo.actions",
] as const;

export type Unit = (typeof UNITS)[number];

/** An external tracker or wiki is only a link: Gitea gives admin and owner teams read on them. */
export const EXTERNAL_UNITS: ReadonlySet<string> = new Set(["repo.ext_wiki", "repo.ext_issues"]);

/** The units every repository has: Gitea's default units (a repository has no external ones). */
export const REPOSITORY_UNITS: readonly Unit[] = UNITS.filter((unit) => !EXTERNAL_UNITS.has(unit));

export function isUnit(name: string): name is Unit {
  return (UNITS as readonly string[]).includes(name);
}
