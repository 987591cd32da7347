// The command line a client asks the SSH server to run: git's own forms are served, anything that
// could leave <owner>/<repo> or is not git is refused.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NO_SHELL_MESSAGE, parseGitCommand } from "../../src/ssh/git-command.ts";

describe("parseGitCommand", () => {
  test("the forms git and people use", () => {
    const demo = { owner: "alice", repo: "demo" };
    const cases: [string, object][] = [
      ["git-upload-pack '/alice/demo.git'", { ...demo, service: "git-upload-pack" }],
      ["git-upload-pack 'alice/demo.git'", { ...demo, service: "git-upload-pack" }],
      ["git-receive-pack 'alice/demo'", { ...demo, service: "git-receive-pack" }],
      ['git upload-pack "alice/demo.git"', { ...demo, service: "git-upload-pack" }],
      ["git receive-pack alice/demo.git", { ...demo, service: "git-receive-pack" }],
      [
        "git-upload-pack '/Alice/my_repo-1.0.git'",
        { owner: "Alice", repo: "my_repo-1.0", service: "git-upload-pack" },
      ],
      [
        "git-upload-pack 'alice/demo.wiki.git'",
        { owner: "alice", repo: "demo.wiki", service: "git-upload-pack" },
      ],
    ];
    for (const [command, request] of cases) assert.deepEqual(parseGitCommand(command), { request }, command);
  });

  test("paths that are not a plain <owner>/<repo> are refused", () => {
    const paths = [
      "'../alice/demo.git'",
      "'alice/../demo.git'",
      "'alice/..'",
      "'./demo.git'",
      "'alice/demo/extra.git'",
      "'//alice/demo.git'",
      "'alice//demo.git'",
      "'alice'",
      "'alice/.git'",
      "'alice/de mo.git'",
      "'alice/demo\u0000.git'",
      "'alice/demo\n.git'",
      "'~/alice/demo.git'",
      "'alice/demo.git' --upload-pack=touch",
      "'alice/demo.git",
    ];
    for (const path of paths) {
      assert.deepEqual(
        parseGitCommand(`git-upload-pack ${path}`),
        { refuse: "anvil: invalid repository path, expected <owner>/<repo>.git" },
        JSON.stringify(path),
      );
    }
  });

  test("other git commands are unsupported; anything else gets the no-shell greeting", () => {
    assert.deepEqual(parseGitCommand("git-upload-archive 'alice/demo.git'"), {
      refuse: "anvil: unsupported git command",
    });
    for (const command of ["", "ls", "scp -t /tmp", "sh -c 'git-upload-pack alice/demo.git'"]) {
      assert.deepEqual(parseGitCommand(command), { refuse: NO_SHELL_MESSAGE }, command);
    }
  });
});
