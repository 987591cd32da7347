import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { generateKey, gitSshCommand, type KeyPair, keygenFingerprint } from "../ssh/tools.ts";
import { api, forEachForge } from "../support/forge.ts";
import { git } from "../support/git.ts";
import { makePerson } from "../support/people.ts";

interface Key {
  id: number;
  key: string;
  fingerprint: string;
  title: string;
}

forEachForge(
  "forge: SSH keys and git over SSH",
  (forge) => {
    let keys: TempDir;
    let alice: KeyPair;
    let bob: KeyPair;
    let stranger: KeyPair;
    const tokens = new Map<string, string>();

    before(async () => {
      keys = await tempDir("anvil-keys-");
      alice = await generateKey(keys.path, "alice", ["-t", "ed25519"]);
      bob = await generateKey(keys.path, "bob", ["-t", "ecdsa", "-b", "256"]);
      stranger = await generateKey(keys.path, "stranger", ["-t", "ed25519"]);
      for (const name of ["alice", "bob"])
        tokens.set(name, (await makePerson(forge.url, forge.adminToken, name)).token);
    });
    after(() => keys.remove());

    const sshUrl = (repo: string) => `ssh://git@127.0.0.1:${forge.sshPort}/${repo}.git`;
    const viaSsh = (pair: KeyPair) => ({ GIT_SSH_COMMAND: gitSshCommand(pair.privatePath) });

    test("keys: added through the API with ssh-keygen's fingerprint; bad and reused keys are 422", async () => {
      const added = await api<Key>(forge.url, "POST", "/user/keys", {
        token: tokens.get("alice"),
        body: { title: "laptop", key: alice.publicText },
        shape: "PublicKey",
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.equal(added.body.fingerprint, (await keygenFingerprint(`${alice.privatePath}.pub`)).fingerprint);
      const byAdmin = await api<Key>(forge.url, "POST", "/admin/users/bob/keys", {
        token: forge.adminToken,
        body: { title: "desk", key: bob.publicText },
        shape: "PublicKey",
      });
      assert.equal(byAdmin.status, 201);
      const cases: Array<[unknown, RegExp]> = [
        [{ title: "again", key: alice.publicText }, /^Key content has been used as non-deploy key$/],
        [{ title: "laptop", key: stranger.publicText }, /^Key title has been used$/],
        [{ title: "junk", key: "ssh-ed25519 AAAAnotakey" }, /^Invalid key content/],
        [{ title: "private", key: await readFile(alice.privatePath, "utf8") }, /^Invalid key content/],
      ];
      for (const [body, message] of cases) {
        const res = await api<{ message: string }>(forge.url, "POST", "/user/keys", {
          token: tokens.get("alice"),
          body,
        });
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.match(res.body.message, message);
      }
      const listed = await api<Key[]>(forge.url, "GET", "/users/alice/keys", { shape: "PublicKey[]" });
      assert.deepEqual(
        listed.body.map((k) => k.title),
        ["laptop"],
      );
      const mine = await api<Key>(forge.url, "GET", `/user/keys/${added.body.id}`, {
        token: tokens.get("alice"),
        shape: "PublicKey",
      });
      assert.equal(mine.body.key, alice.publicText.split(" ").slice(0, 2).join(" "));
      assert.equal(
        (await api(forge.url, "GET", `/user/keys/${added.body.id}`, { token: tokens.get("bob") })).status,
        404,
      );
    });

    test("clone and push over SSH with the user's key; readers cannot push; strangers cannot log in", async () => {
      const created = await api<{ ssh_url: string }>(forge.url, "POST", "/user/repos", {
        token: tokens.get("alice"),
        body: { name: "over-ssh", auto_init: true },
      });
      assert.equal(created.body.ssh_url, `ssh://git@forge.test:${forge.sshPort}/alice/over-ssh.git`);
      const work = await tempDir();
      try {
        const clone = await git(["clone", sshUrl("alice/over-ssh"), "c"], work.path, viaSsh(alice));
        assert.equal(clone.code, 0, clone.stderr);
        const dir = join(work.path, "c");
        await git(["commit", "--allow-empty", "-q", "-m", "by ssh"], dir);
        const push = await git(["push", "-q", "origin", "main"], dir, viaSsh(alice));
        assert.equal(push.code, 0, push.stderr);
        const commits = await api<Array<{ commit: { message: string } }>>(
          forge.url,
          "GET",
          "/repos/alice/over-ssh/commits",
        );
        assert.equal(commits.body[0].commit.message, "by ssh\n");

        const bobClone = await git(["clone", sshUrl("alice/over-ssh"), "b"], work.path, viaSsh(bob));
        assert.equal(bobClone.code, 0, "a public repository is readable by any signed-in key");
        const bobDir = join(work.path, "b");
        await git(["commit", "--allow-empty", "-q", "-m", "not allowed"], bobDir);
        const bobPush = await git(["push", "-q", "origin", "main"], bobDir, viaSsh(bob));
        assert.notEqual(bobPush.code, 0);
        assert.match(bobPush.stderr, /anvil: you do not have permission to push/);

        const strangerClone = await git(
          ["clone", sshUrl("alice/over-ssh"), "s"],
          work.path,
          viaSsh(stranger),
        );
        assert.notEqual(strangerClone.code, 0);
        assert.match(strangerClone.stderr, /Permission denied \(publickey\)/);
      } finally {
        await work.remove();
      }
    });

    test("a private repository is hidden from others over SSH; an empty one is noted as pushed", async () => {
      await api(forge.url, "POST", "/user/repos", {
        token: tokens.get("alice"),
        body: { name: "hidden", private: true },
      });
      const work = await tempDir();
      try {
        const refused = await git(["clone", sshUrl("alice/hidden"), "h"], work.path, viaSsh(bob));
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /anvil: repository does not exist/);
        await git(["init", "-q", "-b", "main", "fresh"], work.path);
        const dir = join(work.path, "fresh");
        await git(["commit", "--allow-empty", "-q", "-m", "first"], dir);
        const push = await git(["push", "-q", sshUrl("alice/hidden"), "main:trunk"], dir, viaSsh(alice));
        assert.equal(push.code, 0, push.stderr);
        const repo = await api<{ empty: boolean; default_branch: string }>(
          forge.url,
          "GET",
          "/repos/alice/hidden",
          {
            token: tokens.get("alice"),
          },
        );
        assert.equal(repo.body.empty, false);
        assert.equal(repo.body.default_branch, "trunk", "the first pushed branch becomes the default");
        const clone = await git(["clone", sshUrl("alice/hidden"), "again"], work.path, viaSsh(alice));
        assert.equal(clone.code, 0, clone.stderr);
        assert.doesNotMatch(clone.stderr, /remote HEAD refers to nonexistent ref/);
      } finally {
        await work.remove();
      }
    });

    test("a deleted key no longer logs in", async () => {
      const listed = await api<Key[]>(forge.url, "GET", "/user/keys", { token: tokens.get("bob") });
      assert.equal(
        (
          await api(forge.url, "DELETE", `/admin/users/bob/keys/${listed.body[0].id}`, {
            token: forge.adminToken,
          })
        ).status,
        204,
      );
      const work = await tempDir();
      try {
        const clone = await git(["clone", sshUrl("alice/over-ssh"), "x"], work.path, viaSsh(bob));
        assert.notEqual(clone.code, 0);
        assert.match(clone.stderr, /Permission denied \(publickey\)/);
      } finally {
        await work.remove();
      }
    });
  },
  { ssh: true },
);
