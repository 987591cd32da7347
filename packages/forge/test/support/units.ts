/** Every repository unit, in the order Gitea lists a team's units. */
export const ALL_UNITS = [
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
];
