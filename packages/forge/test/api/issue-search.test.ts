// Issue search (`q`) answers from the issue_search text index: words of the title and the body,
// word prefixes, any case; within what the caller may see; and whatever a client sends as `q` is
// a search for words, answered 200, never a database error.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";

interface Issue {
  number: number;
  title: string;
  repository: { full_name: string };
}

const HOSTILE = [
  '"',
  "'",
  "*",
  "crash*",
  "-crash",
  "NEAR(crash editor)",
  "crash OR colour",
  "title:crash",
  "'crash':* | colour",
  "\\",
  "%",
  "_",
  "()",
  "^",
  "東京",
  "'; drop table issue; --",
  "x".repeat(10_000),
  "crash ".repeat(2000),
];

forEachForge("forge issue search", (forge) => {
  const cast = {} as Record<"olga" | "otto", Person>;

  const titles = (issues: Issue[]) =>
    issues.map((issue) => `${issue.repository.full_name}: ${issue.title}`).sort();
  const list = async (path: string, token?: string) => {
    const answer = await api<Issue[]>(forge.url, "GET", path, { token, shape: "Issue[]" });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return titles(answer.body);
  };
  const openIssue = async (repo: string, title: string, body: string) => {
    const made = await api<Issue>(forge.url, "POST", `/repos/olga/${repo}/issues`, {
      token: cast.olga.token,
      body: { title, body },
      shape: "Issue",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body;
  };

  before(async () => {
    for (const name of ["olga", "otto"] as const)
      cast[name] = await makePerson(forge.url, forge.adminToken, name);
    for (const [name, isPrivate] of [
      ["tracker", false],
      ["vault", true],
    ] as const) {
      const repo = await api(forge.url, "POST", "/user/repos", {
        token: cast.olga.token,
        body: { name, private: isPrivate },
      });
      assert.equal(repo.status, 201);
    }
    await openIssue("tracker", "Crash when saving", "The editor stops responding after a save.");
    await openIssue("tracker", "Colour of the buttons", "Buttons look pale on dark themes.");
    await openIssue("vault", "Crash in the vault", "Only olga may read this.");
  });

  test("?q= in a repository finds a word of the title or the body, and word prefixes, any case", async () => {
    const crash = ["olga/tracker: Crash when saving"];
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=crash"), crash);
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=RESPONDING"), crash);
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=editor%20save"), crash);
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=butt"), [
      "olga/tracker: Colour of the buttons",
    ]);
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=editor%20buttons"), []);
  });

  test("/repos/issues/search?q= finds issues only where the caller may see them", async () => {
    assert.deepEqual(await list("/repos/issues/search?q=crash"), ["olga/tracker: Crash when saving"]);
    assert.deepEqual(await list("/repos/issues/search?q=crash", cast.otto.token), [
      "olga/tracker: Crash when saving",
    ]);
    assert.deepEqual(await list("/repos/issues/search?q=crash", cast.olga.token), [
      "olga/tracker: Crash when saving",
      "olga/vault: Crash in the vault",
    ]);
    const hidden = await api(forge.url, "GET", "/repos/olga/vault/issues?q=crash", {
      token: cast.otto.token,
    });
    assert.equal(hidden.status, 404);
  });

  test("whatever q holds is answered 200, on both lists", async () => {
    for (const q of HOSTILE) {
      for (const path of ["/repos/olga/tracker/issues", "/repos/issues/search"]) {
        const answer = await api<Issue[]>(forge.url, "GET", `${path}?q=${encodeURIComponent(q)}`, {
          token: cast.olga.token,
          shape: "Issue[]",
        });
        assert.equal(answer.status, 200, `${path} q=${q.slice(0, 40)}: ${JSON.stringify(answer.body)}`);
      }
    }
    // Punctuation is not a word: only the words around it are looked for.
    assert.deepEqual(await list(`/repos/olga/tracker/issues?q=${encodeURIComponent('"crash" -')}`), [
      "olga/tracker: Crash when saving",
    ]);
  });

  test("an edited title or body is found by its new words, no longer by its old ones", async () => {
    const made = await openIssue("tracker", "Slow start", "Takes a minute.");
    const edited = await api<Issue>(forge.url, "PATCH", `/repos/olga/tracker/issues/${made.number}`, {
      token: cast.olga.token,
      body: { title: "Sluggish start", body: "Takes forever." },
      shape: "Issue",
    });
    assert.equal(edited.status, 201, JSON.stringify(edited.body));
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=sluggish%20forever"), [
      "olga/tracker: Sluggish start",
    ]);
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=slow"), []);
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=minute"), []);
  });

  test("a deleted issue is no longer found", async () => {
    const made = await openIssue("tracker", "Ephemeral glitch", "Gone soon.");
    const deleted = await api(forge.url, "DELETE", `/repos/olga/tracker/issues/${made.number}`, {
      token: cast.olga.token,
    });
    assert.equal(deleted.status, 204);
    assert.deepEqual(await list("/repos/olga/tracker/issues?q=ephemeral"), []);
    assert.deepEqual(await list("/repos/issues/search?q=ephemeral", cast.olga.token), []);
  });
});
