import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

type Asset = Record<string, unknown> & { id: number };

forEachInventory("inventory API: asset check-out and check-in", (inventory) => {
  let f: AssetFixture;
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  const asset = async (id: number) => (await call<Asset>("GET", `/hardware/${id}`)).body;
  const log = async (id: number) =>
    (await call<List>("GET", `/reports/activity?item_type=asset&item_id=${id}`)).body.rows;

  test("fixture", async () => {
    f = await assetFixture(inventory, "co");
  });

  test("check-out to a user: location follows, counters, log attributed to the caller; then check-in", async () => {
    const clerk = await userWithToken(inventory, "co-clerk", {
      "assets.checkout": "1",
      "assets.checkin": "1",
      "assets.view": "1",
    });
    const id = await createAsset(inventory, f, "CO-1", { rtd_location_id: f.otherLocationId });
    const out = await call(
      "POST",
      `/hardware/${id}/checkout`,
      {
        checkout_to_type: "user",
        assigned_user: f.userId,
        note: "for the trip",
        expected_checkin: "2031-05-01",
        checkout_at: "2030-01-02 10:00:00",
        name: "Trip laptop",
      },
      clerk.token,
    );
    assert.deepEqual(out.body, {
      status: "success",
      messages: "Asset checked out successfully.",
      payload: { asset: "CO-1" },
    });
    const held = await asset(id);
    assert.deepEqual(held.assigned_to, {
      id: f.userId,
      username: "coholder",
      name: "coFirst Holder",
      first_name: "coFirst",
      last_name: "Holder",
      email: null,
      employee_number: null,
      type: "user",
    });
    assert.deepEqual(held.location, { id: f.locationId, name: "co HQ" }, "the user's location");
    assert.deepEqual(held.rtd_location, { id: f.otherLocationId, name: "co Branch" });
    assert.equal((held.status_label as Record<string, unknown>).status_meta, "deployed");
    assert.equal(held.checkout_counter, 1);
    assert.equal(held.name, "Trip laptop");
    assert.deepEqual(held.expected_checkin, { date: "2031-05-01", formatted: "2031-05-01" });
    assert.equal((held.last_checkout as { datetime: string }).datetime, "2030-01-02 10:00:00");
    assert.equal(held.user_can_checkout, false);
    const [entry] = await log(id);
    assert.equal(entry.action_type, "checkout");
    assert.equal(entry.note, "for the trip");
    assert.deepEqual(entry.target, { id: f.userId, name: "coFirst Holder", type: "user" });
    assert.equal((entry.created_by as { id: number }).id, clerk.id);

    const again = await call("POST", `/hardware/${id}/checkout`, {
      checkout_to_type: "location",
      assigned_location: f.locationId,
    });
    assert.deepEqual(again.body, {
      status: "error",
      messages: "That asset is not available for checkout!",
      payload: { asset: "CO-1" },
    });

    const back = await call(
      "POST",
      `/hardware/${id}/checkin`,
      { note: "returned", checkin_at: "2030-02-03" },
      clerk.token,
    );
    assert.deepEqual(back.body, {
      status: "success",
      messages: "Asset checked in successfully.",
      payload: { asset_tag: "CO-1", model: "co X1", model_number: "co-MN" },
    });
    const returned = await asset(id);
    assert.equal(returned.assigned_to, null);
    assert.deepEqual(returned.location, { id: f.otherLocationId, name: "co Branch" }, "back to its default");
    assert.equal(returned.expected_checkin, null);
    assert.equal(returned.checkin_counter, 1);
    assert.match((returned.last_checkin as { datetime: string }).datetime, /^2030-02-03 /);
    const [checkin] = await log(id);
    assert.equal(checkin.action_type, "checkin from");
    assert.deepEqual(checkin.target, { id: f.userId, name: "coFirst Holder", type: "user" });
    assert.equal(checkin.note, "returned");

    assert.deepEqual((await call("POST", `/hardware/${id}/checkin`, {})).body, {
      status: "error",
      messages: "That asset is already checked in.",
      payload: { asset_tag: "CO-1", model: "co X1", model_number: "co-MN" },
    });
  });

  test("check-out to a location and to an asset; nested assets move with their holder", async () => {
    const laptop = await createAsset(inventory, f, "CO-LAP");
    const dock = await createAsset(inventory, f, "CO-DOCK");
    const toLaptop = await call("POST", `/hardware/${dock}/checkout`, {
      checkout_to_type: "asset",
      assigned_asset: laptop,
    });
    assert.equal(toLaptop.body.status, "success");
    assert.deepEqual((await asset(dock)).assigned_to, { id: laptop, name: "CO-LAP", type: "asset" });
    assert.equal((await asset(dock)).location, null, "the laptop has no location yet");
    const toBranch = await call("POST", `/hardware/${laptop}/checkout`, {
      checkout_to_type: "location",
      assigned_location: f.otherLocationId,
    });
    assert.equal(toBranch.body.status, "success");
    assert.deepEqual((await asset(laptop)).assigned_to, {
      id: f.otherLocationId,
      name: "co Branch",
      type: "location",
    });
    assert.deepEqual(
      (await asset(dock)).location,
      { id: f.otherLocationId, name: "co Branch" },
      "moved along",
    );
    const location = await call<Record<string, unknown>>("GET", `/locations/${f.otherLocationId}`);
    assert.equal(location.body.assigned_assets_count, 1);
  });

  test("refusals: own target, missing target, undeployable labels, validation, unknown asset", async () => {
    const id = await createAsset(inventory, f, "CO-REF");
    assert.deepEqual(
      (await call("POST", `/hardware/${id}/checkout`, { checkout_to_type: "asset", assigned_asset: id }))
        .body,
      {
        status: "error",
        messages: "Checkout target for asset CO-REF is invalid - asset does not exist.",
        payload: { asset: { id, asset_tag: "CO-REF" }, target_id: id, target_type: "asset" },
      },
    );
    const missing = await call("POST", `/hardware/${id}/checkout`, {
      checkout_to_type: "user",
      assigned_user: 99999,
    });
    assert.equal(missing.body.messages, "Checkout target for asset CO-REF is invalid - user does not exist.");
    for (const label of [f.pending, f.archived, f.undeployable]) {
      const other = await createAsset(inventory, f, `CO-LBL-${label}`, { status_id: label });
      const refused = await call("POST", `/hardware/${other}/checkout`, {
        checkout_to_type: "user",
        assigned_user: f.userId,
      });
      assert.deepEqual(refused.body, {
        status: "error",
        messages: "That asset is not available for checkout!",
        payload: { asset: `CO-LBL-${label}` },
      });
      assert.equal((await asset(other)).user_can_checkout, false);
    }
    assert.deepEqual((await call("POST", `/hardware/${id}/checkout`, {})).body.messages, {
      checkout_to_type: ["The checkout to type field is required."],
    });
    assert.deepEqual(
      (await call("POST", `/hardware/${id}/checkout`, { checkout_to_type: "user", note: ["x"] })).body
        .messages,
      {
        assigned_user: ["The assigned user field is required when checkout to type is user."],
        note: ["The note field must be a string."],
      },
    );
    assert.deepEqual(
      (await call("POST", `/hardware/${id}/checkout`, { checkout_to_type: "robot", assigned_user: f.userId }))
        .body.messages,
      { checkout_to_type: ["The selected checkout to type is invalid."] },
    );
    const badStatus = await call("POST", `/hardware/${id}/checkout`, {
      checkout_to_type: "user",
      assigned_user: f.userId,
      status_id: f.pending,
      checkout_at: "yesterday-ish",
    });
    assert.deepEqual(badStatus.body.messages, {
      checkout_at: ["The checkout at field must be a valid date."],
      status_id: ["The selected status id is invalid."],
    });
    assert.equal((await asset(id)).assigned_to, null, "nothing written by refusals");
    assert.equal((await asset(id)).checkout_counter, 0);
    assert.deepEqual((await call("POST", "/hardware/99999/checkout", { checkout_to_type: "user" })).body, {
      status: "error",
      messages: "Asset not found",
      payload: null,
    });
    assert.equal(
      (await call<Envelope>("POST", "/hardware/99999/checkin", {})).body.messages,
      "Asset not found",
    );
    const badCheckin = await call("POST", `/hardware/${id}/checkin`, { checkin_at: "not a date" });
    assert.equal(badCheckin.body.status, "error");
    const strict = await api(inventory, "POST", `/hardware/${id}/checkout`, {
      body: { checkout_to_type: "asset", assigned_asset: id },
      headers: { "x-api-strict-status": "1" },
    });
    assert.equal(strict.status, 409);
  });

  test("a null status_id (a form's empty choice) keeps the asset's label, rather than failing", async () => {
    const id = await createAsset(inventory, f, "CO-NULL-LABEL");
    const out = await call<Envelope>("POST", `/hardware/${id}/checkout`, {
      checkout_to_type: "user",
      assigned_user: f.userId,
      status_id: null,
    });
    assert.equal(out.status, 200);
    assert.equal(out.body.status, "success", JSON.stringify(out.body));
    type Held = { assigned_to: { id: number }; status_label: { id: number } };
    const after = (await call<Held>("GET", `/hardware/${id}`)).body;
    assert.equal(after.assigned_to.id, f.userId);
    assert.equal(after.status_label.id, f.deployable);
  });

  test("by tag: check-out and check-in with tags containing /, and checkinbytag", async () => {
    const id = await createAsset(inventory, f, "CO/TAG/1");
    const out = await call("POST", "/hardware/bytag/CO/TAG/1/checkout", {
      checkout_to_type: "location",
      assigned_location: f.locationId,
    });
    assert.deepEqual(out.body.payload, { asset: "CO/TAG/1" });
    assert.deepEqual((await asset(id)).location, { id: f.locationId, name: "co HQ" });
    const back = await call("POST", "/hardware/bytag/CO/TAG/1/checkin", {});
    assert.equal(back.body.messages, "Asset checked in successfully.");
    await call("POST", `/hardware/${id}/checkout`, { checkout_to_type: "user", assigned_user: f.userId });
    const byBody = await call("POST", "/hardware/checkinbytag", { asset_tag: "CO/TAG/1" });
    assert.equal(byBody.body.messages, "Asset checked in successfully.");
    assert.equal(
      (await call<Envelope>("POST", "/hardware/bytag/NOPE/checkout", {})).body.messages,
      "Asset not found",
    );
    assert.equal(
      (await call<Envelope>("POST", "/hardware/bytag/NOPE/checkin", {})).body.messages,
      "Asset with tag NOPE not found",
    );
    assert.equal(
      (await call<Envelope>("POST", "/hardware/checkinbytag", { asset_tag: "NOPE" })).body.messages,
      "Asset with tag NOPE not found",
    );
  });

  test("create and update with assigned_user check out; assigned_to sets the holder directly", async () => {
    const created = await call<Envelope<Record<string, unknown>>>("POST", "/hardware", {
      asset_tag: "CO-NEW",
      model_id: f.modelId,
      status_id: f.deployable,
      assigned_user: f.userId,
    });
    assert.equal(created.body.payload.assigned_to, f.userId);
    assert.equal(created.body.payload.assigned_type, "user");
    assert.equal(created.body.payload.location_id, f.locationId);
    const id = created.body.payload.id as number;
    const entries = await log(id);
    const checkout = entries.find((entry) => entry.action_type === "checkout");
    assert.equal(checkout?.note, "Checked out on asset creation");

    const direct = await createAsset(inventory, f, "CO-DIRECT");
    const set = await call<Envelope<Record<string, unknown>>>("PATCH", `/hardware/${direct}`, {
      assigned_to: f.otherLocationId,
      assigned_type: "App\\Models\\Location",
    });
    assert.equal(set.body.payload.assigned_type, "location");
    assert.ok(!(await log(direct)).some((entry) => entry.action_type === "checkout"), "no checkout event");
    const half = await call("PATCH", `/hardware/${direct}`, { assigned_to: f.userId });
    assert.deepEqual(half.body.messages, {
      assigned_type: ["The assigned type field is required when assigned to is present."],
    });
    const wrongType = await call("PATCH", `/hardware/${direct}`, {
      assigned_to: f.userId,
      assigned_type: "user",
    });
    assert.deepEqual(wrongType.body.messages, { assigned_type: ["The selected assigned type is invalid."] });
  });

  test("32 simultaneous check-outs of one asset: exactly one wins, exactly one log entry", async () => {
    const id = await createAsset(inventory, f, "CO-RACE");
    const users = await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        call<Envelope<{ id: number }>>("POST", "/users", {
          first_name: `Racer${n}`,
          username: `racer${n}`,
          password: "password123",
          password_confirmation: "password123",
        }),
      ),
    );
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, n) =>
        call("POST", `/hardware/${id}/checkout`, {
          checkout_to_type: "user",
          assigned_user: users[n % 4].body.payload.id,
        }),
      ),
    );
    assert.ok(
      answers.every((answer) => answer.status === 200),
      "no request fails",
    );
    const winners = answers.filter((answer) => answer.body.status === "success");
    assert.equal(winners.length, 1);
    for (const loser of answers.filter((answer) => answer.body.status !== "success"))
      assert.deepEqual(loser.body, {
        status: "error",
        messages: "That asset is not available for checkout!",
        payload: { asset: "CO-RACE" },
      });
    const checkouts = (await log(id)).filter((entry) => entry.action_type === "checkout");
    assert.equal(checkouts.length, 1);
    const held = await asset(id);
    assert.equal(held.checkout_counter, 1);
    assert.equal((held.assigned_to as { id: number }).id, (checkouts[0].target as { id: number }).id);
  });
});
