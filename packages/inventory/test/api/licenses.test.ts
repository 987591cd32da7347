import assert from "node:assert/strict";
import { test } from "node:test";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import {
  assetRow,
  category,
  created,
  type Envelope,
  type List,
  logged,
  person,
  STRICT,
} from "../support/items.ts";

type Seat = Record<string, unknown> & { id: number };

forEachInventory("inventory API: licenses and seats", (inventory) => {
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  const seatsOf = async (license: number, query = "") =>
    (await call<List<Seat>>("GET", `/licenses/${license}/seats${query}`)).body;
  let categoryId = 0;
  let userId = 0;
  let assetId = 0;

  test("create makes one seat per `seats`; the object and the seat object per spec", async () => {
    categoryId = await category(inventory, "license", "Office suites");
    userId = await person(inventory, "carol");
    assetId = await assetRow(inventory, "LIC-1");
    const made = await call("POST", "/licenses", {
      name: "Office 365",
      seats: 3,
      category_id: categoryId,
      serial: "KEY-123",
      purchase_cost: "99.5",
      expiration_date: "2030-01-01",
      license_email: "lic@example.com",
    });
    assert.equal(made.body.messages, "License created successfully.");
    const license = made.body.payload;
    assert.equal(license.seats, 3);
    assert.equal(license.free_seats_count, 3);
    assert.equal(license.remaining, 3);
    assert.equal(license.product_key, "KEY-123");
    assert.equal(license.purchase_cost, "99.50");
    assert.equal(license.purchase_cost_numeric, 99.5);
    assert.deepEqual(license.expiration_date, { date: "2030-01-01", formatted: "2030-01-01" });
    assert.equal(license.user_can_checkout, true);
    assert.equal(license.reassignable, true);
    assert.equal(license.maintained, false);
    assert.equal(license.deleted_at, null);
    const id = license.id as number;

    const seats = await seatsOf(id);
    assert.equal(seats.total, 3);
    const seat = seats.rows[0];
    assert.deepEqual(Object.keys(seat).sort(), [
      "assigned_asset",
      "assigned_user",
      "available_actions",
      "id",
      "license_id",
      "location",
      "notes",
      "reassignable",
      "updated_at",
      "user_can_checkout",
    ]);
    assert.equal(seat.license_id, id);
    assert.equal(seat.user_can_checkout, true);
    assert.equal(seat.assigned_user, null);

    const viewer = await userWithToken(inventory, "lic-viewer", { "licenses.view": "1" });
    const hidden = await call<Record<string, unknown>>("GET", `/licenses/${id}`, undefined, viewer.token);
    assert.equal(hidden.body.product_key, "------------");
    assert.equal(
      (await call<Record<string, unknown>>("GET", `/categories/${categoryId}`)).body.licenses_count,
      1,
    );
  });

  test("seat PATCH: checkout to a user or an asset, check-in with both null, notes without a log", async () => {
    const id = await created(inventory, "/licenses", { name: "Editor", seats: 2, category_id: categoryId });
    const [first, second] = (await seatsOf(id, "?order=asc")).rows;
    const out = await call<Envelope<Record<string, unknown>>>("PATCH", `/licenses/${id}/seats/${first.id}`, {
      assigned_to: userId,
    });
    assert.equal(out.body.status, "success");
    assert.equal(out.body.messages, "License updated successfully.");
    assert.equal(out.body.payload.assigned_to, userId);
    assert.equal(out.body.payload.license_id, id);
    assert.match(String(out.body.payload.updated_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    const shown = await call<Seat>("GET", `/licenses/${id}/seats/${first.id}`);
    assert.deepEqual((shown.body.assigned_user as Record<string, unknown>).name, "carol Tester");
    assert.equal(shown.body.user_can_checkout, false);
    assert.equal((await call<Record<string, unknown>>("GET", `/users/${userId}`)).body.licenses_count, 1);
    assert.equal((await call<Record<string, unknown>>("GET", `/licenses/${id}`)).body.free_seats_count, 1);

    const toAsset = await call("PUT", `/licenses/${id}/seats/${second.id}`, { asset_id: assetId });
    assert.equal(toAsset.body.status, "success");
    const assetSeat = await call<Seat>("GET", `/licenses/${id}/seats/${second.id}`);
    assert.deepEqual((assetSeat.body.assigned_asset as Record<string, unknown>).name, "Asset LIC-1");
    assert.equal(await logged(inventory, "license", id, "checkout"), 2);

    const notes = await call("PATCH", `/licenses/${id}/seats/${second.id}`, { notes: "keep" });
    assert.equal(notes.body.status, "success");
    assert.equal(await logged(inventory, "license", id, "checkout"), 2, "no change of holder, no entry");

    const refused = await call("DELETE", `/licenses/${id}`);
    assert.equal(
      refused.body.messages,
      "This license is currently checked out to a user and cannot be deleted. Please check the license in first, and then try deleting again. ",
    );
    const back = await call("PATCH", `/licenses/${id}/seats/${first.id}`, {
      assigned_to: null,
      asset_id: null,
    });
    assert.equal(back.body.status, "success");
    await call("PATCH", `/licenses/${id}/seats/${second.id}`, { assigned_to: null, asset_id: null });
    assert.equal(await logged(inventory, "license", id, "checkin from"), 2);
    assert.equal((await call("DELETE", `/licenses/${id}`)).body.status, "success");
    const deleted = await call<List<{ id: number }>>("GET", "/licenses?deleted=true");
    assert.deepEqual(
      deleted.body.rows.map((row) => row.id),
      [id],
    );
  });

  test("seat errors: target, seat, license; QUIRK re-assignment, refused in strict mode", async () => {
    const id = await created(inventory, "/licenses", { name: "Viewer", seats: 1, category_id: categoryId });
    const other = await created(inventory, "/licenses", { name: "Other", seats: 1, category_id: categoryId });
    const seat = (await seatsOf(id)).rows[0];
    const otherSeat = (await seatsOf(other)).rows[0];
    const errors: [string, unknown, string][] = [
      [`/licenses/${id}/seats/${seat.id}`, { assigned_to: 99999 }, "Target not found"],
      [`/licenses/${id}/seats/${seat.id}`, { asset_id: 99999 }, "Target not found"],
      [`/licenses/${id}/seats/99999`, { assigned_to: userId }, "Seat not found"],
      [
        `/licenses/${id}/seats/${otherSeat.id}`,
        { assigned_to: userId },
        "Seat does not belong to the specified license",
      ],
      [`/licenses/99999/seats/${seat.id}`, { assigned_to: userId }, "License not found"],
    ];
    for (const [path, body, message] of errors)
      assert.deepEqual((await call("PATCH", path, body)).body, {
        status: "error",
        messages: message,
        payload: null,
      });
    const bad = await call("PATCH", `/licenses/${id}/seats/${seat.id}`, { assigned_to: "someone" });
    assert.deepEqual(bad.body.messages, { assigned_to: ["The assigned to field must be an integer."] });

    await call("PATCH", `/licenses/${id}/seats/${seat.id}`, { assigned_to: userId });
    const dave = await person(inventory, "dave");
    const strict = await api<Envelope>(inventory, "PATCH", `/licenses/${id}/seats/${seat.id}`, {
      body: { assigned_to: dave },
      headers: STRICT,
    });
    assert.equal(strict.status, 409);
    const quirk = await call<Envelope<Record<string, unknown>>>("PATCH", `/licenses/${id}/seats/${seat.id}`, {
      assigned_to: dave,
    });
    assert.equal(quirk.body.status, "success");
    assert.equal(quirk.body.payload.assigned_to, dave);
  });

  test("seats follow `seats`: added, removed when free, refused when checked out", async () => {
    const id = await created(inventory, "/licenses", { name: "Scaling", seats: 2, category_id: categoryId });
    assert.equal((await call("PATCH", `/licenses/${id}`, { seats: 5 })).body.status, "success");
    assert.equal((await seatsOf(id)).total, 5);
    assert.equal(await logged(inventory, "license", id, "add seats"), 2, "on create and on update");
    const seats = (await seatsOf(id, "?order=asc")).rows;
    await call("PATCH", `/licenses/${id}/seats/${seats[3].id}`, { assigned_to: userId });
    await call("PATCH", `/licenses/${id}/seats/${seats[4].id}`, { asset_id: assetId });
    assert.equal((await call("PATCH", `/licenses/${id}`, { seats: 2 })).body.status, "success");
    const left = await seatsOf(id);
    assert.equal(left.total, 2);
    assert.deepEqual(
      left.rows.map((seat) => seat.id).sort((a, b) => a - b),
      [seats[3].id, seats[4].id],
      "free seats go first",
    );
    const refused = await call("PATCH", `/licenses/${id}`, { seats: 1 });
    assert.deepEqual(refused.body.messages, {
      seats: ["The seats field must be at least 2: that many seats are checked out. Check some in first."],
    });
    const license = await call<Record<string, unknown>>("GET", `/licenses/${id}`);
    assert.equal(license.body.seats, 2, "a refused change leaves the license as it was");
    assert.equal(license.body.free_seats_count, 0);

    const page = await seatsOf(id, "?limit=1&offset=5");
    assert.equal(page.total, 2);
    assert.equal(page.rows.length, 1, "QUIRK: an offset past the end starts over");
  });

  test("POST /licenses/{id}/checkout: first free seat, each seat once under concurrency", async () => {
    const id = await created(inventory, "/licenses", { name: "Race", seats: 3, category_id: categoryId });
    const answers = await Promise.all(
      Array.from({ length: 32 }, () =>
        call<Envelope<Seat>>("POST", `/licenses/${id}/checkout`, { assigned_to: userId }),
      ),
    );
    const won = answers.filter((answer) => answer.body.status === "success");
    assert.equal(won.length, 3);
    assert.equal(new Set(won.map((answer) => answer.body.payload.id)).size, 3);
    assert.ok(answers.every((answer) => answer.status === 200));
    const lost = answers.find((answer) => answer.body.status === "error");
    assert.equal(lost?.body.messages, "Not enough license seats available for checkout");
    assert.equal(await logged(inventory, "license", id, "checkout"), 3);
    const none = await call("POST", `/licenses/${id}/checkout`, {});
    assert.deepEqual(none.body.messages, {
      assigned_to: ["The assigned to field is required when asset id is not present."],
    });
  });

  test("validation, list filters, permissions, bad input never 500", async () => {
    const empty = await call("POST", "/licenses", { seats: 0 });
    assert.deepEqual(empty.body.messages, {
      name: ["The name field is required."],
      seats: ["The seats field must be at least 1."],
      category_id: ["The category id field is required."],
    });
    const depreciation = await created(inventory, "/depreciations", { name: "3 years", months: 36 });
    const needsDate = await call("POST", "/licenses", {
      name: "Depreciating",
      seats: 1,
      category_id: categoryId,
      depreciation_id: depreciation,
    });
    assert.deepEqual(needsDate.body.messages, {
      purchase_date: ["The purchase date field is required when depreciation id is present."],
    });
    await created(inventory, "/licenses", {
      name: "Maintained",
      seats: 1,
      category_id: categoryId,
      maintained: true,
      serial: "MKEY",
    });
    const maintained = await call<List<{ name: string }>>("GET", "/licenses?maintained=true");
    assert.deepEqual(
      maintained.body.rows.map((row) => row.name),
      ["Maintained"],
    );
    const byKey = await call<List<{ name: string }>>("GET", "/licenses?product_key=MKEY");
    assert.equal(byKey.body.total, 1);
    const expiring = await call<List<{ name: string }>>("GET", "/licenses?expires=true");
    assert.deepEqual(
      expiring.body.rows.map((row) => row.name),
      ["Office 365"],
    );
    const sorted = await call<List<{ name: string }>>("GET", "/licenses?sort=name&order=asc");
    const names = sorted.body.rows.map((row) => row.name);
    assert.deepEqual(names, [...names].sort());
    assert.equal((await call<List>("GET", "/licenses?sort=name&order=asc&limit=2")).body.rows.length, 2);

    const viewer = await userWithToken(inventory, "lic-reader", { "licenses.view": "1" });
    const license = (await call<List<{ id: number }>>("GET", "/licenses?search=Maintained")).body.rows[0].id;
    const seat = (await seatsOf(license)).rows[0];
    assert.equal(
      (await call("PATCH", `/licenses/${license}/seats/${seat.id}`, { assigned_to: userId }, viewer.token))
        .status,
      403,
    );
    assert.equal(
      (await call("POST", `/licenses/${license}/checkout`, { assigned_to: userId }, viewer.token)).status,
      403,
    );
    assert.equal((await call("GET", `/licenses/${license}/seats`, undefined, viewer.token)).status, 200);
    for (const [method, path, body] of [
      ["PATCH", `/licenses/${license}/seats/abc`, { assigned_to: userId }],
      ["GET", "/licenses/abc/seats", undefined],
      ["POST", "/licenses/abc/checkout", [1]],
      ["PATCH", `/licenses/${license}`, { seats: "many" }],
      ["POST", "/licenses", { name: "Huge", seats: 10_000_000, category_id: categoryId }],
    ] as const)
      assert.equal((await call(method, path, body)).status, 200, `${method} ${path}`);
  });
});
