import { NotFound } from "@anvil/core";
import { eachBlob } from "../git/index.ts";
import { readRef } from "./contents.ts";
import { KeptAnswers } from "./kept.ts";
import { type RepositoryContext, repositoryFilesPath, requireUnit, type Storage } from "./repositories.ts";

// GET /languages: bytes of code per language over the default branch's tree. Gitea asks go-enry
// (linguist's rules); we go by file extension and a few well-known names, which agrees with it on
// ordinary source trees. Files of unknown or non-code kinds (text, images, data) are not counted.

// A commit's statistics never change: kept by commit, the tree walked once.
const keptStatistics = new KeptAnswers<Record<string, number>>(1024 * 1024, 64 * 1024);

/** Most files looked at: a larger tree is counted over its first ones, in git's path order. */
export const MAX_LANGUAGE_FILES = 200_000;

const BY_EXTENSION: Readonly<Record<string, string>> = {
  c: "C",
  h: "C",
  cc: "C++",
  cpp: "C++",
  cxx: "C++",
  hpp: "C++",
  hh: "C++",
  cs: "C#",
  go: "Go",
  rs: "Rust",
  java: "Java",
  kt: "Kotlin",
  kts: "Kotlin",
  scala: "Scala",
  swift: "Swift",
  m: "Objective-C",
  mm: "Objective-C++",
  js: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  jsx: "JavaScript",
  ts: "TypeScript",
  mts: "TypeScript",
  cts: "TypeScript",
  tsx: "TSX",
  py: "Python",
  rb: "Ruby",
  php: "PHP",
  pl: "Perl",
  pm: "Perl",
  lua: "Lua",
  r: "R",
  sh: "Shell",
  bash: "Shell",
  zsh: "Shell",
  ps1: "PowerShell",
  bat: "Batchfile",
  cmd: "Batchfile",
  html: "HTML",
  htm: "HTML",
  css: "CSS",
  scss: "SCSS",
  sass: "Sass",
  less: "Less",
  vue: "Vue",
  svelte: "Svelte",
  dart: "Dart",
  ex: "Elixir",
  exs: "Elixir",
  erl: "Erlang",
  hs: "Haskell",
  ml: "OCaml",
  fs: "F#",
  clj: "Clojure",
  elm: "Elm",
  jl: "Julia",
  nim: "Nim",
  zig: "Zig",
  sql: "SQL",
  tex: "TeX",
  vim: "Vim Script",
  groovy: "Groovy",
  gradle: "Groovy",
  tf: "HCL",
  hcl: "HCL",
  proto: "Protocol Buffer",
  cmake: "CMake",
  mk: "Makefile",
  asm: "Assembly",
  s: "Assembly",
  v: "V",
  d: "D",
  pas: "Pascal",
  f90: "Fortran",
  cr: "Crystal",
  nix: "Nix",
};

const BY_NAME: Readonly<Record<string, string>> = {
  Makefile: "Makefile",
  makefile: "Makefile",
  GNUmakefile: "Makefile",
  Dockerfile: "Dockerfile",
  "CMakeLists.txt": "CMake",
  Rakefile: "Ruby",
  Gemfile: "Ruby",
  Jenkinsfile: "Groovy",
};

// Vendored and generated paths go-enry leaves out, in their simplest forms.
const VENDORED = /(^|\/)(node_modules|vendor|third_party|dist)\//;

export function languageOf(path: string): string | undefined {
  if (VENDORED.test(path)) return undefined;
  const name = path.slice(path.lastIndexOf("/") + 1);
  const named = BY_NAME[name];
  if (named) return named;
  if (name.endsWith(".min.js")) return undefined;
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? undefined : BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

/** Bytes per language, keys in alphabetical order as Go encodes a map; {} for an empty repository. */
export async function languageStatistics(
  storage: Storage,
  context: RepositoryContext,
): Promise<Record<string, number>> {
  requireUnit(context, "repo.code", 1);
  const ref = await readRef(storage, context).catch((error) => {
    if (error instanceof NotFound) return undefined;
    throw error;
  });
  if (!ref) return {};
  const repoPath = repositoryFilesPath(storage, context);
  const key = `${repoPath}\0${ref.commit}`;
  const kept = keptStatistics.get(key);
  if (kept) return kept;
  const totals = new Map<string, number>();
  await eachBlob(repoPath, ref.commit, MAX_LANGUAGE_FILES, (entry) => {
    if (entry.mode === "120000") return;
    const language = languageOf(entry.path);
    if (language) totals.set(language, (totals.get(language) ?? 0) + entry.size);
  });
  const statistics = Object.fromEntries([...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  keptStatistics.keep(key, statistics, 256 + totals.size * 64);
  return statistics;
}
