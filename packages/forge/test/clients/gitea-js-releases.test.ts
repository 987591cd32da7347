// gitea-js drives forks and releases as a user's script would: fork a repository, push to the
// fork with stock git, publish a release with an attachment (gitea-js's own multipart upload) and
// download it. Every answer is checked against the types the client declares for it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "@anvil/core/testing";
import { forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { giteaJsPerson } from "./gitea-js-people.ts";
import { assertClientType } from "./typings.ts";

forEachForge("gitea-js: forks and releases", (forge) => {
  test("fork, push to the fork, publish a release with an attachment, download it", async () => {
    const work = await tempDir("anvil-gitea-js-releases-");
    try {
      const ada = await giteaJsPerson(forge.url, forge.adminToken, "ada");
      const bea = await giteaJsPerson(forge.url, forge.adminToken, "bea");
      const made = await ada.client.user.createCurrentUserRepo({ name: "kit", auto_init: true });
      assert.equal(made.status, 201);

      const fork = await bea.client.repos.createFork("ada", "kit", { name: "kit-fork" });
      assert.equal(fork.status, 202);
      assertClientType("Repository", fork.data);
      assert.equal(fork.data.fork, true);
      assert.equal(fork.data.parent?.full_name, "ada/kit");
      const forks = await ada.client.repos.listForks("ada", "kit");
      assertClientType("Repository[]", forks.data);
      assert.deepEqual(
        forks.data.map((repo) => repo.full_name),
        ["bea/kit-fork"],
      );

      const dir = join(work.path, "clone");
      const url = `${withCredentials(forge.url, "bea", bea.token)}/bea/kit-fork.git`;
      assert.equal((await git(["clone", "-q", url, dir], work.path)).code, 0);
      await git(
        [
          "-c",
          "user.name=Bea",
          "-c",
          "user.email=bea@example.com",
          "commit",
          "-q",
          "--allow-empty",
          "-m",
          "fix",
        ],
        dir,
      );
      const pushed = await git(["push", "-q", "origin", "HEAD:main"], dir);
      assert.equal(pushed.code, 0, pushed.stderr);

      const release = await bea.client.repos.repoCreateRelease("bea", "kit-fork", {
        tag_name: "v1.0",
        name: "First",
        body: "notes",
      });
      assert.equal(release.status, 201);
      assertClientType("Release", release.data);
      const content = randomBytes(4096);
      const uploaded = await bea.client.repos.repoCreateReleaseAttachment(
        "bea",
        "kit-fork",
        release.data.id as number,
        { attachment: new File([content], "kit.txt", { type: "text/plain" }) },
      );
      assert.equal(uploaded.status, 201);
      assertClientType("Attachment", uploaded.data);
      const listed = await bea.client.repos.repoListReleases("bea", "kit-fork");
      assertClientType("Release[]", listed.data);
      assert.equal(listed.data[0].assets?.[0]?.name, "kit.txt");

      const download = await fetch(
        (uploaded.data.browser_download_url as string).replace("http://forge.test", forge.url),
      );
      assert.equal(download.status, 200);
      assert.ok(Buffer.from(await download.arrayBuffer()).equals(content));

      // The release's tag is on the fork's new commit, as stock git sees it.
      const tags = await git(["ls-remote", "--tags", url], work.path);
      const head = await git(["rev-parse", "HEAD"], dir);
      assert.equal(tags.stdout.trim(), `${head.stdout.trim()}\trefs/tags/v1.0`);
    } finally {
      await work.remove();
    }
  });
});
