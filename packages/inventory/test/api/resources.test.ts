import assert from "node:assert/strict";
import { test } from "node:test";
import { RESOURCES } from "../../src/resources/index.ts";
import { api, forEachInventory } from "../support/inventory.ts";

interface Envelope<P = Record<string, unknown>> {
  status: string;
  messages: unknown;
  payload: P;
}
type List<R = Record<string, unknown>> = { total: number; rows: R[] };

const STRICT = { "x-api-strict-status": "1" };

forEachInventory("inventory API: table-driven resources", (inventory) => {
  const post = (path: string, body: unknown) => api<Envelope>(inventory, "POST", path, { body });

  test("companies: create answers the transformer in the envelope; show and list compute counts", async () => {
    const created = await post("/companies", {
      name: "Acme <Corp>",
      email: "it@acme.test",
      phone: "5551234",
    });
    assert.equal(created.status, 200);
    assert.equal(created.body.status, "success");
    assert.equal(created.body.messages, "Company created successfully.");
    const company = created.body.payload;
    assert.equal(company.name, "Acme &lt;Corp&gt;", "free text is HTML-escaped");
    assert.equal(company.users_count, 0);
    assert.equal(company.assets_count, 0);
    assert.deepEqual(company.created_by, { id: 1, name: "Admin" });
    const created_at = company.created_at as { datetime: string; formatted: string };
    assert.match(created_at.datetime, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.match(created_at.formatted, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} (AM|PM)$/);

    await post("/users", {
      first_name: "Worker",
      username: "worker",
      password: "password123",
      password_confirmation: "password123",
      company_id: company.id,
    });
    const shown = await api<Record<string, unknown>>(inventory, "GET", `/companies/${company.id}`);
    assert.equal(shown.body.users_count, 1);
    const listed = await api<List>(inventory, "GET", "/companies?search=acme");
    assert.equal(listed.body.total, 1);
    assert.equal(listed.body.rows[0].users_count, 1);
    assert.equal(listed.headers.get("x-total-count"), "1");

    const refused = await api<Envelope>(inventory, "DELETE", `/companies/${company.id}`);
    assert.equal(refused.status, 200);
    assert.equal(refused.body.status, "error");
    assert.match(
      String(refused.body.messages),
      /^This company is currently associated with at least one model/,
    );
    const strict = await api(inventory, "DELETE", `/companies/${company.id}`, { headers: STRICT });
    assert.equal(strict.status, 409);
  });

  test("validation: Laravel's field-keyed messages, HTTP 200, or 422 in strict mode; nothing written", async () => {
    const bad = await post("/companies", { name: "", email: "not-an-email", phone: 12 });
    assert.equal(bad.status, 200);
    assert.deepEqual(bad.body, {
      status: "error",
      messages: {
        name: ["The name field is required."],
        phone: ["The phone field must be at least 7 characters."],
        email: ["The email field must be a valid email address."],
      },
      payload: null,
    });
    const strict = await api(inventory, "POST", "/companies", { body: {}, headers: STRICT });
    assert.equal(strict.status, 422);

    const category = await post("/categories", { name: "Laptops", category_type: "gadget" });
    assert.deepEqual(category.body.messages, { category_type: ["The selected category type is invalid."] });
    const model = await post("/models", { name: "X1", category_id: 999 });
    assert.deepEqual(model.body.messages, { category_id: ["The selected category id is invalid."] });
    const types = await post("/depreciations", { name: ["array"], months: "twelve" });
    assert.deepEqual(types.body.messages, {
      name: ["The name field must be a string."],
      months: ["The months field must be an integer."],
    });
    const companies = await api<List>(inventory, "GET", "/companies?search=not-an-email");
    assert.equal(companies.body.total, 0);
  });

  test("duplicates answer the resource's unique message, never a 500", async () => {
    assert.equal((await post("/manufacturers", { name: "Lenovo" })).body.status, "success");
    const again = await post("/manufacturers", { name: "Lenovo" });
    assert.deepEqual(again.body.messages, { name: ["The name has already been taken."] });
    await post("/categories", { name: "Desktops", category_type: "asset" });
    const sameType = await post("/categories", { name: "Desktops", category_type: "ASSET" });
    assert.deepEqual(sameType.body.messages, {
      name: ["The name must be unique across categories and category type. "],
    });
    assert.equal(
      (await post("/categories", { name: "Desktops", category_type: "license" })).body.status,
      "success",
    );
  });

  test("malformed JSON is 422 `Invalid JSON`; a non-object body is a validation error", async () => {
    const malformed = await api(inventory, "POST", "/companies", { rawBody: "{nope" });
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body, { status: "error", messages: "Invalid JSON", payload: null });
    const array = await api<Envelope>(inventory, "POST", "/companies", { rawBody: "[1,2]" });
    assert.equal(array.status, 200);
    assert.deepEqual(array.body.messages, { name: ["The name field is required."] });
    const notFound = await api<Envelope>(inventory, "PATCH", "/companies/abc", { body: { name: "x" } });
    assert.deepEqual(notFound.body, { status: "error", messages: "Company not found", payload: null });
    const strict = await api(inventory, "GET", "/companies/99999", { headers: STRICT });
    assert.equal(strict.status, 404);
  });

  test("paging: limit and offset are clamped, unknown sorts fall back, order is asc or desc", async () => {
    for (const name of ["Alpha Co", "Beta Co", "Gamma Co"]) await post("/suppliers", { name });
    const all = await api<List<{ name: string }>>(inventory, "GET", "/suppliers?sort=name&order=asc");
    assert.deepEqual(
      all.body.rows.map((row) => row.name),
      ["Alpha Co", "Beta Co", "Gamma Co"],
    );
    const desc = await api<List<{ name: string }>>(inventory, "GET", "/suppliers?sort=name&order=sideways");
    assert.equal(desc.body.rows[0].name, "Gamma Co", "anything but asc is desc");
    const negative = await api<List>(inventory, "GET", "/suppliers?limit=-2&sort=name&order=asc");
    assert.equal(negative.body.rows.length, 2);
    assert.equal(negative.body.total, 3);
    assert.match(negative.headers.get("link") ?? "", /limit=2&sort=name&order=asc&offset=2>; rel="next"/);
    for (const limit of ["0", "abc", "99999999", ""]) {
      const res = await api<List>(inventory, "GET", `/suppliers?limit=${limit}`);
      assert.equal(res.body.rows.length, 3, `limit=${limit}`);
    }
    const past = await api<List>(inventory, "GET", "/suppliers?offset=50");
    assert.deepEqual([past.body.total, past.body.rows.length], [3, 0]);
    const injected = await api<List>(inventory, "GET", "/suppliers?sort=name;drop table suppliers&offset=-5");
    assert.equal(injected.status, 200);
    assert.equal(injected.body.total, 3);
    const either = await api<List>(inventory, "GET", "/suppliers?search=ALPHA OR gamma");
    assert.equal(either.body.total, 2, "case-insensitive, with OR");
    for (const filter of [
      "departments?company_id=abc",
      "users?start_date=soon",
      "reports/activity?created_by=x",
    ]) {
      const filtered = await api<List>(inventory, "GET", `/${filter}`);
      assert.deepEqual([filtered.status, filtered.body.total], [200, 0], filter);
    }
    const wildcard = await api<List>(inventory, "GET", "/suppliers?search=%25");
    assert.equal(wildcard.body.total, 0, "LIKE wildcards match literally");
  });

  test("locations: parent and children; a cycle is refused; a parent cannot be deleted", async () => {
    const top = (await post("/locations", { name: "HQ", currency: "EUR" })).body.payload;
    const floor = (await post("/locations", { name: "Floor 1", parent_id: top.id })).body.payload;
    const room = (await post("/locations", { name: "Room 101", parent_id: floor.id })).body.payload;
    assert.deepEqual(floor.parent, { id: top.id, name: "HQ" });
    const hq = await api<Record<string, unknown>>(inventory, "GET", `/locations/${top.id}`);
    assert.deepEqual(hq.body.children, [{ id: floor.id, name: "Floor 1" }]);

    for (const parent of [room.id, top.id]) {
      const cycle = await api<Envelope>(inventory, "PATCH", `/locations/${top.id}`, {
        body: { parent_id: parent },
      });
      assert.deepEqual(cycle.body.messages, {
        parent_id: ["The parent id must not create a circular reference."],
      });
    }
    const refused = await api<Envelope>(inventory, "DELETE", `/locations/${floor.id}`);
    assert.equal(refused.body.status, "error");
    assert.match(String(refused.body.messages), /^This location is not currently deletable/);
    assert.equal((await api<Envelope>(inventory, "DELETE", `/locations/${room.id}`)).body.status, "success");
    assert.equal((await api<Envelope>(inventory, "DELETE", `/locations/${floor.id}`)).body.status, "success");
  });

  test("status labels: the seeded three, type from flags, type required", async () => {
    const labels = await api<List<{ name: string; type: string }>>(
      inventory,
      "GET",
      "/statuslabels?sort=id&order=asc",
    );
    assert.deepEqual(
      labels.body.rows.map((row) => [row.name, row.type]),
      [
        ["Pending", "pending"],
        ["Ready to Deploy", "deployable"],
        ["Archived", "archived"],
      ],
    );
    const missing = await post("/statuslabels", { name: "Broken" });
    assert.deepEqual(missing.body.messages, { type: ["Status label type is required."] });
    const odd = await post("/statuslabels", { name: "Broken", type: "smashed" });
    assert.equal(odd.body.payload.type, "undeployable");
    const update = await api<Envelope>(inventory, "PATCH", `/statuslabels/${odd.body.payload.id}`, {
      body: { name: "B" },
    });
    assert.equal(update.body.messages, "Status label type is required.");
  });

  test("categories, models and manufacturers: type rules, raw model payload, restore quirk", async () => {
    const assetCategory = (await post("/categories", { name: "Phones", category_type: "asset" })).body
      .payload;
    assert.equal(assetCategory.category_type, "Asset");
    const licenseCategory = (await post("/categories", { name: "Software", category_type: "license" })).body
      .payload;
    const changeType = await api<Envelope>(inventory, "PATCH", `/categories/${assetCategory.id}`, {
      body: { category_type: "license" },
    });
    assert.deepEqual(changeType.body.messages, {
      category_type: ["You cannot change the category type once it has been created"],
    });
    const wrongCategory = await post("/models", { name: "Pixel", category_id: licenseCategory.id });
    assert.deepEqual(wrongCategory.body.messages, {
      category_type: ["This category must be an asset category."],
    });

    const maker = (await post("/manufacturers", { name: "Google", url: "https://google.com" })).body.payload;
    const model = await post("/models", {
      name: "Pixel",
      category_id: assetCategory.id,
      manufacturer_id: maker.id,
      eol: "36",
      requestable: "1",
    });
    assert.equal(model.body.status, "success");
    assert.equal(model.body.payload.category_id, assetCategory.id, "the raw row");
    assert.match(String(model.body.payload.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const shown = await api<Record<string, unknown>>(inventory, "GET", `/models/${model.body.payload.id}`);
    assert.equal(shown.body.eol, "36 months");
    assert.equal(shown.body.requestable, true);
    assert.deepEqual(shown.body.manufacturer, { id: maker.id, name: "Google" });

    const categoryInUse = await api<Envelope>(inventory, "DELETE", `/categories/${assetCategory.id}`);
    assert.match(
      String(categoryInUse.body.messages),
      /^This category is currently associated with at least one model/,
    );

    const deleted = await api<Envelope>(inventory, "DELETE", `/manufacturers/${maker.id}`);
    assert.equal(deleted.body.status, "success");
    const trashed = await api<List>(inventory, "GET", "/manufacturers?deleted=true");
    assert.deepEqual(
      trashed.body.rows.map((row) => row.id),
      [maker.id],
    );
    const restored = await api<Envelope>(inventory, "POST", `/manufacturers/${maker.id}/restore`);
    assert.deepEqual(restored.body, {
      status: "success",
      messages: null,
      payload: "Manufacturer restored successfully.",
    });
    const again = await api<Envelope>(inventory, "POST", `/manufacturers/${maker.id}/restore`);
    assert.equal(again.body.status, "error");
    assert.equal(typeof again.body.payload, "string");
  });

  test("users: me, password confirmation, delete refusals keyed by field, restore", async () => {
    const me = await api<Record<string, unknown>>(inventory, "GET", "/users/me");
    assert.equal(me.body.username, "admin");
    assert.deepEqual(me.body.permissions, { superuser: "1" });
    const mismatch = await post("/users", { first_name: "A", username: "a", password: "password123" });
    assert.deepEqual(mismatch.body.messages, {
      password: ["The password field confirmation does not match."],
    });
    const boss = (
      await post("/users", {
        first_name: "Boss",
        username: "boss",
        password: "password123",
        password_confirmation: "password123",
      })
    ).body.payload;
    assert.equal("password" in boss, false);
    await post("/users", {
      first_name: "Minion",
      username: "minion",
      password: "password123",
      password_confirmation: "password123",
      manager_id: boss.id,
    });
    const duplicate = await post("/users", {
      first_name: "Boss",
      username: "boss",
      password: "password123",
      password_confirmation: "password123",
    });
    assert.deepEqual(duplicate.body.messages, { username: ["The username must be unique."] });

    const self = await api<Envelope>(inventory, "DELETE", `/users/${me.body.id}`);
    assert.deepEqual(Object.keys(self.body.messages as object), ["user"]);
    const manager = await api<Envelope>(inventory, "DELETE", `/users/${boss.id}`);
    assert.deepEqual(Object.keys(manager.body.messages as object), ["managed_users"]);
    const unknown = await api<Envelope>(inventory, "DELETE", "/users/9999");
    assert.equal(unknown.body.messages, "User does not exist or you do not have permission view them.");

    const minion = await api<List<{ id: number }>>(inventory, "GET", "/users?search=minion");
    const minionId = minion.body.rows[0].id;
    assert.equal((await api<Envelope>(inventory, "DELETE", `/users/${minionId}`)).body.status, "success");
    const gone = await api<List>(inventory, "GET", "/users?search=minion");
    assert.equal(gone.body.total, 0);
    const restored = await api<Envelope>(inventory, "POST", `/users/${minionId}/restore`);
    assert.equal(restored.body.status, "success");
    const notDeleted = await api<Envelope>(inventory, "POST", `/users/${minionId}/restore`);
    assert.equal(notDeleted.body.messages, null);
    assert.equal(notDeleted.body.payload, "User is not deleted.");
  });

  test("every write is in the activity report with its actor and changed fields", async () => {
    const dept = (await post("/departments", { name: "Finance" })).body.payload;
    await api(inventory, "PATCH", `/departments/${dept.id}`, { body: { name: "Accounting", phone: null } });
    await api(inventory, "DELETE", `/departments/${dept.id}`);
    const report = await api<List<Record<string, unknown>>>(
      inventory,
      "GET",
      `/reports/activity?item_type=department&item_id=${dept.id}`,
    );
    assert.deepEqual(
      report.body.rows.map((row) => row.action_type),
      ["delete", "update", "create new"],
    );
    const update = report.body.rows[1];
    assert.deepEqual(update.log_meta, { name: { old: "Finance", new: "Accounting" } });
    assert.deepEqual(update.created_by, { id: 1, name: "Admin", first_name: "Admin", last_name: null });
    assert.deepEqual(update.item, { id: dept.id, name: "Accounting", type: "department", serial: null });
    assert.equal(update.action_source, "api");
    // Each thing named narrows the report: no entry of the department is about the admin too.
    const both = await api<List>(
      inventory,
      "GET",
      `/reports/activity?item_type=department&item_id=${dept.id}&target_type=user&target_id=1`,
    );
    assert.equal(both.body.total, 0);

    const failed = await post("/departments", { name: "" });
    assert.equal(failed.body.status, "error");
    const all = await api<List>(inventory, "GET", "/reports/activity?action_type=create&limit=1");
    assert.equal(all.body.rows.length, 1);
  });
});

forEachInventory("inventory API: bad input never breaks a resource", (inventory) => {
  const weird: unknown[] = [
    { nested: true },
    [1, 2],
    -1,
    1e308,
    "x".repeat(70_000),
    true,
    "'; drop table users; --",
  ];

  test("every field of every resource, given values of the wrong type, is answered in the envelope", async () => {
    type Operation = {
      requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    };
    const spec = (await fetch(`${inventory.url}/api/v1/openapi.json`).then((res) => res.json())) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const paths = spec.paths;
    const collections = Object.keys(paths).filter(
      // Uploads (/imports) take multipart bodies, not JSON.
      (path) =>
        /^\/api\/v1\/[a-z]+$/.test(path) &&
        paths[path].post &&
        !paths[path].post.requestBody?.content["multipart/form-data"],
    );
    assert.ok(
      collections.includes("/api/v1/companies") && collections.includes("/api/v1/users"),
      collections.join(),
    );
    for (const path of collections) {
      const fields = Object.keys(
        paths[path].post.requestBody?.content["application/json"].schema.properties ?? {},
      );
      assert.ok(fields.length > 0, `${path} documents its body`);
      for (const value of weird) {
        const body = Object.fromEntries(fields.map((field) => [field, value]));
        const res = await api<{ status: string }>(inventory, "POST", path.slice("/api/v1".length), { body });
        assert.equal(
          res.status,
          200,
          `${path} ${JSON.stringify(value).slice(0, 40)}: ${JSON.stringify(res.body)}`,
        );
        const id = 1;
        const patched = await api<{ status: string }>(
          inventory,
          "PATCH",
          `${path.slice("/api/v1".length)}/${id}`,
          { body },
        );
        assert.equal(patched.status, 200, `PATCH ${path}: ${JSON.stringify(patched.body)}`);
      }
    }
    const me = await api<{ username: string }>(inventory, "GET", "/users/me");
    assert.equal(me.body.username, "admin", "the admin survived");
  });
});

forEachInventory("inventory API: every sort of every list", (inventory) => {
  test("each allowed sort key, both ways, answers a list", async () => {
    await api(inventory, "POST", "/companies", { body: { name: "Sorted" } });
    for (const resource of RESOURCES) {
      for (const sort of resource.list.sorts) {
        for (const order of ["asc", "desc"]) {
          const res = await api<List>(
            inventory,
            "GET",
            `/${resource.path}?sort=${sort}&order=${order}&search=a`,
          );
          assert.equal(res.status, 200, `${resource.path} sort=${sort}: ${JSON.stringify(res.body)}`);
          assert.equal(typeof res.body.total, "number");
        }
      }
    }
  });
});
