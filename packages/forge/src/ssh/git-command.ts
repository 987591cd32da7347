// What a client may run over SSH: git's two transport services on `<owner>/<repo>[.git]`, as git
// itself sends them (`git-upload-pack '/alice/demo.git'`) or as people type them.

export type GitService = "git-upload-pack" | "git-receive-pack";

export interface GitRequest {
  owner: string;
  /** Without a trailing `.git`. */
  repo: string;
  service: GitService;
}

export type ParsedCommand = { request: GitRequest } | { refuse: string };

export const NO_SHELL_MESSAGE =
  "Hi there, You've successfully authenticated, but anvil does not provide shell access.";

const COMMAND = /^git[- ](upload-pack|receive-pack) (.*)$/s;
const ARGUMENT = /^ *(?:'([^']*)'|"([^"]*)"|([^\s'"]+))$/;
const NAME = /^[A-Za-z0-9_.-]+$/;

export function parseGitCommand(command: string): ParsedCommand {
  const match = COMMAND.exec(command.trim());
  if (match === null) {
    return { refuse: /^git[- ]/.test(command) ? "anvil: unsupported git command" : NO_SHELL_MESSAGE };
  }
  const [, verb, argument] = match;
  const [, singleQuoted, doubleQuoted, bare] = ARGUMENT.exec(argument) ?? [];
  const path = (singleQuoted ?? doubleQuoted ?? bare ?? "").replace(/^\//, "");
  const [owner, repoWithSuffix, ...extra] = path.split("/");
  const repo = repoWithSuffix?.replace(/\.git$/, "");
  if (extra.length > 0 || !isPlainName(owner) || repo === undefined || !isPlainName(repo)) {
    return { refuse: "anvil: invalid repository path, expected <owner>/<repo>.git" };
  }
  return { request: { owner, repo, service: `git-${verb}` as GitService } };
}

function isPlainName(name: string): boolean {
  return NAME.test(name) && !name.includes("..") && name !== ".";
}
