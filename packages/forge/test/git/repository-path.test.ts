import assert from "node:assert/strict";
import { resolve } from "node:path";
import { describe, test } from "node:test";
import { Invalid } from "@anvil/core";
import { ownerPath, parseGitTransportPath, repositoryPath } from "../../src/git/index.ts";

const ROOT = "/srv/anvil/repositories";

const UNSAFE_NAMES = [
  "",
  ".",
  "..",
  "../x",
  "a/b",
  "a\\b",
  ".git",
  ".hidden",
  "-upload-pack",
  "a\0b",
  "a\nb",
  "tab\there",
  "del\u007f",
  "x".repeat(241),
];

describe("repositoryPath", () => {
  test("is <root>/<lower owner>/<lower name>.git", () => {
    assert.equal(repositoryPath(ROOT, "Alice", "My-Repo.v2"), "/srv/anvil/repositories/alice/my-repo.v2.git");
    assert.equal(ownerPath(ROOT, "Alice"), "/srv/anvil/repositories/alice");
  });

  test("resolves a relative root to an absolute path inside it", () => {
    const path = repositoryPath("data/repos", "bob", "tools");
    assert.equal(path, resolve("data/repos", "bob", "tools.git"));
  });

  for (const name of UNSAFE_NAMES) {
    const shown = name.length > 20 ? `${name.length} × ${name[0]}` : JSON.stringify(name);
    test(`refuses ${shown} as owner and as repository name`, () => {
      assert.throws(() => repositoryPath(ROOT, name, "demo"), Invalid);
      assert.throws(() => repositoryPath(ROOT, "alice", name), Invalid);
      assert.throws(() => ownerPath(ROOT, name), Invalid);
    });
  }

  test("accepts dots, dashes and underscores inside a name", () => {
    assert.equal(repositoryPath(ROOT, "a-b_c", "x..y"), "/srv/anvil/repositories/a-b_c/x..y.git");
  });
});

describe("parseGitTransportPath", () => {
  test("splits the paths git's smart HTTP client requests, with or without .git", () => {
    assert.deepEqual(parseGitTransportPath("/alice/demo.git/info/refs?service=git-upload-pack"), {
      owner: "alice",
      repo: "demo",
      subPath: "info/refs",
    });
    assert.deepEqual(parseGitTransportPath("/alice/demo/info/refs"), {
      owner: "alice",
      repo: "demo",
      subPath: "info/refs",
    });
    assert.deepEqual(parseGitTransportPath("/Alice/Demo.git/git-upload-pack"), {
      owner: "Alice",
      repo: "Demo",
      subPath: "git-upload-pack",
    });
    assert.deepEqual(parseGitTransportPath("/alice/demo/git-receive-pack/"), {
      owner: "alice",
      repo: "demo",
      subPath: "git-receive-pack",
    });
    assert.deepEqual(parseGitTransportPath("/alice/my%20repo.git/info/refs"), {
      owner: "alice",
      repo: "my repo",
      subPath: "info/refs",
    });
  });

  test("is undefined for other paths", () => {
    for (const path of [
      "/",
      "/alice/demo.git",
      "/alice/demo/info",
      "/alice/info/refs",
      "/alice/demo/objects/info/packs",
      "/alice/demo/HEAD",
      "/api/v1/repos/alice/demo",
      "/alice/demo/info/refs/extra",
      "alice/demo/info/refs",
      "//alice/demo/info/refs",
    ]) {
      assert.equal(parseGitTransportPath(path), undefined, path);
    }
  });

  test("is undefined for names that could not be stored, however they are encoded", () => {
    for (const path of [
      "/../demo/info/refs",
      "/alice/%2e%2e/info/refs",
      "/alice/a%2Fb/info/refs",
      "/alice/a%5Cb/info/refs",
      "/alice/%00/info/refs",
      "/alice/.git/info/refs",
      "/alice/-x/git-upload-pack",
      "/alice/%E0%A4%A/info/refs",
    ]) {
      assert.equal(parseGitTransportPath(path), undefined, path);
    }
  });
});
