// The LDAP flow as a site admin does it, with stock tools only: `anvil forge serve` as its own
// process trusting the directory's CA (NODE_EXTRA_CA_CERTS), curl adding an LDAPS source with
// certificate verification and a user under it (by the source's name), that user cloning and pushing with stock git and
// their directory password, a first sign-in making an account, and Gitea's `admin auth` commands
// (add-ldap, list, update-ldap, sync, delete) on the same database, over StartTLS.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  forEachDatabase,
  runAnvil,
  type ServiceProcess,
  startServiceProcess,
  type TempDir,
  tempDir,
} from "@anvil/core/testing";
import { run } from "../ssh/tools.ts";
import { type Directory, startDirectory } from "../support/directory.ts";
import { git, withCredentials } from "../support/git.ts";

forEachDatabase("the LDAP flow with curl, git and anvil's admin commands", (database) => {
  let directory: Directory;
  let data: TempDir;
  let forge: ServiceProcess;
  let token: string;
  let where: string[];

  /** curl as a script runs it: JSON in, the status code on the last line. */
  async function curl(method: string, path: string, options: { body?: unknown; user?: string } = {}) {
    const args = ["-sS", "-X", method, "-w", "\n%{http_code}", `${forge.url}/api/v1${path}`];
    if (options.user) args.push("-u", options.user);
    else args.push("-H", `Authorization: token ${token}`);
    if (options.body !== undefined)
      args.push("-H", "Content-Type: application/json", "-d", JSON.stringify(options.body));
    const result = await run("curl", args);
    assert.equal(result.code, 0, result.stderr);
    const cut = result.stdout.lastIndexOf("\n");
    const text = result.stdout.slice(0, cut);
    return { status: Number(result.stdout.slice(cut + 1)), body: text === "" ? undefined : JSON.parse(text) };
  }

  const admin = async (...args: string[]) => {
    // A sync talks to the directory itself: the command trusts its CA as the server does.
    const result = await runAnvil(["forge", "admin", "auth", ...args, ...where], {
      NODE_EXTRA_CA_CERTS: directory.caFile,
    });
    return { code: result.code, out: result.stdout, err: result.stderr };
  };

  before(async () => {
    directory = await startDirectory();
    await directory.addUser({
      uid: "alice",
      password: "alice-directory-pw",
      givenName: "Alice",
      sn: "Liddell",
      mail: "alice@corp.test",
    });
    await directory.addUser({ uid: "bob", password: "bob-directory-pw", mail: "bob@corp.test" });
    await directory.addUser({ uid: "carol", password: "carol-directory-pw", mail: "carol@corp.test" });
    data = await tempDir("anvil-directory-flow-");
    where = ["--data-dir", data.path, "--database", database.url];
    const root = await runAnvil([
      "forge",
      "admin",
      "user",
      "create",
      "--username",
      "root",
      "--password",
      "rootpassword",
      "--email",
      "root@example.com",
      "--admin",
      "--access-token",
      ...where,
    ]);
    assert.equal(root.code, 0, root.stderr);
    token = /Access token was successfully created\.\.\. ([0-9a-f]{40})\n/.exec(root.stdout)?.[1] ?? "";
    // No periodic sync: the test syncs by hand and then deletes what it made.
    forge = await startServiceProcess(
      ["forge", "serve", "--ssh-port", "0", "--auth-sync-interval", "0", ...where],
      {
        NODE_EXTRA_CA_CERTS: directory.caFile,
      },
    );
  });
  after(async () => {
    if (forge) {
      forge.child.kill("SIGTERM");
      await forge.finished;
    }
    await directory?.close();
    await data?.remove();
  });

  test("an admin adds an LDAPS source with curl; its user clones and pushes with the directory password", async () => {
    const source = await curl("POST", "/admin/auths", {
      body: {
        type: "ldap",
        name: "corp",
        host: "localhost",
        port: directory.tlsPort,
        security_protocol: "LDAPS",
        bind_dn: directory.bindDn,
        bind_password: directory.bindPassword,
        user_search_base: directory.usersDn,
        user_filter: "(&(objectClass=inetOrgPerson)(uid=%s))",
        username_attribute: "uid",
        firstname_attribute: "givenName",
        surname_attribute: "sn",
        email_attribute: "mail",
      },
    });
    assert.equal(source.status, 201, JSON.stringify(source.body));
    const trial = await curl("POST", `/admin/auths/${source.body.id}/test`);
    assert.equal(trial.body.ok, true, trial.body.error);

    const user = await curl("POST", "/admin/users", {
      body: { username: "alice", email: "alice@example.com", source_name: "corp", login_name: "alice" },
    });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const me = await curl("GET", "/user", { user: "alice:alice-directory-pw" });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal(me.body.login, "alice");

    const repo = await curl("POST", "/user/repos", {
      user: "alice:alice-directory-pw",
      body: { name: "plans", private: true, auto_init: true },
    });
    assert.equal(repo.status, 201, JSON.stringify(repo.body));
    const remote = `${withCredentials(forge.url, "alice", "alice-directory-pw")}/alice/plans.git`;
    const clone = await git(["clone", remote, "plans"], data.path);
    assert.equal(clone.code, 0, clone.stderr);
    const dir = join(data.path, "plans");
    await writeFile(join(dir, "plan.md"), "1. sign in with LDAP\n");
    assert.equal((await git(["add", "plan.md"], dir)).code, 0);
    assert.equal((await git(["commit", "-m", "a plan"], dir)).code, 0);
    const push = await git(["push", "origin", "HEAD"], dir);
    assert.equal(push.code, 0, push.stderr);
    const again = await git(["clone", remote, "plans-again"], data.path);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(await readFile(join(data.path, "plans-again", "plan.md"), "utf8"), "1. sign in with LDAP\n");
    const refused = await git(
      ["clone", `${withCredentials(forge.url, "alice", "not-the-password")}/alice/plans.git`, "nope"],
      data.path,
    );
    assert.notEqual(refused.code, 0);

    // Nobody made bob's account: his first sign-in does, from the directory.
    const bob = await curl("GET", "/user", { user: "bob:bob-directory-pw" });
    assert.equal(bob.status, 200, JSON.stringify(bob.body));
    assert.equal(bob.body.email, "bob@corp.test");
  });

  test("Gitea's admin auth commands add, list, update, sync and refuse to delete a source in use", async () => {
    const added = await admin(
      "add-ldap",
      "--name",
      "corp-cli",
      "--security-protocol",
      "starttls",
      "--host",
      "localhost",
      "--port",
      String(directory.port),
      "--user-search-base",
      directory.usersDn,
      "--user-filter",
      "(&(objectClass=inetOrgPerson)(uid=%s))",
      "--email-attribute",
      "mail",
      "--username-attribute",
      "uid",
      "--bind-dn",
      directory.bindDn,
      "--bind-password",
      directory.bindPassword,
      "--not-active",
    );
    assert.equal(added.code, 0, added.err);
    assert.equal(added.out, "", "add-ldap prints nothing, as Gitea's");
    const listed = await admin("list");
    assert.equal(listed.code, 0, listed.err);
    const row = listed.out.split("\n").find((line) => line.includes("corp-cli"));
    assert.match(row ?? "", /^\d+\tcorp-cli\tLDAP \(via BindDN\)\tfalse$/);
    const id = row?.split("\t")[0] ?? "";
    assert.match(listed.out, /^ID\tName\tType\tEnabled\n/);

    const seen = await curl("GET", `/admin/auths/${id}`);
    assert.equal(seen.body.bind_password_set, true);
    assert.equal(JSON.stringify(seen.body).includes(directory.bindPassword), false);

    const updated = await admin(
      "update-ldap",
      "--id",
      id,
      "--not-active=false",
      "--synchronize-users",
      "--page-size",
      "1",
    );
    assert.equal(updated.code, 0, updated.err);
    const wrongType = await admin("update-ldap-simple", "--id", id, "--name", "x");
    assert.notEqual(wrongType.code, 0);
    assert.match(wrongType.err, /Invalid authentication type/);
    const missing = await admin("add-ldap", "--name", "half");
    assert.notEqual(missing.code, 0);
    assert.match(missing.err, /security-protocol is not set/);

    // carol never signed in: the sync makes her account; alice and bob belong to the first source.
    const synced = await admin("sync", "--id", id);
    assert.equal(synced.code, 0, synced.err);
    assert.match(
      synced.out,
      /^corp-cli: 1 created \(carol\), 0 updated, 0 deactivated, 0 SSH keys added, 0 removed, 2 skipped/,
    );
    const carol = await curl("GET", "/user", { user: "carol:carol-directory-pw" });
    assert.equal(carol.status, 200, JSON.stringify(carol.body));

    const refused = await admin("delete", "--id", id);
    assert.notEqual(refused.code, 0);
    assert.match(refused.err, /login source is still used by at least one user/);
    assert.equal((await curl("DELETE", "/admin/users/carol")).status, 204);
    const deleted = await admin("delete", "--id", id);
    assert.equal(deleted.code, 0, deleted.err);
    assert.equal((await curl("GET", `/admin/auths/${id}`)).status, 404);
  });
});
