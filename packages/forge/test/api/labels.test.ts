import assert from "node:assert/strict";
import { test } from "node:test";
import { findAccountByName } from "../../src/repositories/accounts.ts";
import { findRepository } from "../../src/repositories/repos.ts";
import {
  exclusiveScope,
  type LabelRow,
  labelsAfterAdding,
  oneLabelPerScope,
  resolveIssueLabels,
} from "../../src/services/labels.ts";
import { api, basic, forEachForge } from "../support/forge.ts";
import type { Person } from "../support/people.ts";
import { trackerCast } from "../support/tracker.ts";

interface Label {
  id: number;
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
  is_archived: boolean;
  url: string;
}

forEachForge("forge labels: repository and organization labels, as Gitea keeps them", (forge) => {
  const tracker = trackerCast<Label>(forge, { repo: "notes", org: "guild", orgRepo: "vault" });
  const { cast, call, database } = tracker;
  const labelCount = () => tracker.rows("label");
  const made = (who: Person, path: string, body: Record<string, unknown>) =>
    tracker.created(who, path, body, "Label");

  test("POST /repos/{o}/{r}/labels: 201 with the colour as six lowercase hex digits without '#'", async () => {
    for (const [given, stored] of [
      ["#FF00AA", "ff00aa"],
      ["ff00ab", "ff00ab"],
      ["#AbC", "aabbcc"],
      ["123", "112233"],
      [" 0a0b0c ", "0a0b0c"],
    ]) {
      const label = await made(cast.olga, "/repos/olga/notes/labels", {
        name: `colour ${given}`,
        color: given,
      });
      assert.equal(label.color, stored, given);
    }
    const full = await made(cast.wren, "/repos/olga/notes/labels", {
      name: "kind/bug",
      color: "#d73a4a",
      description: "Something is broken",
      exclusive: true,
      is_archived: true,
    });
    assert.equal(full.name, "kind/bug");
    assert.equal(full.description, "Something is broken");
    assert.equal(full.exclusive, true);
    assert.equal(full.is_archived, true);
    assert.equal(full.url, `http://forge.test/api/v1/repos/olga/notes/labels/${full.id}`);
    // Null means "not given", as Go decodes it.
    const plain = await made(cast.olga, "/repos/olga/notes/labels", {
      name: "plain",
      color: "eeeeee",
      description: null,
      exclusive: null,
    });
    assert.equal(plain.description, "");
    assert.equal(plain.exclusive, false);
    assert.equal(plain.is_archived, false);
  });

  test("bad label input is a 422 in Gitea's shape and stores nothing", async () => {
    const before = await labelCount();
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ color: "#ffffff" }, /^\[Name\]: Required$/],
      [{ name: null, color: "#ffffff" }, /^\[Name\]: Required$/],
      [{ name: "  ", color: "#ffffff" }, /^\[Name\]: Required$/],
      [{ name: "no colour" }, /^\[Color\]: Required$/],
      [{ name: "no colour", color: "" }, /^\[Color\]: Required$/],
      [{ name: "bad", color: "#12345" }, /^bad color code: /],
      [{ name: "bad", color: "ggg" }, /^bad color code: #ggg$/],
      [{ name: "bad", color: "#1234567" }, /^bad color code: /],
      [{ name: "bad", color: "red" }, /^bad color code: #red$/],
      [{ name: "bad", color: `#${"f".repeat(5000)}` }, /^bad color code: /],
      [{ name: "x".repeat(256), color: "#ffffff" }, /^\[Name\]: MaxSize$/],
      [{ name: "long", color: "#ffffff", description: "d".repeat(256) }, /^\[Description\]: MaxSize$/],
      [{ name: 5, color: "#ffffff" }, /Name/],
    ];
    for (const [body, message] of refusals) {
      const answer = await call(cast.olga, "POST", "/repos/olga/notes/labels", body);
      assert.equal(answer.status, 422, JSON.stringify(body).slice(0, 80));
      assert.match(answer.body.message, message);
    }
    assert.equal(await labelCount(), before);
  });

  test("GET /repos/{o}/{r}/labels: by name, paged with X-Total-Count and Link; the organization's labels are not in it", async () => {
    await call(cast.olga, "POST", "/repos/guild/vault/labels", { name: "m-vault", color: "#000000" });
    await made(cast.olga, "/orgs/guild/labels", { name: "a-org", color: "#000000" });
    const all = await call<Label[]>(cast.olga, "GET", "/repos/guild/vault/labels", undefined, "Label[]");
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.map((label) => label.name),
      ["m-vault"],
    );

    for (const name of ["b", "c", "a"])
      await made(cast.olga, "/repos/guild/vault/labels", { name: `page-${name}`, color: "#111111" });
    const page = await call<Label[]>(
      cast.olga,
      "GET",
      "/repos/guild/vault/labels?page=2&limit=2",
      undefined,
      "Label[]",
    );
    assert.deepEqual(
      page.body.map((label) => label.name),
      ["page-b", "page-c"],
    );
    assert.equal(page.headers.get("x-total-count"), "4");
    assert.match(page.headers.get("link") ?? "", /rel="first"/);
    const reversed = await call<Label[]>(
      cast.olga,
      "GET",
      "/repos/guild/vault/labels?sort=reversealphabetically",
    );
    assert.deepEqual(
      reversed.body.map((label) => label.name),
      ["page-c", "page-b", "page-a", "m-vault"],
    );

    // By how many issues carry them (then by id): page-b is on one issue.
    const issue = await tracker.insertIssue({
      repoId: await tracker.repositoryId("guild", "vault"),
      number: 901,
      posterId: cast.olga.id,
    });
    const pageB = reversed.body[1];
    const { db } = database();
    await db.insertInto("issue_label").values({ issue_id: issue, label_id: pageB.id }).execute();
    const most = await call<Label[]>(cast.olga, "GET", "/repos/guild/vault/labels?sort=mostissues");
    assert.equal(most.body[0].name, "page-b");
    const least = await call<Label[]>(cast.olga, "GET", "/repos/guild/vault/labels?sort=leastissues");
    assert.equal(least.body.at(-1)?.name, "page-b");
    await db.deleteFrom("issue").where("id", "=", issue).execute();
  });

  test("GET /repos/{o}/{r}/labels/{id}: by id, or by name when the segment is not a number; 404 otherwise", async () => {
    const label = await made(cast.olga, "/repos/olga/notes/labels", { name: "find me", color: "#123456" });
    const byId = await call(cast.rita, "GET", `/repos/olga/notes/labels/${label.id}`, undefined, "Label");
    assert.equal(byId.status, 200);
    assert.deepEqual(byId.body, label);
    const byName = await call(cast.rita, "GET", `/repos/olga/notes/labels/${encodeURIComponent("find me")}`);
    assert.equal(byName.body.id, label.id);
    assert.equal((await call(cast.rita, "GET", "/repos/olga/notes/labels/999999")).status, 404);
    assert.equal((await call(cast.rita, "GET", "/repos/olga/notes/labels/nothing")).status, 404);
    // Another repository's label is not this repository's.
    const elsewhere = await made(cast.olga, "/repos/guild/vault/labels", {
      name: "vault only",
      color: "#123456",
    });
    assert.equal((await call(cast.olga, "GET", `/repos/olga/notes/labels/${elsewhere.id}`)).status, 404);
  });

  test("PATCH /repos/{o}/{r}/labels/{id}: changes what is given, keeps the rest; a bad colour changes nothing", async () => {
    const label = await made(cast.olga, "/repos/olga/notes/labels", {
      name: "edit me",
      color: "#123456",
      description: "before",
      is_archived: true,
    });
    const renamed = await call(
      cast.wren,
      "PATCH",
      `/repos/olga/notes/labels/${label.id}`,
      { name: "edited" },
      "Label",
    );
    assert.equal(renamed.status, 200);
    assert.deepEqual(renamed.body, { ...label, name: "edited" });

    const bad = await call(cast.wren, "PATCH", `/repos/olga/notes/labels/${label.id}`, {
      description: "after",
      color: "#12",
    });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /^bad color code: /);
    assert.equal(
      (await call(cast.wren, "GET", `/repos/olga/notes/labels/${label.id}`)).body.description,
      "before",
    );

    const changed = await call(cast.wren, "PATCH", `/repos/olga/notes/labels/${label.id}`, {
      color: "ABC",
      description: "after",
      exclusive: true,
      is_archived: false,
    });
    assert.deepEqual(changed.body, {
      ...label,
      name: "edited",
      color: "aabbcc",
      description: "after",
      exclusive: true,
      is_archived: false,
    });
    const empty = await call(cast.wren, "PATCH", `/repos/olga/notes/labels/${label.id}`, { name: "" });
    assert.equal(empty.status, 422);
    assert.equal(
      (await call(cast.wren, "PATCH", "/repos/olga/notes/labels/999999", { name: "x" })).status,
      404,
    );
    assert.equal(
      (await call(cast.wren, "PATCH", "/repos/olga/notes/labels/edited", { name: "x" })).status,
      404,
    );
  });

  test("DELETE /repos/{o}/{r}/labels/{id}: 204, the label leaves the issues that carried it; a missing label is 204 too (Gitea)", async () => {
    const label = await made(cast.olga, "/repos/olga/notes/labels", { name: "doomed", color: "#123456" });
    const issue = await tracker.insertIssue({
      repoId: await tracker.repositoryId("olga", "notes"),
      number: 900,
      posterId: cast.olga.id,
    });
    const { db } = database();
    await db.insertInto("issue_label").values({ issue_id: issue, label_id: label.id }).execute();

    assert.equal((await call(cast.wren, "DELETE", `/repos/olga/notes/labels/${label.id}`)).status, 204);
    assert.equal((await call(cast.wren, "GET", `/repos/olga/notes/labels/${label.id}`)).status, 404);
    const left = await db.selectFrom("issue_label").selectAll().where("issue_id", "=", issue).execute();
    assert.deepEqual(left, []);
    assert.equal((await call(cast.wren, "DELETE", `/repos/olga/notes/labels/${label.id}`)).status, 204);
    await db.deleteFrom("issue").where("id", "=", issue).execute();
  });

  test("who may read and manage a repository's labels: readers read, writers on issues or pull requests manage, outsiders see nothing", async () => {
    const label = await made(cast.olga, "/repos/olga/notes/labels", { name: "guarded", color: "#123456" });
    const path = `/repos/olga/notes/labels/${label.id}`;
    const before = await labelCount();

    assert.equal((await call(cast.rita, "GET", "/repos/olga/notes/labels")).status, 200);
    assert.equal((await call(cast.rita, "GET", path)).status, 200);
    const refused = await call(cast.rita, "POST", "/repos/olga/notes/labels", {
      name: "mine",
      color: "#000000",
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, "user should have a permission to write to a repo");
    assert.equal((await call(cast.rita, "PATCH", path, { name: "mine" })).status, 403);
    assert.equal((await call(cast.rita, "DELETE", path)).status, 403);

    for (const who of [cast.oscar, undefined]) {
      assert.equal((await call(who, "GET", "/repos/olga/notes/labels")).status, 404);
      assert.equal((await call(who, "GET", path)).status, 404);
    }
    assert.equal(
      (await call(cast.oscar, "POST", "/repos/olga/notes/labels", { name: "x", color: "#000000" })).status,
      404,
    );
    assert.equal((await call(cast.oscar, "DELETE", path)).status, 404);
    assert.equal(
      (await call(undefined, "POST", "/repos/olga/notes/labels", { name: "x", color: "#000000" })).status,
      401,
    );
    assert.equal(await labelCount(), before);
    assert.equal((await call(cast.rita, "GET", path)).body.name, "guarded");

    // A team that writes issues but has no code manages labels; so does one that writes pull requests.
    const ivys = await made(cast.ivy, "/repos/guild/vault/labels", { name: "ivy's", color: "#000000" });
    assert.equal(
      (await call(cast.ivy, "PATCH", `/repos/guild/vault/labels/${ivys.id}`, { name: "ivy" })).status,
      200,
    );
    assert.equal((await call(cast.ivy, "DELETE", `/repos/guild/vault/labels/${ivys.id}`)).status, 204);
    await made(cast.pia, "/repos/guild/vault/labels", { name: "pia's", color: "#000000" });
    assert.equal((await call(cast.mia, "GET", "/repos/guild/vault/labels")).status, 200);
    const reader = await call(cast.mia, "POST", "/repos/guild/vault/labels", {
      name: "mia's",
      color: "#000000",
    });
    assert.equal(reader.status, 403);
  });

  test("a token's scopes: reading labels needs read:issue, managing them write:issue", async () => {
    const token = async (scopes: string[]) => {
      const made = await api<{ sha1: string }>(forge.url, "POST", "/users/olga/tokens", {
        auth: basic("olga", "password123"),
        body: { name: `scoped ${scopes.join(" ")}`, scopes },
      });
      assert.equal(made.status, 201);
      return { id: cast.olga.id, login: "olga", token: made.body.sha1 };
    };
    const reader = await token(["read:issue"]);
    const repositoryOnly = await token(["write:repository"]);
    assert.equal((await call(reader, "GET", "/repos/olga/notes/labels")).status, 200);
    assert.equal(
      (await call(reader, "POST", "/repos/olga/notes/labels", { name: "r", color: "#000000" })).status,
      403,
    );
    assert.equal((await call(repositoryOnly, "GET", "/repos/olga/notes/labels")).status, 403);
    const writer = await token(["write:issue"]);
    await made(writer, "/repos/olga/notes/labels", { name: "scoped", color: "#000000" });
  });

  test("organization labels: listed by whoever sees the organization, managed by its owners", async () => {
    const label = await made(cast.olga, "/orgs/guild/labels", {
      name: "org/wide",
      color: "#ABCDEF",
      description: "for all",
      exclusive: true,
    });
    assert.equal(label.color, "abcdef");
    assert.equal(label.url, `http://forge.test/api/v1/orgs/guild/labels/${label.id}`);

    const listed = await call<Label[]>(undefined, "GET", "/orgs/guild/labels", undefined, "Label[]");
    assert.equal(listed.status, 200);
    assert.ok(listed.body.some((found) => found.id === label.id));
    assert.equal(listed.headers.get("x-total-count"), String(listed.body.length));
    // Gitea asks for a signed-in caller to show one.
    assert.equal((await call(undefined, "GET", `/orgs/guild/labels/${label.id}`)).status, 401);
    assert.deepEqual(
      (await call(cast.oscar, "GET", `/orgs/guild/labels/${label.id}`, undefined, "Label")).body,
      label,
    );
    assert.equal((await call(cast.oscar, "GET", "/orgs/guild/labels/org%2Fwide")).body.id, label.id);

    const before = await labelCount();
    for (const who of [cast.mia, cast.ivy, cast.oscar]) {
      const refused = await call(who, "POST", "/orgs/guild/labels", { name: "not mine", color: "#000000" });
      assert.equal(refused.status, 403);
      assert.equal(
        (await call(who, "PATCH", `/orgs/guild/labels/${label.id}`, { name: "not mine" })).status,
        403,
      );
      assert.equal((await call(who, "DELETE", `/orgs/guild/labels/${label.id}`)).status, 403);
    }
    assert.equal(await labelCount(), before);
    const bad = await call(cast.olga, "POST", "/orgs/guild/labels", { name: "bad", color: "nope" });
    assert.equal(bad.status, 422);
    assert.equal(await labelCount(), before);

    const edited = await call(
      cast.olga,
      "PATCH",
      `/orgs/guild/labels/${label.id}`,
      { is_archived: true },
      "Label",
    );
    assert.deepEqual(edited.body, { ...label, is_archived: true });
    // A site admin manages any organization's labels.
    const byAdmin = await api<Label>(forge.url, "PATCH", `/orgs/guild/labels/${label.id}`, {
      token: forge.adminToken,
      body: { description: "by admin" },
    });
    assert.equal(byAdmin.body.description, "by admin");
    // The repository routes do not reach the organization's labels.
    assert.equal((await call(cast.olga, "GET", `/repos/guild/vault/labels/${label.id}`)).status, 404);
    assert.equal((await call(cast.olga, "DELETE", `/orgs/guild/labels/${label.id}`)).status, 204);
    assert.equal((await call(cast.olga, "GET", `/orgs/guild/labels/${label.id}`)).status, 404);
  });

  test("a private organization's labels are a 404 to outsiders", async () => {
    assert.equal(
      (await call(cast.olga, "POST", "/orgs", { username: "hidden", visibility: "private" })).status,
      201,
    );
    const label = await made(cast.olga, "/orgs/hidden/labels", { name: "secret", color: "#000000" });
    for (const who of [cast.oscar, undefined])
      assert.equal((await call(who, "GET", "/orgs/hidden/labels")).status, 404);
    assert.equal((await call(cast.oscar, "GET", `/orgs/hidden/labels/${label.id}`)).status, 404);
    assert.equal(
      (await call(cast.oscar, "POST", "/orgs/hidden/labels", { name: "x", color: "#000000" })).status,
      404,
    );
    assert.equal((await call(cast.olga, "GET", "/orgs/hidden/labels")).status, 200);
  });

  test("resolveIssueLabels: the repository's and its organization's labels, once each, by name; others dropped as Gitea drops them", async () => {
    const own = await made(cast.olga, "/repos/guild/vault/labels", { name: "z-own", color: "#000000" });
    const org = await made(cast.olga, "/orgs/guild/labels", { name: "y-org", color: "#000000" });
    const otherRepo = await made(cast.olga, "/repos/olga/notes/labels", {
      name: "x-other",
      color: "#000000",
    });
    const otherOrg = await made(cast.olga, "/orgs/hidden/labels", { name: "w-hidden", color: "#000000" });
    const { db } = database();
    const guild = await findAccountByName(db, "guild");
    const olga = await findAccountByName(db, "olga");
    assert.ok(guild && olga);
    const vault = await findRepository(db, guild.id, "vault");
    const notes = await findRepository(db, olga.id, "notes");
    assert.ok(vault && notes);

    const ids = [own.id, org.id, otherRepo.id, otherOrg.id, 999999, own.id, -1];
    const usable = await resolveIssueLabels(db, vault, guild, ids);
    assert.deepEqual(
      usable.map((label) => label.id),
      [org.id, own.id],
    );
    // A user's repository takes no organization's labels.
    const onNotes = await resolveIssueLabels(db, notes, olga, [org.id, otherRepo.id]);
    assert.deepEqual(
      onNotes.map((label) => label.id),
      [otherRepo.id],
    );
    await assert.rejects(
      resolveIssueLabels(
        db,
        vault,
        guild,
        Array.from({ length: 251 }, (_, i) => i + 1),
      ),
      /too many labels/,
    );
  });

  test("exclusive scopes: an added scope/x label takes the place of the issue's other labels of that scope", () => {
    let id = 0;
    const label = (name: string, exclusive = true): LabelRow => ({
      id: ++id,
      repo_id: 1,
      org_id: null,
      name,
      exclusive,
      color: "000000",
      description: "",
      archived_at: null,
      created_at: "",
      updated_at: "",
    });
    assert.equal(exclusiveScope(label("kind/bug")), "kind");
    assert.equal(exclusiveScope(label("a/b/c")), "a/b");
    assert.equal(exclusiveScope(label("kind/bug", false)), "");
    assert.equal(exclusiveScope(label("/bug")), "");
    assert.equal(exclusiveScope(label("kind/")), "");
    assert.equal(exclusiveScope(label("plain")), "");

    const bug = label("kind/bug");
    const feature = label("kind/feature");
    const loose = label("kind/any", false);
    const high = label("priority/high");
    const low = label("priority/low");
    const docs = label("docs", false);
    assert.deepEqual(oneLabelPerScope([bug, high, feature, docs, low]), [feature, docs, low]);
    assert.deepEqual(labelsAfterAdding([bug, loose, high, docs], [feature]), [loose, high, docs, feature]);
    assert.deepEqual(labelsAfterAdding([bug, high], [bug, low]), [bug, low]);
  });
});
