import { isPlainName } from "./repository-path.ts";

/** What a smart HTTP request asks for, after `/{owner}/{repo}[.git]/`. */
export type GitTransportSubPath = "info/refs" | "git-upload-pack" | "git-receive-pack";

export interface GitTransportPath {
  owner: string;
  /** Without the trailing `.git`. */
  repo: string;
  subPath: GitTransportSubPath;
}

const SUB_PATHS: ReadonlySet<string> = new Set(["info/refs", "git-upload-pack", "git-receive-pack"]);

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Splits a request path (query string allowed) such as `/alice/demo.git/info/refs` or
 * `/alice/demo/git-upload-pack`; undefined when it is not a git smart HTTP path or names an
 * owner or repository that cannot exist on disk.
 */
export function parseGitTransportPath(url: string): GitTransportPath | undefined {
  const path = url.split("?", 1)[0].replace(/(?<=.)\/$/, "");
  const [empty, rawOwner, rawRepo, ...rest] = path.split("/");
  const subPath = rest.join("/");
  if (empty !== "" || rawRepo === undefined || !SUB_PATHS.has(subPath)) return undefined;
  const owner = decode(rawOwner);
  const repo = decode(rawRepo)?.replace(/\.git$/, "");
  if (owner === undefined || repo === undefined || !isPlainName(owner) || !isPlainName(repo)) {
    return undefined;
  }
  return { owner, repo, subPath: subPath as GitTransportSubPath };
}
