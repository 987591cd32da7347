// Synchronizing a source's users with a real slapd, paged: accounts created, updated (e-mail,
// name, roles, SSH keys), deactivated and reactivated; a second run changes nothing; an empty
// answer deactivates nobody unless the source allows it; and the periodic job, run by two forges
// on one database, syncs once per period.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createLogger, readBool } from "@anvil/core";
import { serviceConfig, startApp, waitFor } from "@anvil/core/testing";
import { adminSyncAuthSources } from "../../src/admin.ts";
import { createApp } from "../../src/index.ts";
import { createUser } from "../../src/services/accounts.ts";
import { createAuthSource, type SourceInput } from "../../src/services/auth-sources.ts";
import { bindDnSource, type Directory, startDirectory } from "../support/directory.ts";
import { forEachForge } from "../support/forge.ts";

const KEY_ONE =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHp7nbZwsd60JAfGuDFG/3PUPgSloymq916xa3omCpSP alice@laptop";
const KEY_TWO = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIgD4hTqxSl8aNRqJ3FxSAH11Vh6GafWSp7k8VV+nphl alice@desk";

forEachForge("directory sync", (forge) => {
  let directory: Directory;

  const db = () => {
    const opened = forge.server.app.database;
    if (!opened) throw new Error("no database");
    return opened;
  };
  const accountOf = (name: string) =>
    db().db.selectFrom("account").selectAll().where("lower_name", "=", name).executeTakeFirstOrThrow();
  const keysOf = async (name: string) => {
    const account = await accountOf(name);
    const rows = await db()
      .db.selectFrom("public_key")
      .select("content")
      .where("account_id", "=", account.id)
      .execute();
    return rows.map((row) => row.content).sort();
  };
  // Two users a page, so a sync pages through the directory.
  const sourceSettings = (extra: Record<string, unknown> = {}) =>
    bindDnSource(directory, { page_size: 2, is_sync_enabled: true, ...extra }) as SourceInput;

  before(async () => {
    directory = await startDirectory();
    await directory.addUser({
      uid: "alice",
      password: "pw-alice",
      givenName: "Alice",
      sn: "Liddell",
      mail: "alice@corp.test",
      sshPublicKey: [KEY_ONE],
    });
    for (const uid of ["bob", "carol", "dave"])
      await directory.addUser({ uid, password: `pw-${uid}`, mail: `${uid}@corp.test` });
    await directory.addToGroup("admins", "carol");
    await createUser(db(), {
      username: "zed",
      email: "zed@example.com",
      password: "local-password",
      must_change_password: false,
    });
  });
  after(() => directory?.close());

  test("a sync creates, updates, deactivates and reactivates the source's users, then changes nothing", async () => {
    const source = await createAuthSource(db(), { ...sourceSettings(), name: "corp" });
    const [first] = await adminSyncAuthSources(db(), source.id);
    assert.deepEqual(first.created.sort(), ["alice", "bob", "carol", "dave"]);
    assert.equal(first.keysAdded, 1);
    assert.equal((await accountOf("alice")).email, "alice@corp.test");
    assert.equal((await accountOf("alice")).full_name, "Alice Liddell");
    assert.equal(readBool((await accountOf("carol")).is_admin), true);
    assert.deepEqual(await keysOf("alice"), [KEY_ONE.split(" ").slice(0, 2).join(" ")]);

    await directory.modifyUser("alice", {
      mail: "alice@new.test",
      givenName: "Alicia",
      sshPublicKey: [KEY_TWO],
    });
    await directory.removeFromGroup("admins", "carol");
    await directory.deleteUser("dave");
    const [second] = await adminSyncAuthSources(db(), source.id);
    assert.deepEqual(second.created, []);
    assert.deepEqual(second.updated.sort(), ["alice", "carol"]);
    assert.deepEqual(second.deactivated, ["dave"]);
    assert.deepEqual([second.keysAdded, second.keysRemoved], [1, 1]);
    assert.equal((await accountOf("alice")).email, "alice@new.test");
    assert.equal((await accountOf("alice")).full_name, "Alicia Liddell");
    assert.deepEqual(await keysOf("alice"), [KEY_TWO.split(" ").slice(0, 2).join(" ")]);
    assert.equal(readBool((await accountOf("carol")).is_admin), false);
    assert.equal(readBool((await accountOf("dave")).is_active), false);
    assert.equal(
      readBool((await accountOf("zed")).is_active),
      true,
      "a local user is not the source's to deactivate",
    );

    const [third] = await adminSyncAuthSources(db(), source.id);
    assert.deepEqual([third.created, third.updated, third.deactivated], [[], [], []]);
    assert.deepEqual([third.keysAdded, third.keysRemoved], [0, 0]);

    await directory.addUser({ uid: "dave", password: "pw-dave", mail: "dave@corp.test" });
    const [fourth] = await adminSyncAuthSources(db(), source.id);
    assert.deepEqual(fourth.updated, ["dave"]);
    assert.equal(readBool((await accountOf("dave")).is_active), true);
  });

  test("a directory that lists nobody deactivates nobody, unless the source allows it", async () => {
    const source = await createAuthSource(db(), { ...sourceSettings(), name: "empty" });
    const [made] = await adminSyncAuthSources(db(), source.id);
    // The users belong to the first source already: this one can only skip them.
    assert.deepEqual(made.skipped.sort(), ["alice", "bob", "carol", "dave"]);
    const nobody = await createAuthSource(db(), {
      ...sourceSettings({ user_filter: "(&(objectClass=inetOrgPerson)(uid=%s)(uid=nobody-at-all))" }),
      name: "nobody",
    });
    await db()
      .db.updateTable("account")
      .set({ source_id: nobody.id })
      .where("lower_name", "=", "bob")
      .execute();
    const [kept] = await adminSyncAuthSources(db(), nobody.id);
    assert.deepEqual(kept.deactivated, []);
    assert.equal(readBool((await accountOf("bob")).is_active), true);
    const { editAuthSource } = await import("../../src/services/auth-sources.ts");
    await editAuthSource(db(), nobody.id, { allow_deactivate_all: true });
    const [emptied] = await adminSyncAuthSources(db(), nobody.id);
    assert.deepEqual(emptied.deactivated, ["bob"]);
  });

  test("a simple-auth source cannot be synced, and says so", async () => {
    const simple = await createAuthSource(db(), {
      ...sourceSettings({ type: "ldap_simple", user_dn: `uid=%s,${directory.usersDn}` }),
      name: "simple",
    });
    await assert.rejects(adminSyncAuthSources(db(), simple.id), /only an LDAP \(via BindDN\) source/);
  });

  test("the periodic sync, run by two forges on one database, syncs once a period", async () => {
    await directory.addUser({ uid: "erin", password: "pw-erin", mail: "erin@corp.test" });
    await db()
      .db.updateTable("auth_source")
      .set({ is_sync_enabled: false })
      .where("name", "!=", "corp")
      .execute();
    // The syncs by hand above count as this period's: as if the last one were a period ago.
    await db().db.updateTable("auth_source").set({ synced_at: null }).where("name", "=", "corp").execute();
    const lines: string[] = [];
    // A short period, so that several pass while the test watches both forges.
    const PERIOD_MS = 1500;
    const start = () =>
      startApp(({ dataDir }) =>
        createApp(
          serviceConfig(dataDir, forge.databaseUrl, {
            logger: createLogger({
              level: "info",
              destination: { write: (line: string) => lines.push(line) },
            }),
          }),
          { authSyncIntervalMs: PERIOD_MS },
        ),
      );
    // One after the other: SQLite lets one process migrate at a time.
    const forges = [await start()];
    forges.push(
      await start().catch(async (error) => {
        await forges[0].close();
        throw error;
      }),
    );
    try {
      const erin = await waitFor("erin's account", async () =>
        (await db().db.selectFrom("account").select("id").where("lower_name", "=", "erin").execute()).length >
        0
          ? true
          : undefined,
      );
      assert.equal(erin, true, lines.join(""));
      await new Promise((resolve) => setTimeout(resolve, 3 * PERIOD_MS));
    } finally {
      for (const forge of forges) await forge.close();
    }
    // Both forges checked every period; the syncs they claimed started a period apart at least.
    const synced = lines
      .map((line) => JSON.parse(line) as { msg: string; started: string })
      .filter((entry) => entry.msg === "directory synchronized")
      .map((entry) => Date.parse(entry.started))
      .sort((a, b) => a - b);
    assert.ok(synced.length >= 2, lines.join(""));
    for (let n = 1; n < synced.length; n++)
      assert.ok(synced[n] - synced[n - 1] >= PERIOD_MS - 50, `syncs at ${synced.join(", ")}`);
  });
});
