// /admin/auths: authentication sources over the API (Gitea has only its CLI for them). Site
// admins only, Gitea's fields and messages, the bind password encrypted at rest and never
// answered, deletion refused while users belong to a source, the OpenAPI document describing it,
// and /test trying a real slapd over plain LDAP, StartTLS and LDAPS.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { bindDnSource, type Directory, startDirectory } from "../support/directory.ts";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson } from "../support/people.ts";

interface Source {
  id: number;
  name: string;
  type: string;
  type_name: string;
  is_active: boolean;
  is_sync_enabled: boolean;
  host: string;
  port: number;
  security_protocol: string;
  bind_dn: string;
  bind_password_set: boolean;
  user_filter: string;
  timeout: number;
  message?: string;
}

interface Trial {
  ok: boolean;
  users: { username: string; email: string; full_name: string; ssh_keys: number; is_admin: boolean }[];
  error?: string;
  elapsed_ms: number;
}

let directory: Directory;
before(async () => {
  directory = await startDirectory();
  await directory.addUser({
    uid: "alice",
    password: "alice-pw",
    givenName: "Alice",
    sn: "Liddell",
    mail: "alice@corp.test",
  });
  await directory.addUser({ uid: "bob", password: "bob-pw", mail: "bob@corp.test" });
  await directory.addToGroup("admins", "alice");
});
after(() => directory?.close());

function ldapSource(extra: Record<string, unknown> = {}) {
  return bindDnSource(directory, { timeout: 2, ...extra });
}

forEachForge("authentication sources", (forge) => {
  const asAdmin = <T = Source>(method: string, path: string, body?: unknown) =>
    api<T>(forge.url, method, path, { token: forge.adminToken, body });

  test("only site admins reach /admin/auths, before their body is read", async () => {
    const person = await makePerson(forge.url, forge.adminToken, "plain-user");
    for (const [method, path] of [
      ["GET", "/admin/auths"],
      ["POST", "/admin/auths"],
      ["GET", "/admin/auths/1"],
      ["PATCH", "/admin/auths/1"],
      ["DELETE", "/admin/auths/1"],
      ["POST", "/admin/auths/1/test"],
    ]) {
      const refused = await api(forge.url, method, path, {
        token: person.token,
        body: method === "GET" ? undefined : "{",
      });
      assert.equal(refused.status, 403, `${method} ${path}`);
      const anonymous = await api(forge.url, method, path);
      assert.equal(anonymous.status, 401, `${method} ${path} anonymously`);
    }
  });

  test("a source is created, read, listed, edited and deleted; the bind password never comes back", async () => {
    const made = await asAdmin("POST", "/admin/auths", ldapSource({ name: "crud" }));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.type, "ldap");
    assert.equal(made.body.type_name, "LDAP (via BindDN)");
    assert.equal(made.body.is_active, true);
    assert.equal(made.body.security_protocol, "Unencrypted");
    assert.equal(made.body.bind_password_set, true);
    assert.ok(!JSON.stringify(made.body).includes(directory.bindPassword));

    // At rest the password is ciphertext, in a row no answer shows whole.
    const db = forge.server.app.database;
    if (!db) throw new Error("no database");
    const row = await db.db
      .selectFrom("auth_source")
      .select("config")
      .where("id", "=", made.body.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.config.includes(directory.bindPassword), "the bind password is stored in the clear");
    assert.match(JSON.parse(row.config).bind_password, /^enc:v1:/);

    const got = await asAdmin("GET", `/admin/auths/${made.body.id}`);
    assert.deepEqual(got.body, made.body);
    const list = await asAdmin<Source[]>("GET", "/admin/auths?limit=50");
    assert.equal(list.status, 200);
    assert.ok(list.body.some((source) => source.id === made.body.id));
    assert.equal(list.headers.get("x-total-count"), String(list.body.length));

    // An edit changes what it sends; the password stays unless sent.
    const edited = await asAdmin("PATCH", `/admin/auths/${made.body.id}`, {
      name: "crud2",
      is_active: false,
      port: 1389,
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.name, "crud2");
    assert.equal(edited.body.is_active, false);
    assert.equal(edited.body.port, 1389);
    assert.equal(edited.body.bind_password_set, true);
    assert.equal(edited.body.user_filter, made.body.user_filter);
    const cleared = await asAdmin("PATCH", `/admin/auths/${made.body.id}`, { bind_password: "" });
    assert.equal(cleared.body.bind_password_set, false);

    assert.equal((await asAdmin("DELETE", `/admin/auths/${made.body.id}`)).status, 204);
    const gone = await asAdmin("GET", `/admin/auths/${made.body.id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.message, `login source does not exist [id: ${made.body.id}]`);
  });

  test("bad settings get Gitea's messages, never a 500", async () => {
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ type: "pam" }, 422, /\[Type\]/],
      [{ name: "" }, 422, /\[Name\]: Required/],
      [{ host: undefined }, 422, /\[Host\]: Required/],
      [{ user_search_base: undefined }, 422, /\[UserSearchBase\]: Required/],
      [{ email_attribute: undefined }, 422, /\[EmailAttribute\]: Required/],
      [{ security_protocol: "SSL" }, 422, /Unknown security protocol name: SSL/],
      [{ security_protocol: undefined }, 422, /\[SecurityProtocol\]: Required/],
      [{ port: 70000 }, 422, /\[Port\]/],
      [{ port: "389" }, 422, /\[Port\]: Type/],
      [{ user_filter: "(uid=%s" }, 422, /\[UserFilter\]: not a valid LDAP filter/],
      [{ admin_filter: "((" }, 422, /\[AdminFilter\]/],
      [{ timeout: 0 }, 422, /\[Timeout\]/],
      [{ page_size: -1 }, 422, /\[PageSize\]/],
      [{ host: "h".repeat(5000) }, 422, /\[Host\]/],
    ];
    for (const [change, status, message] of cases) {
      const answer = await asAdmin("POST", "/admin/auths", ldapSource({ name: "bad", ...change }));
      assert.equal(answer.status, status, `${JSON.stringify(change)}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.message ?? "", message, JSON.stringify(change));
    }
    const simple = await asAdmin("POST", "/admin/auths", {
      ...ldapSource({ type: "ldap_simple", name: "bad-simple" }),
      user_search_base: undefined,
    });
    assert.equal(simple.status, 422);
    assert.match(simple.body.message ?? "", /\[UserDn\]: Required/);

    const first = await asAdmin("POST", "/admin/auths", ldapSource({ name: "twice" }));
    assert.equal(first.status, 201);
    const again = await asAdmin("POST", "/admin/auths", ldapSource({ name: "twice" }));
    assert.equal(again.status, 422);
    assert.equal(again.body.message, "login source already exists [name: twice]");
    const retyped = await asAdmin("PATCH", `/admin/auths/${first.body.id}`, { type: "ldap_simple" });
    assert.equal(retyped.status, 422);
    assert.match(retyped.body.message ?? "", /Invalid authentication type/);
    assert.equal((await asAdmin("DELETE", `/admin/auths/${first.body.id}`)).status, 204);
    assert.equal((await asAdmin("GET", "/admin/auths/0")).status, 404);
    assert.equal((await asAdmin("GET", "/admin/auths/abc")).status, 422);
  });

  test("names fired together claim one source", async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => asAdmin("POST", "/admin/auths", ldapSource({ name: "race" }))),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 422, 422, 422, 422, 422]);
    const winner = answers.find((answer) => answer.status === 201);
    assert.equal((await asAdmin("DELETE", `/admin/auths/${winner?.body.id}`)).status, 204);
  });

  test("a source users still belong to is not deleted; users are made under it by its name too", async () => {
    const made = await asAdmin("POST", "/admin/auths", ldapSource({ name: "in-use" }));
    const user = await asAdmin<{ source_id: number }>("POST", "/admin/users", {
      username: "member",
      email: "member@example.com",
      source_name: "in-use",
      login_name: "alice",
    });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    assert.equal(user.body.source_id, made.body.id, "the source is named, not numbered");
    const unknown = await asAdmin("POST", "/admin/users", {
      username: "stranger",
      email: "stranger@example.com",
      source_name: "no-such-source",
      login_name: "stranger",
    });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.message, "login source does not exist [name: no-such-source]");
    const refused = await asAdmin("DELETE", `/admin/auths/${made.body.id}`);
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      `login source is still used by at least one user [id: ${made.body.id}]`,
    );
    assert.equal((await asAdmin("DELETE", "/admin/users/member")).status, 204);
    assert.equal((await asAdmin("DELETE", `/admin/auths/${made.body.id}`)).status, 204);
  });

  test("/test binds and searches once, and says what went wrong", async () => {
    const made = await asAdmin("POST", "/admin/auths", ldapSource({ name: "trial" }));
    const listed = await asAdmin<Trial>("POST", `/admin/auths/${made.body.id}/test`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.equal(listed.body.ok, true);
    assert.deepEqual(listed.body.users.map((user) => `${user.username} ${user.is_admin}`).sort(), [
      "alice true",
      "bob false",
    ]);

    const signedIn = await asAdmin<Trial>("POST", `/admin/auths/${made.body.id}/test`, {
      username: "alice",
      password: "alice-pw",
    });
    assert.equal(signedIn.body.ok, true);
    assert.equal(signedIn.body.users[0].full_name, "Alice Liddell");
    assert.equal(signedIn.body.users[0].is_admin, true);
    const wrong = await asAdmin<Trial>("POST", `/admin/auths/${made.body.id}/test`, {
      username: "alice",
      password: "x",
    });
    assert.equal(wrong.body.ok, false);
    assert.match(wrong.body.error ?? "", /refused/);

    await asAdmin("PATCH", `/admin/auths/${made.body.id}`, { bind_password: "not-the-password" });
    const badBind = await asAdmin<Trial>("POST", `/admin/auths/${made.body.id}/test`);
    assert.equal(badBind.body.ok, false);
    assert.match(badBind.body.error ?? "", /refused the bind DN/);

    await directory.stop();
    try {
      const down = await asAdmin<Trial>("POST", `/admin/auths/${made.body.id}/test`);
      assert.equal(down.body.ok, false);
      assert.match(down.body.error ?? "", /ECONNREFUSED/);
    } finally {
      await directory.start();
    }
    assert.equal((await asAdmin("DELETE", `/admin/auths/${made.body.id}`)).status, 204);
  });

  test("StartTLS and LDAPS reach the directory; an unknown CA fails unless verification is skipped", async () => {
    const trial = async (settings: Record<string, unknown>) => {
      const made = await asAdmin("POST", "/admin/auths", ldapSource(settings));
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const answer = await asAdmin<Trial>("POST", `/admin/auths/${made.body.id}/test`, {
        username: "bob",
        password: "bob-pw",
      });
      await asAdmin("DELETE", `/admin/auths/${made.body.id}`);
      return answer.body;
    };
    const verified = [
      await trial({ name: "starttls", security_protocol: "StartTLS" }),
      await trial({ name: "ldaps", security_protocol: "LDAPS", port: directory.tlsPort }),
    ];
    for (const answer of verified) {
      assert.equal(answer.ok, false);
      assert.match(answer.error ?? "", /certificate|self[- ]signed/i);
    }
    const skipped = [
      await trial({ name: "starttls-skip", security_protocol: "starttls", skip_tls_verify: true }),
      await trial({
        name: "ldaps-skip",
        security_protocol: "ldaps",
        port: directory.tlsPort,
        skip_tls_verify: true,
      }),
    ];
    for (const answer of skipped) {
      assert.equal(answer.ok, true, answer.error);
      assert.equal(answer.users[0].email, "bob@corp.test");
    }
  });

  test("the OpenAPI document describes /admin/auths", async () => {
    const document = (await (await fetch(`${forge.url}/swagger.v1.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses?: Record<string, unknown> }>>;
    };
    const paths = document.paths;
    for (const path of ["/api/v1/admin/auths", "/api/v1/admin/auths/{id}", "/api/v1/admin/auths/{id}/test"])
      assert.ok(paths[path], `${path} is not described`);
    assert.deepEqual(Object.keys(paths["/api/v1/admin/auths/{id}"]).sort(), ["delete", "get", "patch"]);
    assert.ok(paths["/api/v1/admin/auths"].post.requestBody);
    assert.ok(paths["/api/v1/admin/auths"].post.responses?.["201"]);
  });
});
