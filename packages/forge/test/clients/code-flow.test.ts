// Issue 17's acceptance, as users do it, with gitea-js and stock git only: a contributor forks a
// repository and pushes branches to the fork; each branch becomes a pull request, which the owner
// reviews and merges with one of the merge styles, and the result is checked in `git log` of a
// clone. Then a release with an attachment is published and downloaded, and a file edited through
// the API is pulled.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";
import { type Client, giteaJsPerson } from "./gitea-js-people.ts";
import { assertClientType } from "./typings.ts";

const IDENTITY = ["-c", "user.name=Ravi", "-c", "user.email=ravi@example.com"];

forEachForge(
  "issue 17's flow: fork, pull requests merged in every style, a release, a file edited",
  (forge) => {
    let dir: TempDir;
    let maya: { client: Client; token: string };
    let ravi: { client: Client; token: string };
    /** Ravi's clone of his fork, and Maya's clone of hers. */
    let fork: string;
    let upstream: string;

    async function ok(args: string[], cwd: string) {
      const result = await git(args, cwd);
      assert.equal(result.code, 0, `git ${args.join(" ")}: ${result.stderr}`);
      return result.stdout.trim();
    }

    /** A branch of Ravi's fork from `from`, with one commit per file, pushed; answers its tip. */
    async function pushBranch(branch: string, from: string, files: string[]): Promise<string> {
      await ok(["checkout", "-q", "-b", branch, from], fork);
      for (const file of files) {
        await writeFile(path.join(fork, file), `${file} by Ravi\n`);
        await ok(["add", file], fork);
        await ok([...IDENTITY, "commit", "-q", "-m", `Add ${file}`], fork);
      }
      await ok(["push", "-q", "origin", branch], fork);
      return ok(["rev-parse", "HEAD"], fork);
    }

    async function openPull(branch: string): Promise<number> {
      const opened = await ravi.client.repos.repoCreatePullRequest("maya", "project", {
        head: `ravi:${branch}`,
        base: "main",
        title: `Change from ${branch}`,
        body: "Please merge.",
      });
      assert.equal(opened.status, 201);
      assertClientType("PullRequest", opened.data);
      // Gitea's label is the branch's name alone; the fork is the head's repository.
      assert.equal(opened.data.head?.label, branch);
      assert.equal(opened.data.head?.repo?.full_name, "ravi/project");
      return opened.data.number as number;
    }

    async function mergePull(index: number, style: string, extra: Record<string, unknown> = {}) {
      const review = await maya.client.repos.repoCreatePullReview("maya", "project", index, {
        event: "APPROVED",
        body: "Looks good.",
      });
      assert.equal(review.status, 200);
      assertClientType("PullReview", review.data);
      const merged = await maya.client.repos.repoMergePullRequest("maya", "project", index, {
        Do: style as "merge",
        ...extra,
      });
      assert.equal(merged.status, 200);
      const pull = await maya.client.repos.repoGetPullRequest("maya", "project", index);
      assert.equal(pull.data.merged, true);
      assert.equal(pull.data.state, "closed");
      assertClientType("PullRequest", pull.data);
      await ok(["pull", "-q", "--ff-only"], upstream);
      return pull.data;
    }

    const parents = async (rev: string) => (await ok(["log", "-1", "--format=%P", rev], upstream)).split(" ");
    const subject = (rev: string) => ok(["log", "-1", "--format=%s", rev], upstream);

    before(async () => {
      dir = await tempDir("anvil-code-flow-");
      maya = await giteaJsPerson(forge.url, forge.adminToken, "maya");
      ravi = await giteaJsPerson(forge.url, forge.adminToken, "ravi");
      const repo = await maya.client.user.createCurrentUserRepo({
        name: "project",
        auto_init: true,
        default_branch: "main",
      });
      assert.equal(repo.status, 201);
      upstream = path.join(dir.path, "upstream");
      fork = path.join(dir.path, "fork");
      await ok(
        ["clone", "-q", `${withCredentials(forge.url, "maya", maya.token)}/maya/project.git`, upstream],
        dir.path,
      );
    });

    after(() => dir?.remove());

    test("Ravi forks the repository and pushes branches to his fork", async () => {
      const forked = await ravi.client.repos.createFork("maya", "project", {});
      assert.equal(forked.status, 202);
      assertClientType("Repository", forked.data);
      assert.equal(forked.data.fork, true);
      assert.equal(forked.data.parent?.full_name, "maya/project");
      await ok(
        ["clone", "-q", `${withCredentials(forge.url, "ravi", ravi.token)}/ravi/project.git`, fork],
        dir.path,
      );
      assert.equal(await ok(["rev-parse", "HEAD"], fork), await ok(["rev-parse", "HEAD"], upstream));
    });

    test("merge: a merge commit whose second parent is the branch's tip", async () => {
      const tip = await pushBranch("style-merge", "origin/main", ["merge.txt"]);
      const index = await openPull("style-merge");
      const pull = await mergePull(index, "merge");
      const head = await ok(["rev-parse", "HEAD"], upstream);
      assert.equal(pull.merge_commit_sha, head);
      const [, second] = await parents("HEAD");
      assert.equal(second, tip);
      assert.match(await subject("HEAD"), new RegExp(`#${index}`));
    });

    test("rebase: the branch's commits replayed on main, new shas, no merge commit", async () => {
      // Branched from the fork's first commit, so main has moved on since and the replay changes shas.
      const first = await ok(["rev-list", "--max-parents=0", "origin/main"], fork);
      const tip = await pushBranch("style-rebase", first, ["rebase-1.txt", "rebase-2.txt"]);
      await mergePull(await openPull("style-rebase"), "rebase");
      assert.equal((await parents("HEAD")).length, 1);
      assert.equal(await subject("HEAD"), "Add rebase-2.txt");
      assert.equal(await subject("HEAD~1"), "Add rebase-1.txt");
      assert.notEqual(await ok(["rev-parse", "HEAD"], upstream), tip);
      assert.equal(await ok(["show", "HEAD:merge.txt"], upstream), "merge.txt by Ravi");
    });

    test("rebase-merge: rebased commits joined by a merge commit", async () => {
      const first = await ok(["rev-list", "--max-parents=0", "origin/main"], fork);
      const tip = await pushBranch("style-rebase-merge", first, ["rebase-merge.txt"]);
      await mergePull(await openPull("style-rebase-merge"), "rebase-merge");
      const [mainline, second] = await parents("HEAD");
      assert.ok(second, "a merge commit");
      assert.notEqual(second, tip, "the branch was rebased first");
      assert.equal(await subject(second), "Add rebase-merge.txt");
      assert.equal((await parents(second))[0], mainline);
    });

    test("squash: one commit with both changes, the branch's commits not in main", async () => {
      const first = await ok(["rev-list", "--max-parents=0", "origin/main"], fork);
      const tip = await pushBranch("style-squash", first, ["squash-1.txt", "squash-2.txt"]);
      await mergePull(await openPull("style-squash"), "squash");
      assert.equal((await parents("HEAD")).length, 1);
      const changed = await ok(["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"], upstream);
      assert.deepEqual(changed.split("\n").sort(), ["squash-1.txt", "squash-2.txt"]);
      const history = await ok(["rev-list", "HEAD"], upstream);
      assert.ok(!history.split("\n").includes(tip), "the squashed commits are not part of main");
    });

    test("fast-forward-only: main moves to the branch's tip", async () => {
      await ok(
        ["fetch", "-q", `${withCredentials(forge.url, "ravi", ravi.token)}/maya/project.git`, "main"],
        fork,
      );
      const tip = await pushBranch("style-ff", "FETCH_HEAD", ["ff.txt"]);
      await mergePull(await openPull("style-ff"), "fast-forward-only");
      assert.equal(await ok(["rev-parse", "HEAD"], upstream), tip);
    });

    test("manually-merged: a pull request whose commit Maya pushed herself is marked merged", async () => {
      await ok(
        ["fetch", "-q", `${withCredentials(forge.url, "ravi", ravi.token)}/maya/project.git`, "main"],
        fork,
      );
      const tip = await pushBranch("style-manual", "FETCH_HEAD", ["manual.txt"]);
      const index = await openPull("style-manual");
      await ok(
        ["fetch", "-q", `${withCredentials(forge.url, "maya", maya.token)}/ravi/project.git`, "style-manual"],
        upstream,
      );
      await ok(["merge", "-q", "--ff-only", "FETCH_HEAD"], upstream);
      await ok(["push", "-q", "origin", "main"], upstream);
      const merged = await maya.client.repos.repoMergePullRequest("maya", "project", index, {
        Do: "manually-merged",
        MergeCommitID: tip,
      });
      assert.equal(merged.status, 200);
      const isMerged = await maya.client.repos.repoPullRequestIsMerged("maya", "project", index);
      assert.equal(isMerged.status, 204);
    });

    test("delete_branch_after_merge deletes the fork's branch only when the merger may write the fork", async () => {
      const forkUrl = `${withCredentials(forge.url, "ravi", ravi.token)}/ravi/project.git`;
      const branches = async () => ok(["ls-remote", "--heads", forkUrl], dir.path);
      await ok(["fetch", "-q", forkUrl.replace("/ravi/project.git", "/maya/project.git"), "main"], fork);
      await pushBranch("kept-branch", "FETCH_HEAD", ["kept.txt"]);
      await mergePull(await openPull("kept-branch"), "merge", { delete_branch_after_merge: true });
      assert.match(await branches(), /refs\/heads\/kept-branch$/m, "Maya may not write Ravi's fork");

      const added = await ravi.client.repos.repoAddCollaborator("ravi", "project", "maya", {
        permission: "write",
      });
      assert.equal(added.status, 204);
      await ok(["fetch", "-q", forkUrl.replace("/ravi/project.git", "/maya/project.git"), "main"], fork);
      await pushBranch("gone-branch", "FETCH_HEAD", ["gone.txt"]);
      await mergePull(await openPull("gone-branch"), "merge", { delete_branch_after_merge: true });
      assert.doesNotMatch(await branches(), /refs\/heads\/gone-branch$/m);
    });

    test("a release with an attachment is published and downloaded byte for byte", async () => {
      const release = await maya.client.repos.repoCreateRelease("maya", "project", {
        tag_name: "v1.0",
        target_commitish: "main",
        name: "First",
        body: "The first release.",
      });
      assert.equal(release.status, 201);
      assertClientType("Release", release.data);
      const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
      const asset = await maya.client.repos.repoCreateReleaseAttachment(
        "maya",
        "project",
        release.data.id as number,
        { attachment: new File([bytes], "build.bin", { type: "application/octet-stream" }) },
        { name: "build.bin" },
      );
      assert.equal(asset.status, 201);
      assertClientType("Attachment", asset.data);
      const where = new URL(asset.data.browser_download_url as string);
      const download = await fetch(`${forge.url}${where.pathname}`);
      assert.equal(download.status, 200);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes);
      assert.match(await ok(["ls-remote", "--tags", "origin"], upstream), /refs\/tags\/v1\.0$/m);
    });

    test("a file edited through the API is a commit that git pulls", async () => {
      const current = await maya.client.repos.repoGetContents("maya", "project", "README.md");
      assert.equal(current.status, 200);
      assertClientType("ContentsResponse", current.data);
      const edited = await maya.client.repos.repoUpdateFile("maya", "project", "README.md", {
        content: Buffer.from("# project\n\nEdited through the API.\n").toString("base64"),
        sha: current.data.sha as string,
        message: "Edit the README through the API",
        branch: "main",
      });
      assert.equal(edited.status, 200);
      assertClientType("FileResponse", edited.data);
      await ok(["pull", "-q", "--ff-only"], upstream);
      assert.equal(await subject("HEAD"), "Edit the README through the API");
      assert.equal(await ok(["show", "HEAD:README.md"], upstream), "# project\n\nEdited through the API.");
    });
  },
);
