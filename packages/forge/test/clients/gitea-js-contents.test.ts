// A gitea-js script edits files through the API and a stock git client pulls the commits: the
// "edit a file through the API and pull the commit" of issue 17, as a user's script does it.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "@anvil/core/testing";
import { forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { giteaJsPerson } from "./gitea-js-people.ts";
import { assertClientType } from "./typings.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64");

forEachForge("gitea-js edits files through the contents API; git pulls the commits", (forge) => {
  test("create, read, update, change several and delete, each pulled with git", async () => {
    const { client } = await giteaJsPerson(forge.url, forge.adminToken, "dora");
    const made = await client.user.createCurrentUserRepo({ name: "notes", auto_init: true });
    assert.equal(made.status, 201);
    const work = await tempDir("anvil-gitea-js-contents-");
    try {
      const dir = join(work.path, "notes");
      const remote = `${withCredentials(forge.url, "dora", "password123")}/dora/notes.git`;
      assert.equal((await git(["clone", "-q", remote, dir], work.path)).code, 0);
      const pulled = async () => {
        const pull = await git(["pull", "-q", "--ff-only"], dir);
        assert.equal(pull.code, 0, pull.stderr);
        return (await git(["log", "-1", "--format=%H %s"], dir)).stdout.trim();
      };

      const created = await client.repos.repoCreateFile("dora", "notes", "todo.md", {
        content: b64("- write tests\n"),
        message: "Start a list",
      });
      assert.equal(created.status, 201);
      // Gitea's *string fields (a file's `target`) arrive as null, which gitea-js types as optional
      // strings: the commit part is checked against the client's types, the rest by value.
      assertClientType("FileCommitResponse", created.data.commit);
      assert.equal(await pulled(), `${created.data.commit?.sha} Start a list`);
      assert.equal(await readFile(join(dir, "todo.md"), "utf8"), "- write tests\n");

      const read = await client.repos.repoGetContents("dora", "notes", "todo.md");
      assert.equal(read.data.sha, created.data.content?.sha);
      assert.equal(Buffer.from(read.data.content ?? "", "base64").toString(), "- write tests\n");

      const updated = await client.repos.repoUpdateFile("dora", "notes", "todo.md", {
        content: b64("- write tests\n- ship\n"),
        sha: read.data.sha as string,
      });
      assert.equal(updated.status, 200);
      assert.equal(await pulled(), `${updated.data.commit?.sha} Update todo.md`);
      assert.equal(await readFile(join(dir, "todo.md"), "utf8"), "- write tests\n- ship\n");

      const several = await client.repos.repoChangeFiles("dora", "notes", {
        message: "Reorganize",
        files: [
          { operation: "create", path: "done.md", content: b64("- write tests\n") },
          { operation: "update", path: "todo.md", content: b64("- ship\n"), sha: updated.data.content?.sha },
        ],
      });
      assert.equal(several.status, 201);
      assert.equal(await pulled(), `${several.data.commit?.sha} Reorganize`);
      assert.equal(await readFile(join(dir, "done.md"), "utf8"), "- write tests\n");

      const deleted = await client.repos.repoDeleteFile("dora", "notes", "done.md", {
        sha: several.data.files?.[0]?.sha as string,
      });
      assert.equal(deleted.status, 200);
      assert.equal(await pulled(), `${deleted.data.commit?.sha} Delete done.md`);
      assert.equal((await git(["ls-files"], dir)).stdout, "README.md\ntodo.md\n");

      const languages = await client.repos.repoGetLanguages("dora", "notes");
      assert.deepEqual(languages.data, {});
    } finally {
      await work.remove();
    }
  });
});
