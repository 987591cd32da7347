import assert from "node:assert/strict";
import { test } from "node:test";
import { toStoredTime } from "@anvil/core";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, type InventoryState, userWithToken } from "../support/inventory.ts";
import { category, created, logged, person, STRICT } from "../support/items.ts";

type Row = Record<string, unknown> & { id: number };

/** Where every item of a test stands: who holds each asset, how many seats, units and uses are out. */
async function holdings(
  inventory: InventoryState,
  items: { assets: number[]; license: number; accessory: number; consumable: number },
) {
  const get = <T>(path: string) => api<T>(inventory, "GET", path).then((answer) => answer.body);
  const assets = await Promise.all(
    items.assets.map(
      async (id) => ((await get<Row>(`/hardware/${id}`)).assigned_to as Row | null)?.id ?? null,
    ),
  );
  const seats = await get<List<Row>>(`/licenses/${items.license}/seats`);
  return {
    assets,
    seats: seats.rows.filter((seat) => seat.assigned_user !== null).length,
    accessories: (await get<List>(`/accessories/${items.accessory}/checkedout`)).total,
    consumables: (await get<List>(`/consumables/${items.consumable}/users`)).total,
  };
}

forEachInventory("inventory API: predefined kits", (inventory) => {
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  let f: AssetFixture;
  let license = 0;
  let accessory = 0;
  let consumable = 0;
  let assets: number[] = [];

  test("kits: create, show, list, rename, unique names, delete", async () => {
    const made = await call("POST", "/kits", { name: "Onboarding <dev>" });
    assert.equal(made.body.status, "success");
    assert.equal(made.body.messages, "Kit was successfully created.");
    const id = made.body.payload.id as number;
    assert.equal(made.body.payload.name, "Onboarding <dev>", "the payload is the stored row");
    assert.deepEqual((await call<Row>("GET", `/kits/${id}`)).body, {
      id,
      name: "Onboarding &lt;dev&gt;",
      user_can_checkout: true,
      available_actions: { update: true, delete: true, checkout: true },
    });
    assert.deepEqual((await call("POST", "/kits", { name: "Onboarding <dev>" })).body.messages, {
      name: ["The name has already been taken."],
    });
    assert.deepEqual((await call("POST", "/kits", {})).body.messages, {
      name: ["The name field is required."],
    });
    await created(inventory, "/kits", { name: "Sales" });
    const listed = await call<List<Row>>("GET", "/kits?sort=name&order=asc&search=o");
    assert.deepEqual(
      listed.body.rows.map((row) => row.name),
      ["Onboarding &lt;dev&gt;"],
    );
    assert.equal((await call<List>("GET", "/kits")).body.total, 2);
    const renamed = await call("PATCH", `/kits/${id}`, { name: "Onboarding" });
    assert.equal(renamed.body.messages, "Kit was successfully updated.");
    assert.equal(await logged(inventory, "kit", id, "update"), 1);
    const gone = await call("DELETE", `/kits/${id}`);
    assert.deepEqual(gone.body, {
      status: "success",
      messages: "Kit was successfully deleted.",
      payload: null,
    });
    assert.deepEqual((await call("GET", `/kits/${id}`)).body, {
      status: "error",
      messages: "PredefinedKit not found",
      payload: null,
    });
  });

  test("what a kit holds: attach with a quantity, list, change the quantity, detach", async () => {
    f = await assetFixture(inventory, "kt");
    assets = [
      await createAsset(inventory, f, "KT-1"),
      await createAsset(inventory, f, "KT-2"),
      await createAsset(inventory, f, "KT-3"),
    ];
    license = await created(inventory, "/licenses", {
      name: "Office",
      seats: 2,
      category_id: await category(inventory, "license", "Kit licenses"),
    });
    accessory = await created(inventory, "/accessories", {
      name: "Mouse",
      qty: 5,
      category_id: await category(inventory, "accessory", "Kit accessories"),
    });
    consumable = await created(inventory, "/consumables", {
      name: "Notebook",
      qty: 5,
      category_id: await category(inventory, "consumable", "Kit consumables"),
    });
    const kit = await created(inventory, "/kits", { name: "Laptop kit" });
    const added = await call("POST", `/kits/${kit}/models`, { model: f.modelId, quantity: 2 });
    assert.equal(added.body.status, "success");
    assert.equal(added.body.messages, "Model added successfull");
    assert.equal(added.body.payload.id, kit);
    assert.equal(
      (await call("POST", `/kits/${kit}/licenses`, { license, quantity: 0 })).body.status,
      "success",
    );
    assert.equal(
      (await call("POST", `/kits/${kit}/accessories`, { accessory, quantity: 2 })).body.status,
      "success",
    );
    assert.equal((await call("POST", `/kits/${kit}/consumables`, { consumable })).body.status, "success");

    const models = await call<List<Row>>("GET", `/kits/${kit}/models`);
    assert.deepEqual(models.body, {
      total: 1,
      rows: [
        {
          id: f.modelId,
          pivot_id: models.body.rows[0].pivot_id,
          owner_id: kit,
          quantity: 2,
          name: "kt X1",
          available_actions: { update: true, delete: true },
        },
      ],
    });
    assert.equal(
      (await call<List<Row>>("GET", `/kits/${kit}/licenses`)).body.rows[0].quantity,
      1,
      "below 1 is 1",
    );

    assert.deepEqual((await call("POST", `/kits/${kit}/licenses`, { license })).body.messages, {
      license: ["License already attached to kit"],
    });
    assert.deepEqual((await call("POST", `/kits/${kit}/accessories`, { accessory: 99999 })).body.messages, {
      accessory: ["The selected accessory is invalid."],
    });
    assert.deepEqual((await call("POST", `/kits/${kit}/consumables`, {})).body.messages, {
      consumable: ["The consumable field is required."],
    });
    assert.deepEqual(
      (await call("PUT", `/kits/${kit}/accessories/${accessory}`, { quantity: "many" })).body.messages,
      { quantity: ["The quantity field must be an integer."] },
    );
    assert.deepEqual(
      (await call("PATCH", `/kits/${kit}/accessories/${accessory}`, { quantity: 101 })).body.messages,
      {
        quantity: ["The quantity field must not be greater than 100."],
      },
    );
    assert.equal(
      (await call("POST", "/kits/99999/models", { model: f.modelId })).body.messages,
      "PredefinedKit not found",
    );

    const changed = await call("PUT", `/kits/${kit}/consumables/${consumable}`, { quantity: 3 });
    assert.equal(changed.body.messages, "Consumable updated successfully.");
    assert.equal((await call<List<Row>>("GET", `/kits/${kit}/consumables`)).body.rows[0].quantity, 3);

    const extra = await created(inventory, "/consumables", {
      name: "Pen",
      qty: 1,
      category_id: await category(inventory, "consumable", "Pens"),
    });
    await call("PATCH", `/kits/${kit}/consumables/${extra}`, { quantity: 1 });
    assert.equal(
      (await call<List>("GET", `/kits/${kit}/consumables`)).body.total,
      2,
      "an update attaches (Snipe-IT's sync)",
    );
    const detached = await call("DELETE", `/kits/${kit}/consumables/${extra}`);
    assert.equal(detached.body.messages, "Consumable removed successfully.");
    assert.equal((await call<List>("GET", `/kits/${kit}/consumables`)).body.total, 1);
    assert.equal((await call("DELETE", `/kits/${kit}/consumables/${extra}`)).body.status, "success");
  });

  test("checking a kit out gives the user every item, each logged as if checked out alone", async () => {
    const kit = (await call<List<Row>>("GET", "/kits?search=Laptop")).body.rows[0].id;
    const user = await person(inventory, "newhire");
    const answer = await call("POST", `/kits/${kit}/checkout`, { user_id: user, note: "welcome" });
    assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
    assert.equal(answer.body.messages, "Kit checked out successfully.");
    assert.deepEqual(
      (answer.body.payload.assets as Row[]).map((asset) => asset.asset_tag),
      ["KT-1", "KT-2"],
    );
    assert.deepEqual(await holdings(inventory, { assets, license, accessory, consumable }), {
      assets: [user, user, null],
      seats: 1,
      accessories: 2,
      consumables: 3,
    });
    for (const id of assets.slice(0, 2)) assert.equal(await logged(inventory, "asset", id, "checkout"), 1);
    assert.equal(await logged(inventory, "license", license, "checkout"), 1);
    assert.equal(await logged(inventory, "accessory", accessory, "checkout"), 1);
    assert.equal(await logged(inventory, "consumable", consumable, "checkout"), 1);
  });

  test("a kit whose last item cannot be checked out checks nothing out, and says which and why", async () => {
    const kit = (await call<List<Row>>("GET", "/kits?search=Laptop")).body.rows[0].id;
    await call("PUT", `/kits/${kit}/models/${f.modelId}`, { quantity: 1 });
    const before = await holdings(inventory, { assets, license, accessory, consumable });
    const user = await person(inventory, "second");
    // Two notebooks are left; the kit asks for three.
    const refused = await api<Envelope>(inventory, "POST", `/kits/${kit}/checkout`, {
      body: { user_id: user },
    });
    assert.equal(refused.status, 200);
    assert.deepEqual(refused.body, {
      status: "error",
      messages: "There are not enough available units of Notebook to checkout. 3 are required. ",
      payload: {
        kit,
        failed: [
          {
            type: "consumable",
            id: consumable,
            message: "There are not enough available units of Notebook to checkout. 3 are required. ",
          },
        ],
      },
    });
    assert.deepEqual(await holdings(inventory, { assets, license, accessory, consumable }), before);
    assert.equal(await logged(inventory, "asset", assets[2], "checkout"), 0);
    assert.equal(await logged(inventory, "license", license, "checkout"), 1);
    const strict = await api(inventory, "POST", `/kits/${kit}/checkout`, {
      body: { user_id: user },
      headers: STRICT,
    });
    assert.equal(strict.status, 409);

    await call("PUT", `/kits/${kit}/consumables/${consumable}`, { quantity: 2 });
    await call("PUT", `/kits/${kit}/licenses/${license}`, { quantity: 2 });
    const both = await call("POST", `/kits/${kit}/checkout`, { user_id: user });
    assert.deepEqual(both.body.payload, {
      kit,
      failed: [
        {
          type: "license",
          id: license,
          message: "There are not enough available seats for Office to checkout. 2 are required. ",
        },
      ],
    });
    assert.deepEqual(await holdings(inventory, { assets, license, accessory, consumable }), before);

    assert.deepEqual((await call("POST", `/kits/${kit}/checkout`, {})).body.messages, {
      user_id: ["The user id field is required."],
    });
    assert.equal(
      (await call("POST", `/kits/${kit}/checkout`, { user_id: 99999 })).body.messages,
      "User does not exist or you do not have permission view them.",
    );
    assert.equal(
      (await call("POST", "/kits/99999/checkout", { user_id: user })).body.messages,
      "PredefinedKit not found",
    );
    const spec = (await fetch(`${inventory.url}/api/v1/openapi.json`).then((res) => res.json())) as {
      paths: Record<
        string,
        { post?: { requestBody?: { content: Record<string, { schema: { required?: string[] } }> } } }
      >;
    };
    const documented =
      spec.paths["/api/v1/kits/{id}/checkout"].post?.requestBody?.content["application/json"].schema;
    assert.deepEqual(documented?.required, ["user_id"], "the check-out's body is documented");
  });

  test("kits racing for the last asset of a model: exactly one gets it, the others nothing", async () => {
    const lone = await created(inventory, "/models", { name: "Lone model", category_id: f.categoryId });
    const last = await created(inventory, "/hardware", {
      asset_tag: "KT-LAST",
      model_id: lone,
      status_id: f.deployable,
    });
    const cables = await created(inventory, "/accessories", {
      name: "Cable",
      qty: 50,
      category_id: await category(inventory, "accessory", "Race accessories"),
    });
    const kit = await created(inventory, "/kits", { name: "Race kit" });
    await call("POST", `/kits/${kit}/accessories`, { accessory: cables, quantity: 1 });
    await call("POST", `/kits/${kit}/models`, { model: lone, quantity: 1 });
    const users = await Promise.all(Array.from({ length: 8 }, (_, n) => person(inventory, `racer${n}`)));
    const answers = await Promise.all(
      users.map((user) => call("POST", `/kits/${kit}/checkout`, { user_id: user })),
    );
    assert.ok(answers.every((answer) => answer.status === 200));
    const winners = answers.filter((answer) => answer.body.status === "success");
    assert.equal(winners.length, 1);
    for (const loser of answers.filter((answer) => answer.body.status !== "success"))
      assert.equal(
        loser.body.messages,
        "There are not enough available assets for Lone model to checkout. 1 are required. ",
      );
    assert.equal(await logged(inventory, "asset", last, "checkout"), 1);
    assert.equal(
      (await call<List>("GET", `/accessories/${cables}/checkedout`)).body.total,
      1,
      "the losers' accessories rolled back",
    );
  });

  test("a kit holds at most 100 items of a kind, and at most 100 of each", async () => {
    const database = inventory.server.app.database;
    if (!database) throw new Error("no database");
    const kit = await created(inventory, "/kits", { name: "Full kit" });
    const kind = await category(inventory, "consumable", "Bulk consumables");
    const now = toStoredTime(new Date(), database.dialect);
    const ids = await database.db
      .insertInto("consumables")
      .values(
        Array.from({ length: 101 }, (_, n) => ({
          name: `Bulk ${n}`,
          category_id: kind,
          qty: 1,
          created_at: now,
          updated_at: now,
        })),
      )
      .returning("id")
      .execute();
    await database.db
      .insertInto("kits_consumables")
      .values(
        ids
          .slice(0, 100)
          .map(({ id }) => ({ kit_id: kit, consumable_id: id, created_at: now, updated_at: now })),
      )
      .execute();
    const last = ids[100].id;
    const expected = { consumable: ["A kit holds at most 100 consumables."] };
    assert.deepEqual(
      (await call("POST", `/kits/${kit}/consumables`, { consumable: last })).body.messages,
      expected,
    );
    assert.deepEqual(
      (await call("PUT", `/kits/${kit}/consumables/${last}`, { quantity: 1 })).body.messages,
      expected,
    );
    assert.equal((await call<List>("GET", `/kits/${kit}/consumables`)).body.total, 100);
  });

  test("permissions: kits.* for the kits, each kind's checkout permission for a check-out", async () => {
    const viewer = await userWithToken(inventory, "kit-viewer", {
      "kits.view": "1",
      "consumables.checkout": "1",
    });
    const kit = (await call<List<Row>>("GET", "/kits?search=Laptop")).body.rows[0].id;
    assert.equal((await call("GET", `/kits/${kit}/models`, undefined, viewer.token)).status, 200);
    assert.deepEqual(
      (await call<Row>("GET", `/kits/${kit}`, undefined, viewer.token)).body.available_actions,
      { update: false, delete: false, checkout: false },
    );
    assert.equal((await call("POST", "/kits", { name: "Mine" }, viewer.token)).status, 403);
    assert.equal((await call("PATCH", `/kits/${kit}`, { name: "Mine" }, viewer.token)).status, 403);
    assert.equal((await call("POST", `/kits/${kit}/models`, { model: f.modelId }, viewer.token)).status, 403);
    assert.equal(
      (await call("DELETE", `/kits/${kit}/models/${f.modelId}`, undefined, viewer.token)).status,
      403,
    );
    const user = await person(inventory, "third");
    assert.equal(
      (await call("POST", `/kits/${kit}/checkout`, { user_id: user }, viewer.token)).status,
      403,
      "the kit holds a model",
    );
    const onlyConsumables = await created(inventory, "/kits", { name: "Stationery" });
    await call("POST", `/kits/${onlyConsumables}/consumables`, { consumable, quantity: 1 });
    const ok = await call("POST", `/kits/${onlyConsumables}/checkout`, { user_id: user }, viewer.token);
    assert.equal(ok.body.status, "success", JSON.stringify(ok.body));
    const stranger = await userWithToken(inventory, "kit-stranger", { "consumables.checkout": "1" });
    assert.equal(
      (await call("POST", `/kits/${onlyConsumables}/checkout`, { user_id: user }, stranger.token)).status,
      403,
    );
    assert.equal((await call("GET", "/kits", undefined, stranger.token)).status, 403);
  });
});
