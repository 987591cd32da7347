import assert from "node:assert/strict";
import { test } from "node:test";
import type { Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

// Who may give which permission: nobody grants (or takes away) a permission they do not hold, and
// only a superuser changes how a superuser signs in, or deletes one.

type User = { id: number; permissions: Record<string, string>; groups: { rows: { id: number }[] } | null };

forEachInventory("inventory API: users' permissions", (inventory) => {
  const call = <T = Envelope>(method: string, path: string, body: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  const permissionsOf = async (id: number) =>
    (await call<User>("GET", `/users/${id}`, undefined)).body.permissions;

  test("a users.edit holder grants nobody, themselves included, what they do not hold", async () => {
    const editor = await userWithToken(inventory, "editor", {
      "users.view": "1",
      "users.edit": "1",
      "assets.view": "1",
    });
    const other = await userWithToken(inventory, "other", { "assets.view": "1" });
    const lacking = { admin: "1", import: "1", "reports.view": "1", "licenses.keys": "1", superuser: "1" };
    for (const id of [other.id, editor.id]) {
      const answer = await call(
        "PATCH",
        `/users/${id}`,
        { permissions: { ...lacking, "users.view": "1", "users.edit": "1" } },
        editor.token,
      );
      assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
      const stored = await permissionsOf(id);
      for (const key of Object.keys(lacking)) assert.equal(stored[key], undefined, `${key} given to ${id}`);
    }
    assert.equal((await permissionsOf(other.id))["users.view"], "1", "what the editor holds they may grant");
    assert.equal((await permissionsOf(other.id))["assets.view"], undefined, "and take away");
    const report = await api(inventory, "GET", "/reports/activity", { token: editor.token });
    assert.equal(report.status, 403);
  });

  test("a permission they do not hold keeps its stored value when others change", async () => {
    const editor = await userWithToken(inventory, "editor2", { "users.edit": "1", "users.view": "1" });
    const reporter = await userWithToken(inventory, "reporter", { "reports.view": "1", "assets.view": "1" });
    await call("PATCH", `/users/${reporter.id}`, { permissions: { "users.view": "1" } }, editor.token);
    assert.deepEqual(await permissionsOf(reporter.id), {
      "reports.view": "1",
      "assets.view": "1",
      "users.view": "1",
    });
    const created = await call<Envelope<{ id: number }>>(
      "POST",
      "/users",
      {
        first_name: "New",
        username: "new-admin",
        password: "password123",
        password_confirmation: "password123",
        permissions: { admin: "1", "users.edit": "1" },
      },
      (await userWithToken(inventory, "creator", { "users.create": "1", "users.edit": "1" })).token,
    );
    assert.deepEqual(await permissionsOf(created.body.payload.id), { "users.edit": "1" });
  });

  test("an admin grants resource permissions but not admin-only gates they lack", async () => {
    const admin = await userWithToken(inventory, "plainadmin", { admin: "1" });
    const target = await userWithToken(inventory, "target", {});
    await call(
      "PATCH",
      `/users/${target.id}`,
      { permissions: { "assets.view": "1", import: "1", superuser: "1", admin: "1" } },
      admin.token,
    );
    assert.deepEqual(await permissionsOf(target.id), { "assets.view": "1", admin: "1" });
  });

  test("only a superuser changes a superuser's password, username, e-mail or activation, or deletes one", async () => {
    const editor = await userWithToken(inventory, "editor3", {
      "users.edit": "1",
      "users.view": "1",
      "users.delete": "1",
    });
    const root = await userWithToken(inventory, "root2", { superuser: "1" });
    for (const change of [
      { password: "taken-over-1", password_confirmation: "taken-over-1" },
      { username: "renamed" },
      { email: "attacker@example.com" },
      { activated: false },
    ]) {
      const answer = await call<{ message: string }>("PATCH", `/users/${root.id}`, change, editor.token);
      assert.equal(answer.status, 403, JSON.stringify(change));
      assert.equal(answer.body.message, "This action is unauthorized.");
    }
    const deleted = await call<{ message: string }>("DELETE", `/users/${root.id}`, undefined, editor.token);
    assert.equal(deleted.status, 403);
    const stored = await call<{ username: string; activated: boolean }>(
      "GET",
      `/users/${root.id}`,
      undefined,
    );
    assert.equal(stored.body.username, "root2");
    assert.equal(stored.body.activated, true);
    const harmless = await call(
      "PATCH",
      `/users/${root.id}`,
      { jobtitle: "Boss", username: "root2" },
      editor.token,
    );
    assert.equal(harmless.body.status, "success", "other fields, and unchanged ones, may be sent");
    const bySuperuser = await call("PATCH", `/users/${root.id}`, { email: "root2@example.com" });
    assert.equal(bySuperuser.body.status, "success");
  });

  test("a superuser by group is protected too; groups stay superuser-only", async () => {
    const group = await call<Envelope<{ id: number }>>("POST", "/groups", {
      name: "Roots",
      permissions: { superuser: "1" },
    });
    const member = await userWithToken(inventory, "groupedroot", {});
    await call("PATCH", `/users/${member.id}`, { groups: [group.body.payload.id] });
    const editor = await userWithToken(inventory, "editor4", {
      "users.edit": "1",
      "users.view": "1",
      admin: "1",
      groups: "1",
    });
    const answer = await call("PATCH", `/users/${member.id}`, { username: "renamed" }, editor.token);
    assert.equal(answer.status, 403);
    const made = await call(
      "POST",
      "/groups",
      { name: "Mine", permissions: { superuser: "1" } },
      editor.token,
    );
    assert.equal(made.status, 403, "a non-superuser creates no group");
    await call("PATCH", `/users/${editor.id}`, { groups: [group.body.payload.id] }, editor.token);
    const self = await call<User>("GET", `/users/${editor.id}`, undefined);
    assert.equal(self.body.groups, null, "nor joins one");
  });
});
