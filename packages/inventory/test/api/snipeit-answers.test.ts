import assert from "node:assert/strict";
import { test } from "node:test";
import { RESOURCES } from "../../src/resources/index.ts";
import { api, forEachInventory } from "../support/inventory.ts";
import { category, created, type Envelope, type List, STRICT } from "../support/items.ts";

// Answers as Snipe-IT 8 gives them where ours differed: the status label type filter, a category
// updated without its type, soft-deleted records as not found, empty values of fields that must
// hold one.

forEachInventory("inventory API: Snipe-IT 8's answers", (inventory) => {
  test("GET /statuslabels?status_type= lists the labels of that type only", async () => {
    await created(inventory, "/statuslabels", { name: "Broken", type: "undeployable" });
    await created(inventory, "/statuslabels", { name: "Spare", type: "deployable" });
    const names = async (query: string) =>
      (await api<List<{ name: string; type: string }>>(inventory, "GET", `/statuslabels?${query}`)).body.rows
        .map((row) => row.name)
        .sort();
    assert.deepEqual(await names("status_type=deployable"), ["Ready to Deploy", "Spare"]);
    assert.deepEqual(await names("status_type=pending"), ["Pending"]);
    assert.deepEqual(await names("status_type=archived"), ["Archived"]);
    assert.deepEqual(await names("status_type=undeployable"), ["Broken"]);
    const all = ["Archived", "Broken", "Pending", "Ready to Deploy", "Spare"];
    assert.deepEqual(await names("status_type=lost"), all, "an unknown type filters nothing");
    assert.deepEqual(await names("status_type=Pending"), all, "types are matched as written");
    assert.deepEqual(await names("status_type=deployable&search=spare"), ["Spare"]);
  });

  test("PATCH /categories/{id} without category_type keeps the stored type; changing it stays refused", async () => {
    const id = await category(inventory, "accessory", "Cables");
    const renamed = await api<Envelope>(inventory, "PATCH", `/categories/${id}`, {
      body: { name: "Leads", require_acceptance: true },
    });
    assert.equal(renamed.body.status, "success", JSON.stringify(renamed.body));
    const shown = await api<Record<string, unknown>>(inventory, "GET", `/categories/${id}`);
    assert.equal(shown.body.name, "Leads");
    assert.equal(shown.body.category_type, "Accessory");
    assert.equal(shown.body.require_acceptance, true);

    const same = await api<Envelope>(inventory, "PUT", `/categories/${id}`, {
      body: { category_type: "accessory", notes: "kept" },
    });
    assert.equal(same.body.status, "success");
    const changed = await api<Envelope>(inventory, "PATCH", `/categories/${id}`, {
      body: { category_type: "license" },
    });
    assert.deepEqual(changed.body, {
      status: "error",
      messages: { category_type: ["You cannot change the category type once it has been created"] },
      payload: null,
    });
    const emptied = await api<Envelope>(inventory, "PATCH", `/categories/${id}`, {
      body: { category_type: "" },
    });
    assert.deepEqual(emptied.body.messages, { category_type: ["The category type field is required."] });
    const after = await api<Record<string, unknown>>(inventory, "GET", `/categories/${id}`);
    assert.equal(after.body.category_type, "Accessory");
  });

  test("a soft-deleted manufacturer, model or user is not found by id until restored, but where Snipe-IT reads it", async () => {
    const assetCategory = await category(inventory, "asset", "Deleted things");
    const records = [
      {
        path: "manufacturers",
        id: await created(inventory, "/manufacturers", { name: "Gone Inc" }),
        notFound: "Manufacturer not found",
      },
      {
        path: "models",
        id: await created(inventory, "/models", { name: "Gone 1", category_id: assetCategory }),
        notFound: "AssetModel not found",
      },
      {
        path: "users",
        id: await created(inventory, "/users", {
          first_name: "Gone",
          username: "gone",
          password: "password123",
          password_confirmation: "password123",
        }),
        notFound: "User not found",
      },
    ];
    for (const { path, id } of records) {
      const deleted = await api<Envelope>(inventory, "DELETE", `/${path}/${id}`);
      assert.equal(deleted.body.status, "success", `${path}: ${JSON.stringify(deleted.body)}`);
    }
    for (const { path, id, notFound } of records) {
      const shown = await api<Envelope>(inventory, "GET", `/${path}/${id}`);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.status, "error", `GET /${path}/${id}: ${JSON.stringify(shown.body)}`);
      const strict = await api<Envelope>(inventory, "GET", `/${path}/${id}`, { headers: STRICT });
      assert.equal(strict.status, 404);
      assert.equal(strict.body.messages, notFound);
      const patched = await api<Envelope>(inventory, "PATCH", `/${path}/${id}`, {
        body: { notes: "x" },
        headers: STRICT,
      });
      assert.equal(patched.status, 404, `PATCH /${path}/${id}: ${JSON.stringify(patched.body)}`);
    }

    const [maker, model, user] = records;
    for (const { path, id } of [maker, model]) {
      const again = await api<Envelope>(inventory, "DELETE", `/${path}/${id}`, { headers: STRICT });
      assert.equal(again.status, 404, `DELETE /${path}/${id} again: ${JSON.stringify(again.body)}`);
    }
    // Where Snipe-IT reads deleted users on purpose (withTrashed): a delete, their assets and licenses.
    const again = await api<Envelope>(inventory, "DELETE", `/users/${user.id}`);
    assert.deepEqual(again.body.messages, { deleted_at: ["This user has already been deleted."] });
    const licenses = await api<List>(inventory, "GET", `/users/${user.id}/licenses`);
    assert.deepEqual(licenses.body, { total: 0, rows: [] });
    const assets = await api<List>(inventory, "GET", `/users/${user.id}/assets`);
    assert.deepEqual(assets.body, { total: 0, rows: [] });
    const accessories = await api<Envelope>(inventory, "GET", `/users/${user.id}/accessories`, {
      headers: STRICT,
    });
    assert.equal(accessories.status, 404);

    for (const { path, id } of records) {
      const restored = await api<Envelope>(inventory, "POST", `/${path}/${id}/restore`);
      assert.equal(restored.body.status, "success", `${path}: ${JSON.stringify(restored.body)}`);
      const shown = await api<{ id: number }>(inventory, "GET", `/${path}/${id}`);
      assert.equal(shown.body.id, id);
    }
  });

  test("a depreciation's type given empty is a validation error, on create and on update", async () => {
    const refused = await api<Envelope>(inventory, "POST", "/depreciations", {
      body: { name: "Laptops 3y", months: 36, depreciation_type: "" },
    });
    assert.equal(refused.status, 200);
    assert.deepEqual(refused.body, {
      status: "error",
      messages: {
        depreciation_type: [
          "The depreciation type field must be a string.",
          "The selected depreciation type is invalid.",
        ],
      },
      payload: null,
    });
    const id = await created(inventory, "/depreciations", { name: "Laptops 3y", months: 36 });
    for (const value of ["", null]) {
      const patched = await api<Envelope>(inventory, "PATCH", `/depreciations/${id}`, {
        body: { depreciation_type: value },
        headers: STRICT,
      });
      assert.equal(patched.status, 422, JSON.stringify(patched.body));
      assert.equal(patched.body.status, "error");
    }
    const percent = await api<Envelope>(inventory, "PATCH", `/depreciations/${id}`, {
      body: { depreciation_type: "percent" },
    });
    assert.equal(percent.body.status, "success");
    const shown = await api<Record<string, unknown>>(inventory, "GET", `/depreciations/${id}`);
    assert.equal(shown.body.type, "percent");
  });
});

forEachInventory("inventory API: empty values of every field", (inventory) => {
  test("every field of every resource, sent empty (or null on update), never answers a 500", async () => {
    const categories = {
      asset: await category(inventory, "asset", "Empty assets"),
      accessory: await category(inventory, "accessory", "Empty accessories"),
      consumable: await category(inventory, "consumable", "Empty consumables"),
      component: await category(inventory, "component", "Empty components"),
      license: await category(inventory, "license", "Empty licenses"),
    };
    const model = await created(inventory, "/models", { name: "Empty model", category_id: categories.asset });
    const maintained = await created(inventory, "/hardware", {
      asset_tag: "EMPTY-M",
      model_id: model,
      status_id: 2,
    });
    let serial = 0;
    // The least each resource needs, with a name of its own on each call.
    const minimal: Record<string, () => Record<string, unknown>> = {
      companies: () => ({ name: `Company ${++serial}` }),
      departments: () => ({ name: `Department ${++serial}` }),
      locations: () => ({ name: `Location ${++serial}` }),
      manufacturers: () => ({ name: `Maker ${++serial}` }),
      suppliers: () => ({ name: `Supplier ${++serial}` }),
      categories: () => ({ name: `Category ${++serial}`, category_type: "asset" }),
      statuslabels: () => ({ name: `Label ${++serial}`, type: "deployable" }),
      depreciations: () => ({ name: `Depreciation ${++serial}`, months: 12 }),
      models: () => ({ name: `Model ${++serial}`, category_id: categories.asset }),
      groups: () => ({ name: `Group ${++serial}` }),
      users: () => ({
        first_name: "Empty",
        username: `empty${++serial}`,
        password: "password123",
        password_confirmation: "password123",
      }),
      accessories: () => ({ name: `Accessory ${++serial}`, category_id: categories.accessory, qty: 2 }),
      consumables: () => ({ name: `Consumable ${++serial}`, category_id: categories.consumable, qty: 2 }),
      components: () => ({ name: `Component ${++serial}`, category_id: categories.component, qty: 2 }),
      licenses: () => ({ name: `License ${++serial}`, category_id: categories.license, seats: 2 }),
      hardware: () => ({ asset_tag: `EMPTY-${++serial}`, model_id: model, status_id: 2 }),
      fields: () => ({ name: `Field ${++serial}`, element: "text" }),
      fieldsets: () => ({ name: `Fieldset ${++serial}` }),
      maintenances: () => ({
        asset_id: maintained,
        asset_maintenance_type: "Repair",
        title: `Maintenance ${++serial}`,
        start_date: "2025-01-01",
      }),
      kits: () => ({ name: `Kit ${++serial}` }),
    };
    const spec = (await fetch(`${inventory.url}/api/v1/openapi.json`).then((res) => res.json())) as {
      paths: Record<
        string,
        { post?: { requestBody?: { content: Record<string, { schema: { properties: object } }> } } }
      >;
    };
    assert.deepEqual(
      RESOURCES.map((resource) => resource.path).filter((path) => !(path in minimal)),
      [],
      "every table-driven resource is covered",
    );
    const failures: string[] = [];
    for (const [path, body] of Object.entries(minimal)) {
      const fields = Object.keys(
        spec.paths[`/api/v1/${path}`].post?.requestBody?.content["application/json"].schema.properties ?? {},
      );
      assert.ok(fields.length > 0, `${path} documents its body`);
      const id = await created(inventory, `/${path}`, body());
      for (const field of fields) {
        const posted = await api<Envelope>(inventory, "POST", `/${path}`, {
          body: { ...body(), [field]: "" },
        });
        if (posted.status !== 200) failures.push(`POST /${path} ${field}="": ${JSON.stringify(posted.body)}`);
        for (const value of ["", null]) {
          const sent = JSON.stringify({ [field]: value });
          const patched = await api<Envelope>(inventory, "PATCH", `/${path}/${id}`, {
            body: { [field]: value },
          });
          if (patched.status !== 200)
            failures.push(`PATCH /${path} ${sent}: ${JSON.stringify(patched.body)}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });
});
