// Sign-in of an LDAP source's users against a real slapd: basic auth on the API and git over
// HTTP with the directory's password (never a local one), the first sign-in making the account
// with the directory's e-mail and SSH keys, filters and roles followed at every sign-in, names
// that try to inject filter or DN syntax, and a directory that is down or hangs.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TempDir, tempDir } from "@anvil/core/testing";
import { bindDnSource, type Directory, startDirectory } from "../support/directory.ts";
import { api, basic, forEachForge } from "../support/forge.ts";
import { git, withCredentials } from "../support/git.ts";

const ALICE_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHp7nbZwsd60JAfGuDFG/3PUPgSloymq916xa3omCpSP alice@laptop";

interface SourceAnswer {
  id: number;
  name: string;
}

const logLines: string[] = [];

forEachForge(
  "directory sign-in",
  (forge) => {
    let directory: Directory;
    let work: TempDir;
    let source: SourceAnswer;

    const whoAmI = (user: string, password: string) =>
      api<{ login: string; email: string; full_name: string; is_admin: boolean; restricted: boolean }>(
        forge.url,
        "GET",
        "/user",
        { auth: basic(user, password) },
      );
    const asAdmin = <T>(method: string, path: string, body?: unknown) =>
      api<T>(forge.url, method, path, { token: forge.adminToken, body });
    const account = async (name: string) => {
      const db = forge.server.app.database;
      if (!db) throw new Error("no database");
      return db.db
        .selectFrom("account")
        .selectAll()
        .where("lower_name", "=", name.toLowerCase())
        .executeTakeFirst();
    };

    before(async () => {
      work = await tempDir("anvil-directory-sign-in-");
      directory = await startDirectory();
      await directory.addUser({
        uid: "alice",
        password: "alice-directory-pw",
        givenName: "Alice",
        sn: "Liddell",
        mail: "alice@corp.test",
        sshPublicKey: [ALICE_KEY],
      });
      await directory.addUser({ uid: "bob", password: "bob-directory-pw", givenName: "Bob", sn: "Builder" });
      await directory.addUser({ uid: "carol", password: "carol-directory-pw", mail: "carol@corp.test" });
      await directory.addUser({ uid: "dave", password: "dave-directory-pw", mail: "dave@corp.test" });
      await directory.addUser({ uid: "erin", password: "erin-directory-pw", mail: "erin@corp.test" });
      await directory.addUser({
        uid: "mallory",
        password: "mallory-pw",
        mail: "mallory@corp.test",
        ou: "contractors",
      });
      await directory.addToGroup("admins", "carol");
      await directory.addToGroup("guests", "dave");
      const made = await asAdmin<SourceAnswer>(
        "POST",
        "/admin/auths",
        bindDnSource(directory, {
          security_protocol: "unencrypted",
          restricted_filter: "(employeeType=guests)",
          timeout: 1,
        }),
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      source = made.body;
    });
    after(async () => {
      await directory?.close();
      await work?.remove();
    });

    test("the first sign-in of a directory user makes their account from the directory", async () => {
      const answer = await whoAmI("alice", "alice-directory-pw");
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.login, "alice");
      assert.equal(answer.body.email, "alice@corp.test");
      assert.equal(answer.body.full_name, "Alice Liddell");
      const row = await account("alice");
      assert.equal(row?.source_id, source.id);
      assert.equal(row?.login_name, "alice");
      assert.equal(row?.password_hash, "", "no local password is kept for a directory user");
      const keys = await api<{ key: string }[]>(forge.url, "GET", "/users/alice/keys");
      assert.deepEqual(
        keys.body.map((key) => key.key.split(" ").slice(0, 2).join(" ")),
        [ALICE_KEY.split(" ").slice(0, 2).join(" ")],
      );
      // Without an e-mail attribute, the address is made up as Gitea makes it.
      const bob = await whoAmI("bob", "bob-directory-pw");
      assert.equal(bob.status, 200);
      assert.equal(bob.body.email, "bob@localhost.local");
    });

    test("a wrong password, an unknown name and an empty password are refused", async () => {
      assert.equal((await whoAmI("alice", "not-her-password")).status, 401);
      assert.equal((await whoAmI("zoe", "whatever-pw")).status, 401);
      assert.equal((await whoAmI("alice", "")).status, 401);
      assert.equal(await account("zoe"), undefined);
    });

    test("an account made by the admin under the source signs in with its login name", async () => {
      const made = await asAdmin<{ login: string }>("POST", "/admin/users", {
        username: "erin-the-dev",
        email: "erin.dev@example.com",
        source_id: source.id,
        login_name: "erin",
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const answer = await whoAmI("erin-the-dev", "erin-directory-pw");
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.login, "erin-the-dev");
      // A source that does not exist is refused as Gitea refuses it.
      const missing = await asAdmin<{ message: string }>("POST", "/admin/users", {
        username: "nobody",
        email: "nobody@example.com",
        source_id: 999,
        login_name: "nobody",
      });
      assert.equal(missing.status, 422);
      assert.equal(missing.body.message, "login source does not exist [id: 999]");
    });

    test("the local password of a directory user is never consulted", async () => {
      const edited = await asAdmin("PATCH", "/admin/users/bob", {
        source_id: source.id,
        login_name: "bob",
        password: "a-local-password",
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.equal((await whoAmI("bob", "a-local-password")).status, 401);
      assert.equal((await whoAmI("bob", "bob-directory-pw")).status, 200);
      // A local user moved under the source: no local password left, nothing to change here.
      await directory.addUser({ uid: "ivan", password: "ivan-directory-pw", mail: "ivan@corp.test" });
      const ivan = await asAdmin("POST", "/admin/users", {
        username: "ivan",
        email: "ivan@example.com",
        password: "ivan-local-pw",
      });
      assert.equal(ivan.status, 201, JSON.stringify(ivan.body));
      const moved = await asAdmin("PATCH", "/admin/users/ivan", { source_id: source.id, login_name: "ivan" });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.equal((await whoAmI("ivan", "ivan-local-pw")).status, 401);
      assert.equal((await whoAmI("ivan", "ivan-directory-pw")).status, 200);
      assert.equal((await account("ivan"))?.password_hash, "");
    });

    test("the admin and restricted filters decide roles at each sign-in", async () => {
      const carol = await whoAmI("carol", "carol-directory-pw");
      assert.equal(carol.status, 200);
      assert.equal(carol.body.is_admin, true);
      const dave = await whoAmI("dave", "dave-directory-pw");
      assert.equal(dave.status, 200);
      assert.equal((await account("dave"))?.restricted ? 1 : 0, 1);
      await directory.removeFromGroup("admins", "carol");
      await directory.removeFromGroup("guests", "dave");
      assert.equal((await whoAmI("carol", "carol-directory-pw")).body.is_admin, false);
      await whoAmI("dave", "dave-directory-pw");
      assert.equal((await account("dave"))?.restricted ? 1 : 0, 0);
    });

    test("a user the filter no longer matches, or the directory no longer has, is refused", async () => {
      assert.equal((await whoAmI("mallory", "mallory-pw")).status, 401, "outside the search base");
      await directory.addUser({ uid: "frank", password: "frank-directory-pw", mail: "frank@corp.test" });
      assert.equal((await whoAmI("frank", "frank-directory-pw")).status, 200);
      await directory.modifyUser("frank", { ou: "contractors" });
      assert.equal((await whoAmI("frank", "frank-directory-pw")).status, 401);
      await directory.modifyUser("frank", { ou: "people" });
      assert.equal((await whoAmI("frank", "frank-directory-pw")).status, 200);
      await directory.deleteUser("frank");
      assert.equal((await whoAmI("frank", "frank-directory-pw")).status, 401);
    });

    test("filter and DN syntax in a login name is escaped, never obeyed", async () => {
      for (const login of ["*", "al*", "alice)(uid=*", "*)(objectClass=*", "alice\u0000", "alice\\2a"]) {
        const answer = await whoAmI(login, "alice-directory-pw");
        assert.equal(answer.status, 401, `${JSON.stringify(login)} signed in`);
      }
      // A simple-auth source puts the login into a DN: a comma cannot add a component to it.
      const simple = await asAdmin<SourceAnswer>("POST", "/admin/auths", {
        type: "ldap_simple",
        name: "corp-simple",
        host: directory.host,
        port: directory.port,
        security_protocol: "Unencrypted",
        user_dn: `uid=%s,${directory.usersDn}`,
        user_filter: "(objectClass=inetOrgPerson)",
        username_attribute: "uid",
        email_attribute: "mail",
        timeout: 1,
      });
      assert.equal(simple.status, 201, JSON.stringify(simple.body));
      const made = await asAdmin("POST", "/admin/users", {
        username: "gina",
        email: "gina@example.com",
        source_id: simple.body.id,
        login_name: "mallory,ou=contractors",
      });
      assert.equal(made.status, 201);
      assert.equal((await whoAmI("gina", "mallory-pw")).status, 401);
      await asAdmin("PATCH", "/admin/users/gina", { source_id: simple.body.id, login_name: "erin" });
      assert.equal((await whoAmI("gina", "erin-directory-pw")).status, 200, "simple auth signs in");
      assert.equal((await asAdmin("DELETE", "/admin/users/gina")).status, 204);
      assert.equal((await asAdmin("DELETE", `/admin/auths/${simple.body.id}`)).status, 204);
    });

    test("first sign-ins fired together make one account", async () => {
      await directory.addUser({ uid: "henry", password: "henry-directory-pw", mail: "henry@corp.test" });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => whoAmI("henry", "henry-directory-pw")),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        answers.map(() => 200),
      );
      const db = forge.server.app.database;
      if (!db) throw new Error("no database");
      const rows = await db.db.selectFrom("account").select("id").where("lower_name", "=", "henry").execute();
      assert.equal(rows.length, 1);
    });

    test("a directory user clones and pushes over HTTP with their directory password", async () => {
      const repo = await api(forge.url, "POST", "/user/repos", {
        auth: basic("alice", "alice-directory-pw"),
        body: { name: "notes", auto_init: true, private: true },
      });
      assert.equal(repo.status, 201, JSON.stringify(repo.body));
      const remote = `${withCredentials(forge.url, "alice", "alice-directory-pw")}/alice/notes.git`;
      const clone = await git(["clone", remote, "notes"], work.path);
      assert.equal(clone.code, 0, clone.stderr);
      const dir = join(work.path, "notes");
      await writeFile(join(dir, "todo.txt"), "ship it\n");
      await git(["add", "todo.txt"], dir);
      const commit = await git(
        ["-c", "user.name=Alice", "-c", "user.email=alice@corp.test", "commit", "-m", "todo"],
        dir,
      );
      assert.equal(commit.code, 0, commit.stderr);
      const push = await git(["push", "origin", "HEAD"], dir);
      assert.equal(push.code, 0, push.stderr);
      const wrong = await git(
        ["clone", `${withCredentials(forge.url, "alice", "wrong")}/alice/notes.git`, "nope"],
        work.path,
      );
      assert.notEqual(wrong.code, 0);
      assert.equal(await readFile(join(dir, "todo.txt"), "utf8"), "ship it\n");
    });

    test("a directory that is down or hangs refuses its users within the time-out; local users go on", async () => {
      await directory.stop();
      try {
        const down = await whoAmI("alice", "alice-directory-pw");
        assert.equal(down.status, 401);
        assert.equal((await whoAmI("root", "rootpassword")).status, 200);
      } finally {
        await directory.start();
      }
      await directory.pause();
      try {
        const started = performance.now();
        const hung = await whoAmI("alice", "alice-directory-pw");
        const waited = performance.now() - started;
        assert.equal(hung.status, 401);
        assert.ok(waited < 3000, `waited ${Math.round(waited)} ms for a 1 s time-out`);
        assert.equal((await whoAmI("root", "rootpassword")).status, 200);
      } finally {
        directory.resume();
      }
      assert.equal((await whoAmI("alice", "alice-directory-pw")).status, 200);
      const log = logLines.join("");
      assert.match(log, /directory sign-in failed/);
      assert.match(log, /ECONNREFUSED|no answer/);
      for (const secret of ["alice-directory-pw", directory.bindPassword, "rootpassword"])
        assert.ok(!log.includes(secret), "a password reached the log");
    });
  },
  { log: logLines },
);
