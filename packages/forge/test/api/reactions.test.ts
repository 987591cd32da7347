import assert from "node:assert/strict";
import { before, test } from "node:test";
import { bare, type Cast, forgeDb, makeCast, openIssue } from "../support/discussion.ts";
import { api, forEachForge } from "../support/forge.ts";

interface Reaction {
  user: { login: string };
  content: string;
  created_at: string;
}
interface ErrorBody {
  message: string;
}

forEachForge("forge reactions: Gitea's reactions on issues and comments", (forge) => {
  let cast: Cast;
  let pub = "";
  let priv = "";

  const db = () => forgeDb(forge.server);

  async function react(token: string | undefined, path: string, content?: string) {
    return api<Reaction & ErrorBody>(forge.url, "POST", path, {
      token,
      body: content === undefined ? {} : { content },
      shape: "Reaction",
    });
  }

  async function list(token: string | undefined, path: string) {
    const got = await api<Reaction[]>(forge.url, "GET", path, { token, shape: "Reaction[]" });
    assert.equal(got.status, 200);
    return got;
  }

  async function commentOn(path: string, number: number, token: string) {
    const made = await api<{ id: number }>(forge.url, "POST", `/repos/${path}/issues/${number}/comments`, {
      token,
      body: { body: "a comment" },
    });
    assert.equal(made.status, 201);
    return made.body.id;
  }

  before(async () => {
    cast = await makeCast(forge.url, forge.adminToken);
    pub = `${cast.olive.login}/pub`;
    priv = `${cast.olive.login}/priv`;
  });

  test("POST /issues/{index}/reactions: 201 when new, 200 with the same reaction when given again; GET lists them oldest first", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const path = `/repos/${pub}/issues/${opened.number}/reactions`;
    const first = await react(cast.rita.token, path, "heart");
    assert.equal(first.status, 201);
    assert.equal(first.body.content, "heart");
    assert.equal(first.body.user.login, cast.rita.login);
    const again = await react(cast.rita.token, path, "heart");
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal((await react(cast.ozzy.token, path, "+1")).status, 201);
    assert.equal((await react(cast.rita.token, path, "rocket")).status, 201);
    const all = await list(undefined, path);
    assert.deepEqual(
      all.body.map((r) => `${r.user.login}:${r.content}`),
      [`${cast.rita.login}:heart`, `${cast.ozzy.login}:+1`, `${cast.rita.login}:rocket`],
    );
    assert.equal(all.headers.get("x-total-count"), "3");
    const paged = await list(undefined, `${path}?limit=1&page=2`);
    assert.deepEqual(
      paged.body.map((r) => r.content),
      ["+1"],
    );
    const rows = await db().selectFrom("reaction").select("id").where("issue_id", "=", opened.id).execute();
    assert.equal(rows.length, 3, "the repeated reaction was not stored twice");
  });

  test("a reaction outside Gitea's default set is 403 \"'x' is not an allowed reaction\"", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const path = `/repos/${pub}/issues/${opened.number}/reactions`;
    for (const content of ["thumbsup", "HEART", ""]) {
      const refused = await react(cast.rita.token, path, content);
      assert.equal(refused.status, 403, content);
      assert.equal(refused.body.message, `'${content}' is not an allowed reaction`);
    }
    assert.equal((await react(cast.rita.token, path)).status, 403, "no content at all is the empty one");
    for (const content of ["+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"])
      assert.equal((await react(cast.rita.token, path, content)).status, 201, content);
    assert.equal((await list(cast.rita.token, path)).body.length, 8);
  });

  test("DELETE /issues/{index}/reactions removes only the caller's reaction, 200 with no body, also when there is none", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const path = `/repos/${pub}/issues/${opened.number}/reactions`;
    await react(cast.rita.token, path, "eyes");
    await react(cast.walt.token, path, "eyes");
    assert.deepEqual(
      await bare(forge.url, "DELETE", path, { token: cast.rita.token, body: { content: "eyes" } }),
      {
        status: 200,
        text: "",
      },
    );
    assert.deepEqual(
      await bare(forge.url, "DELETE", path, { token: cast.rita.token, body: { content: "eyes" } }),
      {
        status: 200,
        text: "",
      },
    );
    assert.deepEqual(
      (await list(cast.rita.token, path)).body.map((r) => r.user.login),
      [cast.walt.login],
    );
    assert.equal((await api(forge.url, "DELETE", path, { body: { content: "eyes" } })).status, 401);
    // Gitea binds the DELETE's body: without one the request is refused.
    assert.equal((await api(forge.url, "DELETE", path, { token: cast.walt.token })).status, 422);
    assert.equal((await list(cast.rita.token, path)).body.length, 1);
  });

  test("reactions on comments: GET · POST · DELETE /issues/comments/{id}/reactions, kept apart from the issue's", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const commentId = await commentOn(pub, opened.number, cast.walt.token);
    const path = `/repos/${pub}/issues/comments/${commentId}/reactions`;
    const made = await react(cast.rita.token, path, "laugh");
    assert.equal(made.status, 201);
    assert.equal((await react(cast.rita.token, path, "laugh")).status, 200);
    assert.equal((await react(cast.rita.token, path, "nope")).status, 403);
    assert.deepEqual(
      (await list(cast.ozzy.token, path)).body.map((r) => r.content),
      ["laugh"],
    );
    assert.deepEqual(
      (await list(cast.ozzy.token, `/repos/${pub}/issues/${opened.number}/reactions`)).body,
      [],
    );
    assert.equal(
      (await bare(forge.url, "DELETE", path, { token: cast.rita.token, body: { content: "laugh" } })).status,
      200,
    );
    assert.deepEqual((await list(cast.ozzy.token, path)).body, []);

    // A deleted comment takes its reactions with it.
    await react(cast.rita.token, path, "hooray");
    assert.equal(
      (
        await bare(forge.url, "DELETE", `/repos/${pub}/issues/comments/${commentId}`, {
          token: cast.walt.token,
        })
      ).status,
      204,
    );
    const left = await db().selectFrom("reaction").select("id").where("comment_id", "=", commentId).execute();
    assert.equal(left.length, 0);
    assert.equal((await react(cast.rita.token, path, "hooray")).status, 404);
  });

  test("unknown issues and comments are 404, a comment of another repository too; private repositories are 404 to outsiders", async () => {
    assert.equal((await api(forge.url, "GET", `/repos/${pub}/issues/999/reactions`)).status, 404);
    assert.equal((await react(cast.rita.token, `/repos/${pub}/issues/999/reactions`, "heart")).status, 404);
    assert.equal((await api(forge.url, "GET", `/repos/${pub}/issues/comments/999999/reactions`)).status, 404);
    const secret = await openIssue(forge.url, cast.olive.token, priv);
    const commentId = await commentOn(priv, secret.number, cast.olive.token);
    assert.equal(
      (
        await api(forge.url, "GET", `/repos/${pub}/issues/comments/${commentId}/reactions`, {
          token: cast.rita.token,
        })
      ).status,
      404,
    );
    assert.equal(
      (await react(cast.rita.token, `/repos/${pub}/issues/comments/${commentId}/reactions`, "heart")).status,
      404,
    );
    assert.equal(
      (
        await api(forge.url, "GET", `/repos/${priv}/issues/${secret.number}/reactions`, {
          token: cast.ozzy.token,
        })
      ).status,
      404,
    );
    assert.equal(
      (await react(cast.ozzy.token, `/repos/${priv}/issues/${secret.number}/reactions`, "heart")).status,
      404,
    );
    assert.equal(
      (await react(cast.ozzy.token, `/repos/${priv}/issues/comments/${commentId}/reactions`, "heart")).status,
      404,
    );
    assert.equal(
      (await react(cast.rita.token, `/repos/${priv}/issues/${secret.number}/reactions`, "heart")).status,
      201,
    );
  });

  test('on a locked issue only writers add or remove reactions: 403 "no permission to change reaction" for others', async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const commentId = await commentOn(pub, opened.number, cast.olive.token);
    const onIssue = `/repos/${pub}/issues/${opened.number}/reactions`;
    const onComment = `/repos/${pub}/issues/comments/${commentId}/reactions`;
    assert.equal((await react(cast.rita.token, onIssue, "heart")).status, 201);
    const locked = await api(forge.url, "PUT", `/repos/${pub}/issues/${opened.number}/lock`, {
      token: cast.olive.token,
      body: { lock_reason: "too heated" },
    });
    assert.equal(locked.status, 204);
    for (const path of [onIssue, onComment]) {
      const refused = await react(cast.rita.token, path, "+1");
      assert.equal(refused.status, 403);
      assert.equal(refused.body.message, "no permission to change reaction");
      const removal = await api<ErrorBody>(forge.url, "DELETE", path, {
        token: cast.rita.token,
        body: { content: "heart" },
      });
      assert.equal(removal.status, 403);
      assert.equal((await react(cast.walt.token, path, "+1")).status, 201);
      assert.equal((await list(cast.rita.token, path)).status, 200, "reading stays open");
    }
    assert.deepEqual(
      (await list(cast.rita.token, onIssue)).body.map((r) => `${r.user.login}:${r.content}`),
      [`${cast.rita.login}:heart`, `${cast.walt.login}:+1`],
    );
  });
});
