// The LDAP directory the authentication-source tests run against: a real slapd that answers binds
// over plain LDAP, StartTLS and LDAPS with the test CA's certificate, follows the harness's changes,
// and can be taken down or frozen.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, type ClientOptions, InvalidCredentialsError, NoSuchObjectError } from "ldapts";
import { type Directory, startDirectory } from "../support/directory.ts";

async function withClient<T>(options: ClientOptions, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectTimeout: 2000, timeout: 2000, ...options });
  try {
    return await work(client);
  } finally {
    await client.unbind().catch(() => {});
  }
}

describe("the LDAP directory harness", { timeout: 30_000 }, () => {
  let directory: Directory;
  before(async () => {
    directory = await startDirectory();
    await directory.addUser({
      uid: "alice",
      password: "alice's secret",
      givenName: "Alice",
      sn: "Liddell",
      mail: "alice@anvil.test",
      sshPublicKey: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAliceKey alice@laptop"],
    });
    await directory.addUser({ uid: "bob", password: "bob's secret", ou: "robots" });
    await directory.addToGroup("admins", "alice");
  });
  after(() => directory?.close());

  const bind = (url: string, dn: string, password: string, options: Partial<ClientOptions> = {}) =>
    withClient({ url, ...options }, (client) => client.bind(dn, password));

  test("a user binds with the right password over ldap://, and not with a wrong one", async () => {
    await bind(directory.url, directory.userDn("alice"), "alice's secret");
    await assert.rejects(bind(directory.url, directory.userDn("alice"), "wrong"), InvalidCredentialsError);
    assert.equal(directory.userDn("alice"), `uid=alice,${directory.usersDn}`);
    assert.equal(directory.userDn("bob"), `uid=bob,ou=robots,${directory.baseDn}`);
  });

  test("StartTLS and ldaps:// present a certificate the test CA signed, and only it verifies", async () => {
    await withClient({ url: directory.url }, async (client) => {
      await client.startTLS({ ca: directory.caPem });
      await client.bind(directory.userDn("alice"), "alice's secret");
    });
    await bind(directory.tlsUrl, directory.userDn("alice"), "alice's secret", {
      tlsOptions: { ca: directory.caPem },
    });
    await assert.rejects(
      withClient({ url: directory.url }, (client) => client.startTLS({})),
      /self[- ]signed|unable to (get|verify)/i,
    );
    await assert.rejects(
      bind(directory.tlsUrl, directory.userDn("alice"), "alice's secret"),
      /self[- ]signed|unable to (get|verify)/i,
    );
  });

  test("the service account reads users and membership but no password; anonymous reads nothing", async () => {
    const search = (filter: string, attributes = ["*", "memberOf"]) =>
      withClient({ url: directory.url }, async (client) => {
        await client.bind(directory.bindDn, directory.bindPassword);
        return (await client.search(directory.baseDn, { filter, attributes })).searchEntries;
      });
    const [alice, ...others] = await search("(&(objectClass=inetOrgPerson)(uid=alice))");
    assert.deepEqual(others, []);
    assert.equal(alice.mail, "alice@anvil.test");
    assert.equal(alice.givenName, "Alice");
    assert.equal(alice.sn, "Liddell");
    assert.equal(alice.sshPublicKey, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAliceKey alice@laptop");
    assert.equal(alice.userPassword, undefined);
    const admins = `cn=admins,${directory.groupsDn}`;
    assert.equal(directory.groupDn("admins"), admins);
    assert.equal(alice.memberOf, admins);
    const uids = async (filter: string) => (await search(filter)).map((entry) => entry.uid).sort();
    assert.deepEqual(await uids("(employeeType=admins)"), ["alice"]);
    assert.deepEqual(await uids(`(memberOf=${admins})`), ["alice"]);
    assert.deepEqual(await uids("(objectClass=inetOrgPerson)"), ["alice", "bob"]);

    await directory.addToGroup("admins", "bob");
    await directory.removeFromGroup("admins", "alice");
    assert.deepEqual(await uids(`(&(employeeType=admins)(memberOf=${admins}))`), ["bob"]);
    await directory.removeFromGroup("admins", "bob");
    assert.deepEqual(await search(`(|(employeeType=admins)(memberOf=${admins})(cn=admins))`), []);

    // slapd does not even admit that an entry anonymous may not read exists.
    await assert.rejects(
      withClient({ url: directory.url }, (client) => client.search(directory.baseDn, {})),
      NoSuchObjectError,
    );
  });

  test("modifyUser changes a password, attributes and the unit, deleteUser removes the user", async () => {
    await directory.addUser({ uid: "carol", password: "first", mail: "carol@anvil.test" });
    await directory.modifyUser("carol", {
      password: "second",
      mail: null,
      sshPublicKey: ["ssh-ed25519 AAAA"],
    });
    await assert.rejects(bind(directory.url, directory.userDn("carol"), "first"), InvalidCredentialsError);
    await bind(directory.url, directory.userDn("carol"), "second");
    const [carol] = await withClient({ url: directory.url }, async (client) => {
      await client.bind(directory.userDn("carol"), "second");
      return (await client.search(directory.userDn("carol"), { scope: "base" })).searchEntries;
    });
    assert.equal(carol.mail, undefined);
    assert.equal(carol.sshPublicKey, "ssh-ed25519 AAAA");

    await directory.addToGroup("admins", "carol");
    await directory.modifyUser("carol", { ou: "contractors" });
    const dn = directory.userDn("carol");
    assert.equal(dn, `uid=carol,ou=contractors,${directory.baseDn}`);
    await bind(directory.url, dn, "second");
    const admins = await withClient({ url: directory.url }, async (client) => {
      await client.bind(directory.bindDn, directory.bindPassword);
      const filter = `(memberOf=${directory.groupDn("admins")})`;
      return (await client.search(directory.baseDn, { filter })).searchEntries.map((entry) => entry.dn);
    });
    assert.ok(admins.includes(dn), `${dn} in ${admins}`);

    await directory.deleteUser("carol");
    await assert.rejects(bind(directory.url, dn, "second"), InvalidCredentialsError);
    assert.throws(() => directory.userDn("carol"), /no user carol/);
  });

  test("stop() takes the directory down, start() brings it back on the same port with its data", async () => {
    await directory.stop();
    await assert.rejects(bind(directory.url, directory.userDn("alice"), "alice's secret"), /ECONNREFUSED/);
    await directory.start();
    await bind(directory.url, directory.userDn("alice"), "alice's secret");
    await bind(directory.tlsUrl, directory.userDn("alice"), "alice's secret", {
      tlsOptions: { ca: directory.caPem },
    });
  });

  test("pause() makes a bind hang until the client gives up, resume() answers again", async () => {
    await directory.pause();
    try {
      const started = Date.now();
      await assert.rejects(
        bind(directory.url, directory.userDn("alice"), "alice's secret", { timeout: 300 }),
        /timed out/,
      );
      assert.ok(Date.now() - started >= 250, "the bind was refused, not left hanging");
    } finally {
      directory.resume();
    }
    await bind(directory.url, directory.userDn("alice"), "alice's secret");
  });
});
