import assert from "node:assert/strict";
import { test } from "node:test";
import type { Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { created } from "../support/items.ts";

forEachInventory("inventory API: mailing a user their inventory, resetting two-factor", (inventory) => {
  let withMail = 0;
  let withoutMail = 0;
  const database = () => {
    const opened = inventory.server.app.database;
    if (!opened) throw new Error("no database");
    return opened.db;
  };
  const person = (username: string, email?: string) =>
    created(inventory, "/users", {
      first_name: username,
      username,
      email,
      password: "password123",
      password_confirmation: "password123",
    });

  test("fixture", async () => {
    withMail = await person("uamail", "uamail@example.com");
    withoutMail = await person("uanomail");
  });

  test("POST /users/{id}/email says no mail is sent rather than pretend", async () => {
    const mailed = await api<Envelope>(inventory, "POST", `/users/${withMail}/email`);
    assert.equal(mailed.status, 200);
    assert.deepEqual(mailed.body, {
      status: "error",
      messages: "Mail is not configured: this inventory sends no e-mail, so the user was not notified.",
      payload: null,
    });
    const noAddress = await api<Envelope>(inventory, "POST", `/users/${withoutMail}/email`);
    assert.equal(noAddress.body.messages, "This user does not have an email address set.");
    const unknown = await api<Envelope>(inventory, "POST", "/users/99999/email");
    assert.deepEqual(unknown.body, { status: "error", messages: "User not found", payload: null });
    const outsider = await userWithToken(inventory, "uaoutsider", { "assets.view": "1" });
    assert.equal(
      (await api(inventory, "POST", `/users/${withMail}/email`, { token: outsider.token })).status,
      403,
    );
  });

  test("POST /users/two_factor_reset clears the enrolment and logs it", async () => {
    await database()
      .updateTable("users")
      .set({ two_factor_enrolled: true })
      .where("id", "=", withMail)
      .execute();
    const reset = await api(inventory, "POST", "/users/two_factor_reset", { body: { id: withMail } });
    assert.equal(reset.status, 200);
    assert.deepEqual(reset.body, { message: "Two factor device successfully reset" });
    const user = await api<{ two_factor_enrolled: boolean }>(inventory, "GET", `/users/${withMail}`);
    assert.equal(user.body.two_factor_enrolled, false);
    const entry = await database()
      .selectFrom("action_logs")
      .selectAll()
      .where("action_type", "=", "2FA reset")
      .where("item_id", "=", withMail)
      .executeTakeFirst();
    assert.ok(entry, "the reset is in the activity log");
  });

  test("two_factor_reset: a missing id is 422, an unknown one 404, and users.edit is needed", async () => {
    const missing = await api(inventory, "POST", "/users/two_factor_reset", { body: {} });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body, { message: "No ID provided" });
    const unknown = await api(inventory, "POST", "/users/two_factor_reset", { body: { id: 99999 } });
    assert.equal(unknown.status, 404);
    const viewer = await userWithToken(inventory, "uaviewer", { "users.view": "1" });
    const refused = await api(inventory, "POST", "/users/two_factor_reset", {
      token: viewer.token,
      rawBody: "{",
    });
    assert.equal(refused.status, 403);
  });
});
