import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, type Envelope } from "../support/assets.ts";
import { api, forEachInventory } from "../support/inventory.ts";
import { category } from "../support/items.ts";

// Every rule that reads request data gets 1 MB of the input that is worst for a backtracking
// pattern, and must answer its refusal well within a second (a quadratic pattern takes hours).

const MEGABYTE = 1024 * 1024;
/** Worst for `x+@y+\.z+$`-like patterns: many dots the domain part may split at, then a space. */
const BAD_EMAIL = `a@${"a.".repeat(MEGABYTE / 2)} `;
const ANSWER_WITHIN_MS = 1000;

forEachInventory("inventory API: rules reading request data are linear and bounded", (inventory) => {
  let f: AssetFixture;
  const timed = async (method: string, path: string, body: unknown) => {
    const started = performance.now();
    const answer = await api<Envelope>(inventory, method, path, { body });
    const took = performance.now() - started;
    assert.ok(took < ANSWER_WITHIN_MS, `${path} took ${Math.round(took)} ms`);
    return answer.body;
  };

  test("fixture", async () => {
    f = await assetFixture(inventory, "limits");
  });

  test("the `email` rule: the length limit answers before the address is looked at", async () => {
    const user = await timed("POST", "/users", {
      first_name: "Long",
      username: "long-email",
      password: "password123",
      password_confirmation: "password123",
      email: BAD_EMAIL,
    });
    assert.deepEqual(user.messages, { email: ["The email field must not be greater than 191 characters."] });
    const license = await timed("POST", "/licenses", {
      name: "Long email",
      seats: 1,
      category_id: f.categoryId,
      license_email: BAD_EMAIL,
    });
    assert.deepEqual((license.messages as Record<string, string[]>).license_email, [
      "The license email field must not be greater than 120 characters.",
    ]);
  });

  test("an address within the limit is still checked, by a linear check", async () => {
    const refused = await timed("POST", "/users", {
      first_name: "Short",
      username: "short-email",
      password: "password123",
      password_confirmation: "password123",
      email: `a@${"a.".repeat(60)} `,
    });
    assert.deepEqual(refused.messages, { email: ["The email field must be a valid email address."] });
  });

  test("each custom field format refuses 1 MB of its worst input at once", async () => {
    const worst: Record<string, string> = {
      ALPHA: `${"a".repeat(MEGABYTE)}1`,
      "ALPHA-DASH": `${"a-".repeat(MEGABYTE / 2)}!`,
      NUMERIC: `${"1".repeat(MEGABYTE)}x`,
      "ALPHA-NUMERIC": `${"a1".repeat(MEGABYTE / 2)}!`,
      EMAIL: BAD_EMAIL,
      DATE: "2".repeat(MEGABYTE),
      URL: `http://${"a.".repeat(MEGABYTE / 2)}[`,
      IP: "1.".repeat(MEGABYTE / 2),
      IPV4: "1.".repeat(MEGABYTE / 2),
      IPV6: "1:".repeat(MEGABYTE / 2),
      MAC: `${"aa:".repeat(MEGABYTE / 3)}!`,
      BOOLEAN: "t".repeat(MEGABYTE),
    };
    const fieldset = await api<Envelope<{ id: number }>>(inventory, "POST", "/fieldsets", {
      body: { name: "Formats" },
    });
    const columns: Record<string, string> = {};
    for (const format of Object.keys(worst)) {
      const field = await api<Envelope<{ id: number; db_column: string }>>(inventory, "POST", "/fields", {
        body: { name: `Format ${format}`, element: "text", format },
      });
      assert.equal(field.body.status, "success", JSON.stringify(field.body));
      columns[format] = field.body.payload.db_column;
      await api(inventory, "POST", `/fields/${field.body.payload.id}/associate`, {
        body: { fieldset_id: fieldset.body.payload.id },
      });
    }
    const model = await api<Envelope<{ id: number }>>(inventory, "POST", "/models", {
      body: { name: "Formats model", category_id: f.categoryId, fieldset_id: fieldset.body.payload.id },
    });
    for (const [format, value] of Object.entries(worst)) {
      const answer = await timed("POST", "/hardware", {
        asset_tag: `FMT-${format}`,
        model_id: model.body.payload.id,
        status_id: f.deployable,
        [columns[format]]: value,
      });
      assert.equal(answer.status, "error", `${format} accepted its worst input`);
      assert.ok(
        columns[format] in (answer.messages as object),
        `${format}: ${Object.keys(answer.messages as object)}`,
      );
    }
  });

  test("a format of the field's own that nests repetitions is refused; a flat one runs linearly", async () => {
    for (const format of ["regex:/^(a+)+$/", "regex:/^(?:[a-z]*,)*$/i", "regex:/^((ab)*)+c$/"]) {
      const refused = await api<Envelope>(inventory, "POST", "/fields", {
        body: { name: `Nested ${format}`, element: "text", format },
      });
      assert.equal(refused.body.status, "error", format);
      assert.deepEqual(refused.body.messages, { format: ["The selected format is invalid."] }, format);
    }
    const field = await api<Envelope<{ id: number; db_column: string }>>(inventory, "POST", "/fields", {
      body: { name: "Flat pattern", element: "text", format: "regex:/^[a-z]+-[0-9]+$/" },
    });
    assert.equal(field.body.status, "success", JSON.stringify(field.body));
    const fieldset = await api<Envelope<{ id: number }>>(inventory, "POST", "/fieldsets", {
      body: { name: "Flat" },
    });
    await api(inventory, "POST", `/fields/${field.body.payload.id}/associate`, {
      body: { fieldset_id: fieldset.body.payload.id },
    });
    const model = await api<Envelope<{ id: number }>>(inventory, "POST", "/models", {
      body: { name: "Flat model", category_id: f.categoryId, fieldset_id: fieldset.body.payload.id },
    });
    const column = field.body.payload.db_column;
    const refused = await timed("POST", "/hardware", {
      asset_tag: "FLAT-1",
      model_id: model.body.payload.id,
      status_id: f.deployable,
      [column]: `${"a".repeat(MEGABYTE)}-`,
    });
    assert.ok(column in (refused.messages as object), JSON.stringify(refused.messages));
    const accepted = await timed("POST", "/hardware", {
      asset_tag: "FLAT-2",
      model_id: model.body.payload.id,
      status_id: f.deployable,
      [column]: "ab-12",
    });
    assert.equal(accepted.status, "success", JSON.stringify(accepted.messages));
  });

  test("an integer beyond the database's integer columns is refused, never a 500", async () => {
    const answer = await api<Envelope>(inventory, "POST", "/accessories", {
      body: {
        name: "Too many",
        qty: 3_000_000_000,
        category_id: await category(inventory, "accessory", "Bulk"),
      },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual((answer.body.messages as Record<string, string[]>).qty, [
      "The qty field must not be greater than 2147483647.",
    ]);
  });

  test("an image given as text: only a data URI's header is matched", async () => {
    const answer = await timed("POST", "/companies", {
      name: "Imageless",
      image: `data:${";".repeat(MEGABYTE)}`,
    });
    assert.deepEqual(Object.keys(answer.messages as object), ["image"]);
  });
});
