import assert from "node:assert/strict";
import { before, test } from "node:test";
import {
  bare,
  type Cast,
  forgeDb,
  type IssueAnswer,
  insertEvent,
  makeCast,
  openIssue,
} from "../support/discussion.ts";
import { api, basic, forEachForge } from "../support/forge.ts";

interface Comment {
  id: number;
  html_url: string;
  issue_url: string;
  pull_request_url: string;
  user: { login: string; email: string };
  original_author: string;
  original_author_id: number;
  body: string;
  assets: unknown[];
  created_at: string;
  updated_at: string;
}
interface ErrorBody {
  message: string;
}

forEachForge("forge issue comments: Gitea's comment API", (forge) => {
  let cast: Cast;
  let pub = "";
  let priv = "";

  const db = () => forgeDb(forge.server);

  async function comment(token: string, path: string, number: number, body: unknown) {
    return api<Comment & ErrorBody>(forge.url, "POST", `/repos/${path}/issues/${number}/comments`, {
      token,
      body,
      shape: "Comment",
    });
  }

  async function issue(path: string, number: number, token = cast.olive.token) {
    const got = await api<IssueAnswer>(forge.url, "GET", `/repos/${path}/issues/${number}`, {
      token,
      shape: "Issue",
    });
    assert.equal(got.status, 200);
    return got.body;
  }

  before(async () => {
    cast = await makeCast(forge.url, forge.adminToken);
    pub = `${cast.olive.login}/pub`;
    priv = `${cast.olive.login}/priv`;
  });

  test("POST /issues/{index}/comments: 201 with Gitea's Comment; the issue counts it at once", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    assert.equal(opened.comments, 0);
    const body = "**bold** <script>x</script>\n\n- [ ] task";
    const made = await comment(cast.rita.token, pub, opened.number, { body, unknown: "ignored" });
    assert.equal(made.status, 201);
    const page = `http://forge.test/${pub}/issues/${opened.number}`;
    assert.equal(made.body.body, body, "the Markdown is stored and returned as written");
    assert.equal(made.body.html_url, `${page}#issuecomment-${made.body.id}`);
    assert.equal(made.body.issue_url, page);
    assert.equal(made.body.pull_request_url, "");
    assert.equal(made.body.user.login, cast.rita.login);
    assert.deepEqual(made.body.assets, []);
    assert.equal(made.body.original_author, "");
    assert.equal(made.body.original_author_id, 0);
    assert.equal(made.body.created_at, made.body.updated_at);
    assert.equal((await issue(pub, opened.number)).comments, 1);

    // An outsider reads a public repository, so may comment on it, as on Gitea.
    assert.equal((await comment(cast.ozzy.token, pub, opened.number, { body: "me too" })).status, 201);
    assert.equal((await issue(pub, opened.number)).comments, 2);
    const stored = await db()
      .selectFrom("issue")
      .select("num_comments")
      .where("id", "=", opened.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.num_comments, 2);
  });

  test("POST comments: 422 for an empty or missing body, 404 for an unknown issue or a hidden repository, 401 anonymous", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    for (const body of [{ body: "" }, { body: "  \n" }, {}, { body: null }]) {
      const refused = await comment(cast.olive.token, pub, opened.number, body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.equal(refused.body.message, "[Body]: Required");
    }
    assert.equal((await comment(cast.olive.token, pub, opened.number, { body: 7 })).status, 422);
    // Bounded as issue bodies are (Gitea has no bound of its own).
    const long = await comment(cast.olive.token, pub, opened.number, { body: "x".repeat(65_537) });
    assert.equal(long.status, 422);
    assert.equal(long.body.message, "[Body]: MaxSize");
    assert.equal(
      (await comment(cast.olive.token, pub, opened.number, { body: "y".repeat(1_000_000) })).status,
      422,
    );
    assert.equal((await comment(cast.olive.token, pub, 999, { body: "x" })).status, 404);
    const secret = await openIssue(forge.url, cast.olive.token, priv);
    assert.equal((await comment(cast.ozzy.token, priv, secret.number, { body: "x" })).status, 404);
    const anonymous = await api(forge.url, "POST", `/repos/${pub}/issues/${opened.number}/comments`, {
      body: { body: "x" },
    });
    assert.equal(anonymous.status, 401);
    assert.equal((await issue(pub, opened.number)).comments, 0, "nothing was stored");
  });

  test("GET /issues/{index}/comments: oldest first, only comments, since and before, 404 to outsiders of a private repository", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, priv);
    const ids: number[] = [];
    for (const text of ["one", "two", "three"])
      ids.push((await comment(cast.walt.token, priv, opened.number, { body: text })).body.id);
    // An event row of the timeline is not a comment.
    await insertEvent(db(), opened.id, cast.olive.id, 2);
    const path = `/repos/${priv}/issues/${opened.number}/comments`;
    const all = await api<Comment[]>(forge.url, "GET", path, { token: cast.rita.token, shape: "Comment[]" });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.map((c) => c.body),
      ["one", "two", "three"],
    );
    assert.equal(all.headers.get("x-total-count"), "3");

    // Backdate the first comment to tell since and before apart.
    await db()
      .updateTable("comment")
      .set({
        updated_at: new Date("2020-01-01T00:00:00Z").toISOString(),
        created_at: new Date("2020-01-01T00:00:00Z").toISOString(),
      })
      .where("id", "=", ids[0])
      .execute();
    const since = await api<Comment[]>(forge.url, "GET", `${path}?since=2021-01-01T00:00:00Z`, {
      token: cast.rita.token,
      shape: "Comment[]",
    });
    assert.deepEqual(
      since.body.map((c) => c.body),
      ["two", "three"],
    );
    const beforeAnswer = await api<Comment[]>(
      forge.url,
      "GET",
      `${path}?before=2021-01-01T00:00:00%2B01:00`,
      {
        token: cast.rita.token,
        shape: "Comment[]",
      },
    );
    assert.deepEqual(
      beforeAnswer.body.map((c) => c.body),
      ["one"],
    );
    const bad = await api<ErrorBody>(forge.url, "GET", `${path}?since=yesterday`, { token: cast.rita.token });
    assert.equal(bad.status, 422);
    assert.equal((await api(forge.url, "GET", path, { token: cast.ozzy.token })).status, 404);
    assert.equal(
      (await api(forge.url, "GET", path)).status,
      404,
      "anonymous callers do not see a private repository",
    );
  });

  // One issue's comments are kept, rendered, while the rows they come from are unchanged: each
  // change must show on the next read.
  test("GET /issues/{index}/comments read again after a comment is added, edited or deleted, or its poster edited, shows it", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, priv);
    const path = `/repos/${priv}/issues/${opened.number}/comments`;
    const bodies = async () => {
      const answer = await api<Comment[]>(forge.url, "GET", path, {
        token: cast.rita.token,
        shape: "Comment[]",
      });
      assert.equal(answer.status, 200);
      return answer.body.map((c) => c.body);
    };
    assert.deepEqual(await bodies(), []);
    const first = (await comment(cast.walt.token, priv, opened.number, { body: "first" })).body.id;
    assert.deepEqual(await bodies(), ["first"]);
    assert.deepEqual(await bodies(), ["first"]);
    await comment(cast.walt.token, priv, opened.number, { body: "second" });
    assert.deepEqual(await bodies(), ["first", "second"]);
    const edited = await api(forge.url, "PATCH", `/repos/${priv}/issues/comments/${first}`, {
      token: cast.walt.token,
      body: { body: "first, edited" },
    });
    assert.equal(edited.status, 200);
    assert.deepEqual(await bodies(), ["first, edited", "second"]);
    const removed = await api(forge.url, "DELETE", `/repos/${priv}/issues/comments/${first}`, {
      token: cast.walt.token,
    });
    assert.equal(removed.status, 204);
    assert.deepEqual(await bodies(), ["second"]);
    const renamed = await api(forge.url, "PATCH", "/admin/users/walt", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "walt", full_name: "Walt Kept" },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const answer = await api<(Comment & { user: { full_name: string } })[]>(forge.url, "GET", path, {
      token: cast.rita.token,
    });
    assert.equal(answer.body[0].user.full_name, "Walt Kept");
    assert.equal(
      (await api(forge.url, "GET", path, { token: cast.ozzy.token })).status,
      404,
      "an outsider, after",
    );
    assert.equal((await api(forge.url, "GET", path)).status, 404, "anonymous, after");
  });

  test("GET /repos/{o}/{r}/issues/comments: the repository's comments, paged with X-Total-Count and Link", async () => {
    // A repository of its own, so that earlier tests do not count.
    const made = await api(forge.url, "POST", "/user/repos", {
      token: cast.walt.token,
      body: { name: "paged" },
    });
    assert.equal(made.status, 201);
    const path = `${cast.walt.login}/paged`;
    const first = await openIssue(forge.url, cast.walt.token, path);
    const second = await openIssue(forge.url, cast.walt.token, path);
    for (const [number, text] of [
      [first.number, "a"],
      [second.number, "b"],
      [first.number, "c"],
    ] as const)
      assert.equal((await comment(cast.rita.token, path, number, { body: text })).status, 201);
    const page = await api<Comment[]>(forge.url, "GET", `/repos/${path}/issues/comments?limit=2&page=2`, {
      token: cast.ozzy.token,
      shape: "Comment[]",
    });
    assert.equal(page.status, 200);
    assert.deepEqual(
      page.body.map((c) => c.body),
      ["c"],
    );
    assert.equal(page.body[0].issue_url, `http://forge.test/${path}/issues/${first.number}`);
    assert.equal(page.headers.get("x-total-count"), "3");
    const links = page.headers.get("link") ?? "";
    assert.match(links, /page=1[^>]*>; rel="first"/);
    assert.match(links, /page=1[^>]*>; rel="prev"/);
    const all = await api<Comment[]>(
      forge.url,
      "GET",
      `/repos/${path}/issues/comments?since=2000-01-01T00:00:00Z`,
      {
        token: cast.ozzy.token,
        shape: "Comment[]",
      },
    );
    assert.deepEqual(
      all.body.map((c) => c.body),
      ["a", "b", "c"],
    );
    assert.equal((await api(forge.url, "GET", `/repos/${path}/issues/comments?before=nope`)).status, 422);
    assert.equal(
      (await api(forge.url, "GET", `/repos/${priv}/issues/comments`, { token: cast.ozzy.token })).status,
      404,
    );
  });

  test("GET /repos/{o}/{r}/issues/{index}/comments: every comment without page or limit, as Gitea's clients expect", async () => {
    const made = await api(forge.url, "POST", "/user/repos", {
      token: cast.walt.token,
      body: { name: "long-talk" },
    });
    assert.equal(made.status, 201);
    const path = `${cast.walt.login}/long-talk`;
    const opened = await openIssue(forge.url, cast.walt.token, path);
    // More than a default page (30) and than the largest page a client may ask for (50).
    await Promise.all(
      Array.from({ length: 60 }, (_, n) => comment(cast.walt.token, path, opened.number, { body: `c${n}` })),
    );
    const all = await api<Comment[]>(forge.url, "GET", `/repos/${path}/issues/${opened.number}/comments`, {
      token: cast.walt.token,
      shape: "Comment[]",
    });
    assert.equal(all.status, 200);
    assert.equal(all.body.length, 60);
    assert.equal(all.headers.get("x-total-count"), "60");
    assert.equal(all.headers.get("link"), null);
  });

  test("GET /issues/comments/{id}: 200, 404 for an unknown id, a bare 404 for a comment of another repository, 204 for an event", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, priv);
    const made = await comment(cast.olive.token, priv, opened.number, { body: "hello" });
    const got = await api<Comment>(forge.url, "GET", `/repos/${priv}/issues/comments/${made.body.id}`, {
      token: cast.rita.token,
      shape: "Comment",
    });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, made.body);
    assert.equal(
      (await api(forge.url, "GET", `/repos/${priv}/issues/comments/999999`, { token: cast.rita.token }))
        .status,
      404,
    );
    assert.equal(
      (await api(forge.url, "GET", `/repos/${priv}/issues/comments/abc`, { token: cast.rita.token })).status,
      404,
    );
    const elsewhere = await bare(forge.url, "GET", `/repos/${pub}/issues/comments/${made.body.id}`, {
      token: cast.rita.token,
    });
    assert.deepEqual(elsewhere, { status: 404, text: "" });
    assert.equal(
      (
        await api(forge.url, "GET", `/repos/${priv}/issues/comments/${made.body.id}`, {
          token: cast.ozzy.token,
        })
      ).status,
      404,
    );
    const eventId = await insertEvent(db(), opened.id, cast.olive.id, 2);
    assert.deepEqual(
      await bare(forge.url, "GET", `/repos/${priv}/issues/comments/${eventId}`, { token: cast.rita.token }),
      {
        status: 204,
        text: "",
      },
    );
  });

  test("PATCH /issues/comments/{id}: the poster or a writer edits; others get a bare 403", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const made = await comment(cast.rita.token, pub, opened.number, { body: "first draft" });
    const path = `/repos/${pub}/issues/comments/${made.body.id}`;
    const edited = await api<Comment>(forge.url, "PATCH", path, {
      token: cast.rita.token,
      body: { body: "second draft" },
      shape: "Comment",
    });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.body, "second draft");
    assert.equal(edited.body.id, made.body.id);
    const byWriter = await api<Comment>(forge.url, "PATCH", path, {
      token: cast.walt.token,
      body: { body: "fixed by walt" },
      shape: "Comment",
    });
    assert.equal(byWriter.status, 200);
    assert.equal(byWriter.body.user.login, cast.rita.login, "the poster stays the poster");

    const mine = await comment(cast.walt.token, pub, opened.number, { body: "walt's" });
    const refused = await bare(forge.url, "PATCH", `/repos/${pub}/issues/comments/${mine.body.id}`, {
      token: cast.rita.token,
      body: { body: "rita was here" },
    });
    assert.deepEqual(refused, { status: 403, text: "" });
    assert.deepEqual(
      await bare(forge.url, "PATCH", `/repos/${pub}/issues/comments/${mine.body.id}`, {
        token: cast.ozzy.token,
        body: { body: "ozzy was here" },
      }),
      { status: 403, text: "" },
    );
    const empty = await api<ErrorBody>(forge.url, "PATCH", path, {
      token: cast.rita.token,
      body: { body: "" },
    });
    assert.equal(empty.status, 422);
    assert.equal(empty.body.message, "[Body]: Required");
    assert.equal(
      (
        await api(forge.url, "PATCH", `/repos/${pub}/issues/comments/999999`, {
          token: cast.rita.token,
          body: { body: "x" },
        })
      ).status,
      404,
    );
    assert.deepEqual(
      await bare(forge.url, "PATCH", `/repos/${priv}/issues/comments/${mine.body.id}`, {
        token: cast.walt.token,
        body: { body: "x" },
      }),
      { status: 404, text: "" },
    );
    const unchanged = await api<Comment>(forge.url, "GET", `/repos/${pub}/issues/comments/${mine.body.id}`, {
      token: cast.rita.token,
    });
    assert.equal(unchanged.body.body, "walt's");
    assert.equal((await api(forge.url, "PATCH", path, { body: { body: "anonymous" } })).status, 401);
  });

  test("DELETE /issues/comments/{id}: 204 for the poster or a writer, bare 403 for others; the issue counts it at once", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const ritas = await comment(cast.rita.token, pub, opened.number, { body: "rita's" });
    const walts = await comment(cast.walt.token, pub, opened.number, { body: "walt's" });
    const olives = await comment(cast.olive.token, pub, opened.number, { body: "olive's" });
    assert.equal((await issue(pub, opened.number)).comments, 3);
    assert.deepEqual(
      await bare(forge.url, "DELETE", `/repos/${pub}/issues/comments/${walts.body.id}`, {
        token: cast.rita.token,
      }),
      {
        status: 403,
        text: "",
      },
    );
    assert.equal((await issue(pub, opened.number)).comments, 3);
    assert.deepEqual(
      await bare(forge.url, "DELETE", `/repos/${pub}/issues/comments/${ritas.body.id}`, {
        token: cast.rita.token,
      }),
      {
        status: 204,
        text: "",
      },
    );
    assert.equal((await issue(pub, opened.number)).comments, 2);
    assert.equal(
      (
        await bare(forge.url, "DELETE", `/repos/${pub}/issues/comments/${olives.body.id}`, {
          token: cast.walt.token,
        })
      ).status,
      204,
    );
    assert.equal((await issue(pub, opened.number)).comments, 1);
    assert.equal(
      (
        await api(forge.url, "GET", `/repos/${pub}/issues/comments/${ritas.body.id}`, {
          token: cast.rita.token,
        })
      ).status,
      404,
    );
    assert.equal(
      (
        await api(forge.url, "DELETE", `/repos/${pub}/issues/comments/${ritas.body.id}`, {
          token: cast.rita.token,
        })
      ).status,
      404,
    );
    const left = await api<Comment[]>(forge.url, "GET", `/repos/${pub}/issues/${opened.number}/comments`, {
      token: cast.rita.token,
    });
    assert.deepEqual(
      left.body.map((c) => c.body),
      ["walt's"],
    );
  });

  test("token scopes: reading comments needs read:issue, writing them write:issue; public-only tokens see no private repository", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, priv);
    const scoped = async (name: string, scopes: string[]) => {
      const made = await api<{ sha1: string }>(forge.url, "POST", `/users/${cast.rita.login}/tokens`, {
        auth: basic(cast.rita.login, "password123"),
        body: { name, scopes },
      });
      assert.equal(made.status, 201);
      return made.body.sha1;
    };
    const path = `/repos/${priv}/issues/${opened.number}/comments`;
    const reader = await scoped("issue-reader", ["read:issue"]);
    const other = await scoped("repo-only", ["write:repository"]);
    const publicOnly = await scoped("public-issues", ["public-only", "write:issue"]);
    assert.equal((await api(forge.url, "GET", path, { token: reader })).status, 200);
    assert.equal((await comment(reader, priv, opened.number, { body: "read-only token" })).status, 403);
    assert.equal((await api(forge.url, "GET", path, { token: other })).status, 403);
    assert.equal((await comment(other, priv, opened.number, { body: "wrong scope" })).status, 403);
    assert.equal((await comment(publicOnly, priv, opened.number, { body: "public only" })).status, 403);
    const commented = await comment(
      publicOnly,
      pub,
      (await openIssue(forge.url, cast.olive.token, pub)).number,
      {
        body: "public is fine",
      },
    );
    assert.equal(commented.status, 201);
    assert.equal(
      commented.body.user.email,
      `${cast.rita.login}@noreply.forge.test`,
      "a poster's address stays hidden",
    );
    assert.equal((await issue(priv, opened.number)).comments, 0);
  });

  test("DELETE the same comment many times at once: one deletion, counted once", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const kept = await comment(cast.rita.token, pub, opened.number, { body: "kept" });
    const doomed = await comment(cast.rita.token, pub, opened.number, { body: "doomed" });
    assert.equal(kept.status, 201);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        bare(forge.url, "DELETE", `/repos/${pub}/issues/comments/${doomed.body.id}`, {
          token: cast.rita.token,
        }),
      ),
    );
    assert.ok(answers.some((answer) => answer.status === 204));
    assert.ok(answers.every((answer) => answer.status === 204 || answer.status === 404));
    assert.equal((await issue(pub, opened.number)).comments, 1);
  });

  test("the deprecated Gogs paths PATCH · DELETE /issues/{index}/comments/{id} act on the comment by its id", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const made = await comment(cast.rita.token, pub, opened.number, { body: "old" });
    // The index is ignored, as Gitea documents.
    const edited = await api<Comment>(
      forge.url,
      "PATCH",
      `/repos/${pub}/issues/12345/comments/${made.body.id}`,
      {
        token: cast.rita.token,
        body: { body: "new" },
        shape: "Comment",
      },
    );
    assert.equal(edited.status, 200);
    assert.equal(edited.body.body, "new");
    assert.deepEqual(
      await bare(forge.url, "DELETE", `/repos/${pub}/issues/${opened.number}/comments/${made.body.id}`, {
        token: cast.ozzy.token,
      }),
      { status: 403, text: "" },
    );
    assert.equal(
      (
        await bare(forge.url, "DELETE", `/repos/${pub}/issues/${opened.number}/comments/${made.body.id}`, {
          token: cast.rita.token,
        })
      ).status,
      204,
    );
    assert.equal((await issue(pub, opened.number)).comments, 0);
  });

  test("a locked issue refuses comments from non-writers with 403; writers and site admins still comment", async () => {
    const opened = await openIssue(forge.url, cast.olive.token, pub);
    const earlier = await comment(cast.rita.token, pub, opened.number, { body: "before the lock" });
    const locked = await api(forge.url, "PUT", `/repos/${pub}/issues/${opened.number}/lock`, {
      token: cast.olive.token,
      body: { lock_reason: "too heated" },
    });
    assert.equal(locked.status, 204);
    for (const who of [cast.rita, cast.ozzy]) {
      const refused = await comment(who.token, pub, opened.number, { body: "let me in" });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.message, "You cannot comment on a locked issue.");
    }
    assert.equal((await comment(cast.walt.token, pub, opened.number, { body: "writer" })).status, 201);
    assert.equal((await comment(forge.adminToken, pub, opened.number, { body: "admin" })).status, 201);
    // Gitea lets a poster edit their own comment on a locked issue.
    const edited = await api(forge.url, "PATCH", `/repos/${pub}/issues/comments/${earlier.body.id}`, {
      token: cast.rita.token,
      body: { body: "edited after the lock" },
    });
    assert.equal(edited.status, 200);
    assert.equal((await issue(pub, opened.number)).comments, 3);
  });
});
