import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { category, created, person } from "../support/items.ts";

type Row = Record<string, unknown> & { id: number };

forEachInventory("inventory API: hardware filter, components, holdings, seat release", (inventory) => {
  let f: AssetFixture;
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  const list = async (query: string) => (await call<List<Row>>("GET", `/hardware?${query}`)).body;
  const tagsOf = (page: List<Row>) => page.rows.map((row) => row.asset_tag).sort();
  /** The fixture's assets only, so other tests' assets never count. */
  const ofModel = () => `model_id=${f.modelId}`;
  const filter = (value: unknown) => `filter=${encodeURIComponent(JSON.stringify(value))}`;
  const seatsOf = async (license: number) =>
    (await call<List<Row>>("GET", `/licenses/${license}/seats`)).body.rows.sort((a, b) => a.id - b.id);
  const db = () => {
    const database = inventory.server.app.database;
    if (!database) throw new Error("no database");
    return database.db;
  };

  /** HX-1, HX-2, HX-3 by number. */
  const hx: number[] = [];

  test("fixture", async () => {
    f = await assetFixture(inventory, "hx");
    hx[1] = await createAsset(inventory, f, "HX-1", { name: "Alpha laptop", serial: "S-ALPHA" });
    hx[2] = await createAsset(inventory, f, "HX-2", {
      name: "Beta desktop",
      serial: "S-BETA",
      rtd_location_id: f.locationId,
    });
    hx[3] = await createAsset(inventory, f, "HX-3", { name: "Gamma 100%" });
  });

  test("filter: each column contains its text, columns combine, relations by name", async () => {
    assert.deepEqual(tagsOf(await list(`${ofModel()}&${filter({ name: "ALPHA" })}`)), ["HX-1"]);
    assert.deepEqual(tagsOf(await list(`${ofModel()}&${filter({ name: "a", serial: "beta" })}`)), ["HX-2"]);
    assert.deepEqual(tagsOf(await list(`${ofModel()}&${filter({ location: "hx HQ" })}`)), ["HX-2"]);
    assert.deepEqual(tagsOf(await list(`${ofModel()}&${filter({ model: "hx X1" })}`)), [
      "HX-1",
      "HX-2",
      "HX-3",
    ]);
    assert.deepEqual(
      tagsOf(await list(`${ofModel()}&${filter({ "custom_fields.name": "alpha" })}`)),
      ["HX-1"],
      "Snipe-IT's custom_fields. prefix",
    );
    assert.deepEqual(
      tagsOf(await list(`${ofModel()}&${filter({ asset_tag: 3 })}`)),
      ["HX-3"],
      "numbers as text",
    );
    assert.deepEqual(tagsOf(await list(`${ofModel()}&${filter({ name: "100%" })}`)), ["HX-3"]);
    assert.equal(
      (await list(`${ofModel()}&${filter({ name: "%" })}`)).total,
      1,
      "% is a character, not a wildcard",
    );
    const total = await call<List>("GET", `/hardware?${ofModel()}&${filter({ name: "Alpha" })}`);
    assert.equal(total.headers.get("x-total-count"), "1");
  });

  test("filter replaces search; unknown columns never reach the query", async () => {
    assert.deepEqual(
      tagsOf(await list(`${ofModel()}&search=Beta&${filter({ name: "Alpha" })}`)),
      ["HX-1"],
      "search ignored when a filter is given",
    );
    assert.deepEqual(
      tagsOf(await list(`${ofModel()}&search=Beta&${filter({ bogus: "x" })}`)),
      ["HX-1", "HX-2", "HX-3"],
      "a filter of unknown columns filters nothing, and search is still ignored",
    );
    const injected = await list(
      `${ofModel()}&${filter({ "name) or 1=1 --": "x", name: "'; drop table assets; --" })}`,
    );
    assert.equal(injected.total, 0, "the value is text to look for");
    assert.equal((await list(ofModel())).total, 3, "the table is still there");
    assert.deepEqual(
      tagsOf(await list(`${ofModel()}&${filter({ name: null, serial: ["S-ALPHA"], notes: { a: 1 } })}`)),
      ["HX-1", "HX-2", "HX-3"],
      "values that are not text are not filtered by",
    );
  });

  test("a malformed filter is no filter, as Snipe-IT's json_decode null: search applies, never a 500", async () => {
    for (const bad of ["{not json", "[1,2]", '"Alpha"', "{}", "null", "", "1e999"]) {
      const answer = await call<List<Row>>(
        "GET",
        `/hardware?${ofModel()}&search=Beta&filter=${encodeURIComponent(bad)}`,
      );
      assert.equal(answer.status, 200, bad);
      assert.deepEqual(tagsOf(answer.body), ["HX-2"], `filter=${bad}`);
    }
    const twice = await call<List<Row>>("GET", `/hardware?${ofModel()}&search=Beta&filter=a&filter=b`);
    assert.equal(twice.status, 200);
    assert.deepEqual(tagsOf(twice.body), ["HX-2"]);
  });

  test("NULLs sort first ascending and last descending, on every database", async () => {
    const ascending = (await list(`${ofModel()}&sort=serial&order=asc`)).rows.map((row) => row.asset_tag);
    assert.deepEqual(ascending, ["HX-3", "HX-1", "HX-2"]);
    const descending = (await list(`${ofModel()}&sort=serial&order=desc`)).rows.map((row) => row.asset_tag);
    assert.deepEqual(descending, ["HX-2", "HX-1", "HX-3"]);
    const byLocation = (await list(`${ofModel()}&sort=location&order=asc`)).rows.map((row) => row.asset_tag);
    assert.equal(byLocation[2], "HX-2", "no location sorts before a named one");
    await created(inventory, "/locations", { name: "hx Nowhere" });
    await created(inventory, "/locations", { name: "hx Town", city: "Aachen" });
    const cities = (await call<List<Row>>("GET", "/locations?search=hx&sort=city&order=asc")).body.rows;
    assert.equal(cities.at(-1)?.city, "Aachen", "resource lists too");
    const citiesDown = (await call<List<Row>>("GET", "/locations?search=hx&sort=city&order=desc")).body.rows;
    assert.equal(citiesDown[0].city, "Aachen");
  });

  let componentId = 0;
  test("components=true embeds each asset's components, on list, show and by tag", async () => {
    const ram = await category(inventory, "component", "hx RAM");
    componentId = await created(inventory, "/components", {
      name: "DIMM <8GB>",
      qty: 10,
      category_id: ram,
      purchase_cost: "12.5",
    });
    const cpu = await created(inventory, "/components", { name: "CPU", qty: 2, category_id: ram });
    for (const [component, asset, qty] of [
      [componentId, hx[1], 2],
      [componentId, hx[1], 1],
      [cpu, hx[2], 1],
    ])
      assert.equal(
        (await call("POST", `/components/${component}/checkout`, { assigned_to: asset, assigned_qty: qty }))
          .body.status,
        "success",
      );

    const page = await list(`${ofModel()}&sort=asset_tag&order=asc&components=true`);
    const [first, second, third] = page.rows;
    const parts = first.components as Row[];
    assert.equal(parts.length, 2, "one entry per check-out");
    assert.deepEqual(Object.keys(parts[0]).sort(), [
      "checkout_date",
      "id",
      "name",
      "pivot_id",
      "price_cost",
      "purchase_total",
      "qty",
    ]);
    assert.equal(parts[0].id, componentId);
    assert.equal(parts[0].name, "DIMM &lt;8GB&gt;");
    assert.equal(parts[0].qty, 2);
    assert.equal(parts[0].price_cost, "12.50");
    assert.equal(parts[0].purchase_total, 25);
    assert.match(
      String((parts[0].checkout_date as { datetime: string }).datetime),
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    );
    assert.notEqual(parts[0].pivot_id, parts[1].pivot_id);
    assert.deepEqual(second.components, [
      {
        id: cpu,
        pivot_id: (second.components as Row[])[0].pivot_id,
        name: "CPU",
        qty: 1,
        price_cost: null,
        purchase_total: 0,
        checkout_date: (second.components as Row[])[0].checkout_date,
      },
    ]);
    assert.deepEqual(third.components, [], "an asset without components has an empty list");

    const pivots = await call<List<Row>>("GET", `/components/${componentId}/assets`);
    assert.deepEqual(
      parts.map((part) => part.pivot_id).sort(),
      pivots.body.rows.map((row) => row.assigned_pivot_id).sort(),
      "pivot_id is what the component check-in takes",
    );

    assert.equal("components" in (await list(ofModel())).rows[0], false, "only when asked");
    assert.equal("components" in (await list(`${ofModel()}&components=1`)).rows[0], false, "only for true");
    const shown = await call<Row>("GET", `/hardware/${hx[1]}?components=true`);
    assert.equal((shown.body.components as Row[]).length, 2);
    assert.equal("components" in (await call<Row>("GET", `/hardware/${hx[1]}`)).body, false);
    const byTag = await call<Row>("GET", "/hardware/bytag/HX-1?components=true");
    assert.equal((byTag.body.components as Row[]).length, 2);
  });

  let licenseA = 0;
  let licenseB = 0;
  let userId = 0;
  let assetId = 0;
  test("GET /hardware/{id}/licenses: the licenses of the asset's seats", async () => {
    const suites = await category(inventory, "license", "hx suites");
    licenseA = await created(inventory, "/licenses", { name: "hx Office", seats: 3, category_id: suites });
    licenseB = await created(inventory, "/licenses", { name: "hx Editor", seats: 1, category_id: suites });
    userId = await person(inventory, "hxuser");
    assetId = await createAsset(inventory, f, "HX-LIC", { assigned_user: userId });
    const [seatA1, seatA2] = await seatsOf(licenseA);
    const [seatB] = await seatsOf(licenseB);
    for (const [license, seat, body] of [
      [licenseA, seatA1.id, { asset_id: assetId, assigned_to: userId }],
      [licenseA, seatA2.id, { asset_id: assetId }],
      [licenseB, seatB.id, { assigned_to: userId }],
    ] as const)
      assert.equal((await call("PATCH", `/licenses/${license}/seats/${seat}`, body)).body.status, "success");

    const held = await call<List<Row>>("GET", `/hardware/${assetId}/licenses`);
    assert.equal(held.status, 200);
    assert.equal(held.body.total, 2, "one row per seat, as Snipe-IT's relation lists them");
    assert.deepEqual(
      held.body.rows.map((row) => row.id),
      [licenseA, licenseA],
    );
    const shown = (await call<Row>("GET", `/licenses/${licenseA}`)).body;
    assert.deepEqual(Object.keys(held.body.rows[0]).sort(), Object.keys(shown).sort(), "license objects");
    assert.equal(held.body.rows[0].free_seats_count, 1);

    const mine = await call<List<Row>>("GET", `/users/${userId}/licenses`);
    assert.deepEqual(
      mine.body.rows.map((row) => row.id),
      [licenseA, licenseB],
    );

    for (const bad of ["999999", "abc", "-1"])
      assert.deepEqual((await call("GET", `/hardware/${bad}/licenses`)).body, {
        status: "error",
        messages: "Asset does not exist.",
        payload: null,
      });
    const assetsOnly = await userWithToken(inventory, "hx-assets-only", { "assets.view": "1" });
    const denied = await call("GET", `/hardware/${assetId}/licenses`, undefined, assetsOnly.token);
    assert.equal(denied.status, 403);
  });

  test("check-in releases the seats the asset's user got through it, in the same transaction", async () => {
    const already = await call("POST", `/hardware/${hx[1]}/checkin`, {});
    assert.equal(already.body.messages, "That asset is already checked in.");

    const checkin = await call("POST", `/hardware/${assetId}/checkin`, { note: "back" });
    assert.equal(checkin.body.status, "success");
    const [seatA1, seatA2] = await seatsOf(licenseA);
    assert.equal(seatA1.assigned_user, null, "the user lost the seat");
    assert.equal((seatA1.assigned_asset as Row).id, assetId, "the asset keeps it");
    assert.equal((seatA2.assigned_asset as Row).id, assetId);
    const [seatB] = await seatsOf(licenseB);
    assert.equal((seatB.assigned_user as Row).id, userId, "a seat given to the user directly stays theirs");
    const entries = await db()
      .selectFrom("action_logs")
      .selectAll()
      .where("item_type", "=", "license")
      .where("item_id", "=", licenseA)
      .where("action_type", "=", "checkin from")
      .execute();
    assert.equal(entries.length, 1);
    assert.equal(entries[0].target_type, "user");
    assert.equal(Number(entries[0].target_id), userId);
    assert.equal((await call<List<Row>>("GET", `/users/${userId}/licenses`)).body.total, 1);
  });

  test("delete frees every seat of the asset; the license counts them free again", async () => {
    const out = await call("POST", `/hardware/${assetId}/checkout`, {
      checkout_to_type: "user",
      assigned_user: userId,
    });
    assert.equal(out.body.status, "success");
    const deleted = await call("DELETE", `/hardware/${assetId}`);
    assert.equal(deleted.body.messages, "The asset was deleted successfully.");
    const seats = await seatsOf(licenseA);
    assert.ok(seats.every((seat) => seat.assigned_asset === null && seat.assigned_user === null));
    assert.equal((await call<Row>("GET", `/licenses/${licenseA}`)).body.free_seats_count, 3);
    const held = await call<List<Row>>("GET", `/hardware/${assetId}/licenses`);
    assert.equal(held.body.total, 0, "a deleted asset is still readable, and holds nothing");
    const fromAsset = await db()
      .selectFrom("action_logs")
      .select("id")
      .where("item_type", "=", "license")
      .where("target_type", "=", "asset")
      .where("target_id", "=", assetId)
      .where("action_type", "=", "checkin from")
      .execute();
    assert.equal(fromAsset.length, 2);
  });

  test("accessories and assets checked out to an asset or a location", async () => {
    const first = { id: hx[1] };
    const keyboards = await category(inventory, "accessory", "hx keyboards");
    const accessory = await created(inventory, "/accessories", {
      name: "hx Keyboard",
      qty: 5,
      category_id: keyboards,
    });
    const toAsset = await call("POST", `/accessories/${accessory}/checkout`, {
      checkout_to_type: "asset",
      assigned_asset: first.id,
      checkout_qty: 2,
      note: "<desk>",
    });
    assert.equal(toAsset.body.status, "success");
    const assigned = await call<List<Row>>("GET", `/hardware/${first.id}/assigned/accessories`);
    assert.equal(assigned.body.total, 2);
    const row = assigned.body.rows[0];
    assert.deepEqual(Object.keys(row).sort(), [
      "accessory",
      "available_actions",
      "created_at",
      "created_by",
      "id",
      "image",
      "note",
    ]);
    assert.deepEqual(row.accessory, { id: accessory, name: "hx Keyboard" });
    assert.equal(row.note, "&lt;desk&gt;");
    assert.deepEqual(row.created_by, { id: 1, name: "Admin" });
    assert.deepEqual(row.available_actions, { checkout: false, checkin: true });
    const paged = await call<List<Row>>("GET", `/hardware/${first.id}/assigned/accessories?limit=1&offset=1`);
    assert.equal(paged.body.total, 2);
    assert.deepEqual(
      paged.body.rows.map((r) => r.id),
      [assigned.body.rows[1].id],
    );
    const back = await call("POST", `/accessories/${row.id}/checkin`, {});
    assert.equal(back.body.status, "success", "the row id is the check-out's");
    assert.equal((await call<List<Row>>("GET", `/hardware/${first.id}/assigned/accessories`)).body.total, 1);

    assert.deepEqual(
      (await call("GET", `/hardware/${first.id}/assigned/assets`)).body,
      [],
      "QUIRK: a stub upstream",
    );
    for (const path of ["assigned/accessories", "assigned/assets"])
      assert.deepEqual((await call("GET", `/hardware/999999/${path}`)).body, {
        status: "error",
        messages: "Asset not found",
        payload: null,
      });

    const toLocation = await call("POST", `/accessories/${accessory}/checkout`, {
      checkout_to_type: "location",
      assigned_location: f.otherLocationId,
    });
    assert.equal(toLocation.body.status, "success");
    const atLocation = await call<List<Row>>("GET", `/locations/${f.otherLocationId}/assigned/accessories`);
    assert.equal(atLocation.body.total, 1);
    assert.deepEqual(atLocation.body.rows[0].accessory, { id: accessory, name: "hx Keyboard" });

    const archivedOut = await createAsset(inventory, f, "HX-LOC", { assigned_location: f.otherLocationId });
    await call("PATCH", `/hardware/${archivedOut}`, { status_id: f.archived });
    const assignedAssets = await call<List<Row>>("GET", `/locations/${f.otherLocationId}/assigned/assets`);
    assert.deepEqual(
      assignedAssets.body.rows.map((r) => r.asset_tag),
      ["HX-LOC"],
      "asset objects, archived ones too",
    );
    const located = await call<List<Row>>("GET", `/locations/${f.locationId}/assets`);
    assert.deepEqual(tagsOf(located.body), ["HX-2"], "assets whose current location it is");
    const people = await call<List<Row>>("GET", `/locations/${f.locationId}/users`);
    assert.deepEqual(
      people.body.rows.map((r) => r.username),
      ["hxholder"],
    );
    for (const path of ["users", "assets", "assigned/assets", "assigned/accessories"])
      assert.deepEqual((await call("GET", `/locations/999999/${path}`)).body, {
        status: "error",
        messages: "Location not found",
        payload: null,
      });
  });

  test("a user's assets (filters category_id, model_id), accessories and permissions", async () => {
    const other = await assetFixture(inventory, "hy");
    const mine = await createAsset(inventory, f, "HX-U1", { assigned_user: f.userId });
    await createAsset(inventory, other, "HY-U2", { assigned_user: f.userId });
    const all = await call<List<Row>>("GET", `/users/${f.userId}/assets`);
    assert.deepEqual(tagsOf(all.body), ["HX-U1", "HY-U2"]);
    assert.equal(all.body.rows[0].asset_tag !== undefined, true, "asset objects");
    const byModel = await call<List<Row>>("GET", `/users/${f.userId}/assets?model_id=${f.modelId}`);
    assert.deepEqual(
      byModel.body.rows.map((r) => r.id),
      [mine],
    );
    const byCategory = await call<List<Row>>(
      "GET",
      `/users/${f.userId}/assets?category_id=${other.categoryId}`,
    );
    assert.deepEqual(tagsOf(byCategory.body), ["HY-U2"]);
    const badFilter = await call<List<Row>>("GET", `/users/${f.userId}/assets?model_id=abc`);
    assert.equal(badFilter.status, 200);
    assert.equal(badFilter.body.total, 0);

    const mice = await category(inventory, "accessory", "hx mice");
    const mouse = await created(inventory, "/accessories", { name: "hx Mouse", qty: 3, category_id: mice });
    await call("POST", `/accessories/${mouse}/checkout`, { assigned_user: f.userId, checkout_qty: 2 });
    const accessories = await call<List<Row>>("GET", `/users/${f.userId}/accessories`);
    assert.equal(accessories.body.total, 2, "one per unit");
    const shown = (await call<Row>("GET", `/accessories/${mouse}`)).body;
    assert.deepEqual(
      Object.keys(accessories.body.rows[0]).sort(),
      Object.keys(shown).sort(),
      "accessory objects",
    );

    for (const path of ["assets", "accessories", "licenses"])
      assert.deepEqual((await call("GET", `/users/999999/${path}`)).body, {
        status: "error",
        messages: "User not found",
        payload: null,
      });
    const usersOnly = await userWithToken(inventory, "hx-users-only", { "users.view": "1" });
    for (const path of ["assets", "accessories", "licenses"])
      assert.equal((await call("GET", `/users/${f.userId}/${path}`, undefined, usersOnly.token)).status, 403);
    const huge = await call<List<Row>>("GET", `/users/${f.userId}/accessories?offset=99999&limit=-3`);
    assert.equal(huge.status, 200);
    assert.deepEqual(huge.body, { total: 2, rows: [] });
  });

  test("a location's manager is the full user object", async () => {
    const manager = await person(inventory, "hxmanager");
    const location = await created(inventory, "/locations", { name: "hx Managed", manager_id: manager });
    const shown = (await call<Row>("GET", `/locations/${location}`)).body;
    const user = (await call<Row>("GET", `/users/${manager}`)).body;
    assert.deepEqual(shown.manager, user);
    const listed = (await call<List<Row>>("GET", "/locations?search=hx Managed")).body.rows[0];
    assert.deepEqual(listed.manager, user);
    assert.equal((await call<Row>("GET", `/locations/${f.locationId}`)).body.manager, null);
  });

  test("the activity report names each entry's location and its item's serial", async () => {
    const first = { id: hx[1] };
    const out = await call("POST", `/hardware/${first.id}/checkout`, {
      checkout_to_type: "location",
      assigned_location: f.locationId,
    });
    assert.equal(out.body.status, "success");
    const report = await call<List<Row>>(
      "GET",
      `/reports/activity?item_type=asset&item_id=${first.id}&action_type=checkout`,
    );
    const [entry] = report.body.rows;
    assert.deepEqual(entry.location, { id: f.locationId, name: "hx HQ" });
    assert.deepEqual(entry.item, { id: first.id, name: "Alpha laptop", type: "asset", serial: "S-ALPHA" });
    const creation = await call<List<Row>>(
      "GET",
      `/reports/activity?item_type=asset&item_id=${first.id}&action_type=create`,
    );
    assert.equal(creation.body.rows[0].location, null, "entries without a location");
  });
});
