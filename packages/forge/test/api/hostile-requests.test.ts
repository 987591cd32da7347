import assert from "node:assert/strict";
import { test } from "node:test";
import { rawBody, rawExchange } from "@anvil/core/testing";
import { createUser, getUser } from "../../src/services/accounts.ts";
import { createToken } from "../../src/services/tokens.ts";
import { api, forEachForge } from "../support/forge.ts";

// Requests no well-behaved client sends, and the wire rules of Gitea's JSON binding (spec "Wire
// semantics"): each answered as Gitea would, in its {message, url} shape, never a 500.

interface GiteaError {
  message: string;
  url: string;
}

forEachForge("forge API: hostile requests and wire semantics", (forge) => {
  test("null for an optional field is not given; unknown fields are ignored", async () => {
    const created = await api<{ name: string; description: string }>(forge.url, "POST", "/user/repos", {
      token: forge.adminToken,
      body: {
        name: "wire-nulls",
        description: null,
        gitignores: null,
        license: null,
        readme: null,
        auto_init: null,
        private: null,
        not_a_gitea_field: { nested: true },
      },
      shape: "Repository",
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, "wire-nulls");
    assert.equal(created.body.description, "");

    const edited = await api<{ description: string }>(forge.url, "PATCH", "/repos/root/wire-nulls", {
      token: forge.adminToken,
      body: { description: "kept", website: null, private: null },
    });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.description, "kept");
  });

  test("a body on GET or DELETE is ignored", async () => {
    await api(forge.url, "POST", "/user/repos", { token: forge.adminToken, body: { name: "wire-delete" } });
    const read = await api(forge.url, "GET", "/repos/root/wire-delete", {
      token: forge.adminToken,
      headers: { "content-type": "application/json" },
    });
    assert.equal(read.status, 200);
    for (const body of ["null", "{}", "{not json"]) {
      const res = await fetch(`${forge.url}/api/v1/repos/root/wire-delete/topics/none`, {
        method: "DELETE",
        headers: { authorization: `token ${forge.adminToken}`, "content-type": "application/json" },
        body,
      });
      assert.notEqual(res.status, 422, body);
      assert.notEqual(res.status, 500, body);
    }
    const deleted = await fetch(`${forge.url}/api/v1/repos/root/wire-delete`, {
      method: "DELETE",
      headers: { authorization: `token ${forge.adminToken}`, "content-type": "application/json" },
      body: "null",
    });
    assert.equal(deleted.status, 204);
  });

  test("a NUL character in a path, a query or a body is a 404 or 422, never a database error", async () => {
    const user = await api<GiteaError>(forge.url, "GET", "/users/root%00");
    assert.equal(user.status, 404);
    const search = await api<GiteaError>(forge.url, "GET", "/repos/search?q=%00");
    assert.equal(search.status, 422);
    const sudo = await api<GiteaError>(forge.url, "GET", "/user?sudo=root%00", { token: forge.adminToken });
    assert.equal(sudo.status, 422);
    const body = await api<GiteaError>(forge.url, "POST", "/user/repos", {
      token: forge.adminToken,
      body: { name: "wire-nul", description: "a\u0000b" },
    });
    assert.equal(body.status, 422);
    assert.equal(body.body.message, "[Description]: Pattern");
    const key = await api<GiteaError>(forge.url, "POST", "/user/repos", {
      token: forge.adminToken,
      body: { name: "wire-nul", "x\u0000": 1 },
    });
    assert.equal(key.status, 422);
  });

  test("a path with an invalid percent-escape is a 400 in Gitea's shape", async () => {
    for (const segment of ["%zz", "%", "%E0%A4%A", "%ff"]) {
      const path = `/repos/root/anything/issues/${segment}`;
      const answer = await api<GiteaError>(forge.url, "GET", path, { token: forge.adminToken });
      assert.equal(answer.status, 400, segment);
      assert.deepEqual(answer.body, {
        message: `'/api/v1${path}' is not a valid url component`,
        url: "http://forge.test/api/swagger",
      });
    }
  });

  test("an integer beyond what a column holds, in a path, a query or a body, is a 422, never a database error", async () => {
    const token = forge.adminToken;
    for (const [method, path] of [
      ["GET", "/users/search?uid=99999999999999999999"],
      ["GET", "/users/search?uid=1e400"],
      ["GET", "/repos/search?uid=-99999999999999999999"],
      ["GET", "/user/keys/99999999999999999999"],
      ["DELETE", "/user/keys/99999999999999999999"],
    ]) {
      const answer = await api<GiteaError>(forge.url, method, path, { token });
      assert.equal(answer.status, 422, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.message, /^\[(Uid|Id)\]: (Maximum|Minimum)$/);
    }
    const edited = await api<GiteaError>(forge.url, "PATCH", "/admin/users/root", {
      token,
      body: { source_id: 0, login_name: "root", max_repo_creation: 3_000_000_000 },
    });
    assert.equal(edited.status, 422);
    assert.equal(edited.body.message, "[MaxRepoCreation]: Maximum");
    const largest = await api<GiteaError>(forge.url, "GET", `/user/keys/${Number.MAX_SAFE_INTEGER}`, {
      token,
    });
    assert.equal(largest.status, 404, "the largest exact id is looked up, and found nowhere");
  });

  test("a JSON value nested 10,000 deep is a 422 naming the nesting, even in a field Gitea ignores", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    for (const text of [`{"name":"deep","description":${deep}}`, `{"name":"deep","extra":${deep}}`]) {
      const res = await fetch(`${forge.url}/api/v1/user/repos`, {
        method: "POST",
        headers: { authorization: `token ${forge.adminToken}`, "content-type": "application/json" },
        body: text,
      });
      assert.equal(res.status, 422);
      const body = (await res.json()) as GiteaError;
      assert.match(body.message, /nested deeper than \d+ levels/);
      assert.equal(typeof body.url, "string");
    }
    const missing = await api(forge.url, "GET", "/repos/root/deep", { token: forge.adminToken });
    assert.equal(missing.status, 404, "nothing was created");
  });

  test("an anonymous write, or a token asking for a token, is refused before its body is read", async () => {
    // 5 MB announced (within the body limit), a few bytes sent: were the body read first, no
    // answer would come until all of it had arrived.
    const answer = await rawExchange(
      forge.url,
      [
        "POST /api/v1/user/repos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n",
        '{"name":"',
      ],
      2_000,
    );
    assert.match(answer.text, /^HTTP\/1\.1 401 /);
    assert.equal(rawBody<GiteaError>(answer).message, "token is required");

    const tokenRequest = await rawExchange(
      forge.url,
      [
        `POST /api/v1/users/root/tokens HTTP/1.1\r\nHost: x\r\nAuthorization: token ${forge.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n`,
        '{"name":"',
      ],
      2_000,
    );
    assert.match(tokenRequest.text, /^HTTP\/1\.1 401 /);
    assert.equal(rawBody<GiteaError>(tokenRequest).message, "auth required");
  });

  test("a write the caller may not make, by their account or their token's scopes, is refused before its body", async () => {
    const db = forge.server.app.database;
    if (!db) throw new Error("the forge has no database");
    const bob = await createUser(db, {
      username: "wire-bob",
      email: "wire-bob@example.com",
      password: "password123",
      must_change_password: false,
    });
    const root = await getUser(db, "root");
    const token = async (account: typeof bob, scopes: string[]) =>
      (await createToken(db, account, { name: `wire-${scopes.join("-")}`, scopes })).secret;
    const [bobAll, bobReader, rootRepos] = await Promise.all([
      token(bob, ["all"]),
      token(bob, ["read:repository"]),
      token(root, ["write:repository"]),
    ]);
    const siteAdminOnly = [
      "POST /admin/users",
      "PATCH /admin/users/wire-bob",
      "POST /admin/users/wire-bob/orgs",
      "POST /admin/users/wire-bob/keys",
      "POST /admin/users/wire-bob/repos",
      "POST /admin/orgs/wire-org/teams",
      "PUT /admin/teams/1/members/wire-bob",
      "PUT /admin/teams/1/repos/wire-repo",
    ];
    const writes = [
      ...siteAdminOnly.map((write) => ({ write, token: bobAll, message: /^user should be the site admin$/ })),
      // Gitea checks the token's scopes first: a site admin's token without the admin scope.
      { write: "POST /admin/users", token: rootRepos, message: /^token does not have .*write:admin/ },
      { write: "POST /user/repos", token: bobReader, message: /^token does not have .*write:repository/ },
      { write: "POST /user/keys", token: bobReader, message: /^token does not have .*write:user/ },
    ];
    // All at once: each must be answered within the wait, though its 5 MB never come.
    const refusals = await Promise.all(
      writes.map(({ write, token }) =>
        rawExchange(
          forge.url,
          [
            `${write.replace(" ", " /api/v1")} HTTP/1.1\r\nHost: x\r\nAuthorization: token ${token}\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n`,
            '{"name":"',
          ],
          2_000,
        ),
      ),
    );
    for (const [index, { write, token, message }] of writes.entries()) {
      const [method, path] = write.split(" ");
      // The same answer as with the whole (empty) body.
      const whole = await api<GiteaError>(forge.url, method, path, { token, body: {} });
      assert.match(refusals[index].text, /^HTTP\/1\.1 403 /, write);
      // Refused as in Gitea, whose permission checks run before the body is bound (not a 422).
      assert.equal(whole.status, 403, write);
      assert.match(whole.body.message, message, write);
      assert.deepEqual(rawBody(refusals[index]), whole.body, write);
    }
  });

  test("CONNECT and unknown methods get an answer in Gitea's shape; the connection closes after it", async () => {
    const connectAnswer = await rawExchange(forge.url, [
      "CONNECT /api/v1/version HTTP/1.1\r\nHost: x\r\n\r\n",
    ]);
    assert.match(connectAnswer.text, /^HTTP\/1\.1 405 /);
    assert.match(connectAnswer.text, /\r\nallow: GET/i);
    assert.equal(rawBody<GiteaError>(connectAnswer).message, "Method Not Allowed");
    assert.equal(connectAnswer.ending, "closed");

    const unknown = await rawExchange(forge.url, ["BREW /api/v1/version HTTP/1.1\r\nHost: x\r\n\r\n"]);
    assert.match(unknown.text, /^HTTP\/1\.1 400 /);
    assert.equal(typeof rawBody<GiteaError>(unknown).url, "string");
    assert.equal(unknown.ending, "closed");

    const longUrl = await rawExchange(forge.url, [
      `POST /api/v1/user/repos?x=${"a".repeat(1024 * 1024)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    ]);
    assert.match(longUrl.text, /^HTTP\/1\.1 431 /);
    assert.equal(typeof rawBody<GiteaError>(longUrl).message, "string");
    assert.equal(longUrl.ending, "closed");
  });
});
