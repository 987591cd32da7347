import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, type InventoryState, userWithToken } from "../support/inventory.ts";

type Asset = Record<string, unknown> & { id: number };
type Item = Envelope<unknown> & { id: number | null; asset_tag: string | null };
type Bulk = Envelope<{ results: Item[] }>;

function helpers(inventory: InventoryState) {
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  const bulk = (action: string, body: unknown, options: { token?: string; strict?: boolean } = {}) =>
    api<Bulk>(inventory, "POST", `/hardware/bulk/${action}`, {
      body,
      token: options.token,
      headers: options.strict ? { "x-api-strict-status": "1" } : {},
    });
  const asset = async (id: number) => (await call<Asset>("GET", `/hardware/${id}`)).body;
  const log = async (id: number) =>
    (await call<List>("GET", `/reports/activity?item_type=asset&item_id=${id}`)).body.rows;
  return { call, bulk, asset, log };
}

/** An activity entry without what differs between two assets' entries of the same action. */
function sameAction(entry: Record<string, unknown>) {
  const {
    id: _id,
    item: _item,
    created_at: _created,
    updated_at: _updated,
    action_date: _date,
    ...rest
  } = entry;
  return rest;
}

forEachInventory("inventory API: bulk asset actions", (inventory) => {
  const { call, bulk, asset, log } = helpers(inventory);
  let f: AssetFixture;
  const made = (prefix: string, count: number, extra: Record<string, unknown> = {}) =>
    Promise.all(
      Array.from({ length: count }, (_, n) => createAsset(inventory, f, `${prefix}-${n + 1}`, extra)),
    );

  test("fixture", async () => {
    f = await assetFixture(inventory, "bk");
  });

  test("check-out by ids: each asset gets its single route's answer and the same activity entry", async () => {
    const clerk = await userWithToken(inventory, "bk-clerk", { "assets.checkout": "1", "assets.view": "1" });
    const [alone, ...ids] = await made("BK-OUT", 4);
    const body = { checkout_to_type: "user", assigned_user: f.userId, note: "for the trip" };
    const single = await call("POST", `/hardware/${alone}/checkout`, body, clerk.token);
    const answer = await bulk("checkout", { ids, ...body }, { token: clerk.token });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      status: "success",
      messages: "3 assets checked out.",
      payload: {
        results: ids.map((id, n) => ({
          id,
          asset_tag: `BK-OUT-${n + 2}`,
          ...single.body,
          payload: { asset: `BK-OUT-${n + 2}` },
        })),
      },
    });
    const [reference] = await log(alone);
    for (const id of ids) {
      const held = await asset(id);
      assert.equal((held.assigned_to as { id: number }).id, f.userId);
      assert.equal(held.checkout_counter, 1);
      const entries = await log(id);
      assert.equal(entries.length, 2, "its creation and its check-out");
      assert.deepEqual(sameAction(entries[0]), sameAction(reference));
      assert.equal((entries[0].item as { id: number }).id, id);
    }
  });

  test("check-in by asset tags; a tag's not-found is the by-tag route's", async () => {
    const ids = await made("BK-IN", 2);
    await bulk("checkout", { ids, checkout_to_type: "location", assigned_location: f.locationId });
    const answer = await bulk("checkin", { asset_tags: ["BK-IN-1", "BK-IN-2"], note: "back" });
    assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
    assert.deepEqual(answer.body.payload.results[1], {
      id: ids[1],
      asset_tag: "BK-IN-2",
      status: "success",
      messages: "Asset checked in successfully.",
      payload: { asset_tag: "BK-IN-2", model: "bk X1", model_number: "bk-MN" },
    });
    for (const id of ids) {
      assert.equal((await asset(id)).assigned_to, null);
      const [entry] = await log(id);
      assert.equal(entry.action_type, "checkin from");
      assert.equal(entry.note, "back");
    }
    const missing = await bulk("checkin", { asset_tags: ["BK-IN-1", "BK-NOPE"] });
    assert.deepEqual(missing.body.payload.results, [
      {
        id: ids[0],
        asset_tag: "BK-IN-1",
        status: "error",
        messages: "That asset is already checked in.",
        payload: { asset_tag: "BK-IN-1", model: "bk X1", model_number: "bk-MN" },
      },
      {
        id: null,
        asset_tag: "BK-NOPE",
        status: "error",
        messages: "Asset with tag BK-NOPE not found",
        payload: null,
      },
    ]);
  });

  test("update takes the PATCH body; a unique tag refused for one rolls back all, or only it with partial", async () => {
    const ids = await made("BK-UP", 3);
    const answer = await bulk("update", { ids, notes: "bulk note", name: "Fleet" });
    assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
    assert.equal(answer.body.payload.results.length, 3);
    for (const item of answer.body.payload.results) {
      assert.equal(item.messages, "Asset updated successfully.");
      assert.equal((item.payload as Asset).notes, "bulk note", "the stored row, as PATCH answers");
    }
    for (const id of ids) {
      const [entry] = await log(id);
      assert.equal(entry.action_type, "update");
      assert.deepEqual((entry.log_meta as Record<string, unknown>).name, { old: null, new: "Fleet" });
    }

    // The second asset may not take the tag the first just took: the database's unique index says so.
    const clash = await bulk("update", { ids: ids.slice(0, 2), asset_tag: "BK-UP-SAME" }, { strict: true });
    assert.equal(clash.status, 422, "the failed item's status under X-Api-Strict-Status");
    assert.deepEqual(clash.body, {
      status: "error",
      messages: "Nothing was changed: 1 of 2 assets could not be updated.",
      payload: {
        results: [
          {
            id: ids[1],
            asset_tag: "BK-UP-2",
            status: "error",
            messages: { asset_tag: ["The asset tag has already been taken."] },
            payload: null,
          },
        ],
      },
    });
    assert.equal((await asset(ids[0])).asset_tag, "BK-UP-1", "the first asset's change is undone");
    const kept = await bulk("update", { ids: ids.slice(0, 2), asset_tag: "BK-UP-SAME", partial: true });
    assert.equal(kept.status, 200);
    assert.equal(kept.body.messages, "1 of 2 assets updated; 1 failed.");
    assert.deepEqual(
      kept.body.payload.results.map((item) => [item.id, item.status]),
      [
        [ids[0], "success"],
        [ids[1], "error"],
      ],
    );
    assert.equal((await asset(ids[0])).asset_tag, "BK-UP-SAME");
    assert.equal((await asset(ids[1])).asset_tag, "BK-UP-2");
    const images = await bulk("update", { ids, image_delete: true });
    assert.deepEqual(images.body.messages, {
      image_delete: ["The image delete field cannot be changed in bulk."],
    });
  });

  test("audit, delete and restore", async () => {
    const ids = await made("BK-AUD", 2);
    const audit = await bulk("audit", { ids, note: "seen", next_audit_date: "2031-01-02" });
    assert.deepEqual(audit.body.payload.results[0], {
      id: ids[0],
      asset_tag: "BK-AUD-1",
      status: "success",
      messages: "Asset audit successfully logged.",
      payload: { id: ids[0], asset_tag: "BK-AUD-1", note: "seen", next_audit_date: "2031-01-02" },
    });
    for (const id of ids) assert.equal((await log(id))[0].action_type, "audit");

    await bulk("checkout", { ids: [ids[0]], checkout_to_type: "user", assigned_user: f.userId });
    const gone = await bulk("delete", { ids });
    assert.deepEqual(
      gone.body.payload.results.map((item) => [item.status, item.messages]),
      [
        ["success", "The asset was deleted successfully."],
        ["success", "The asset was deleted successfully."],
      ],
    );
    assert.deepEqual(
      (await log(ids[0])).slice(0, 2).map((entry) => entry.action_type),
      ["delete", "checkin from"],
      "checked in first, as the single delete does",
    );
    const back = await bulk("restore", { asset_tags: ["BK-AUD-1", "BK-AUD-2"] });
    assert.deepEqual(back.body.payload.results[0], {
      id: ids[0],
      asset_tag: "BK-AUD-1",
      status: "success",
      messages: null,
      payload: "Asset restored successfully.",
    });
    assert.equal((await asset(ids[1])).deleted_at, null);
    // A restore of an asset that is not deleted is the single route's refusal, so nothing is kept.
    const again = await bulk("restore", { ids });
    assert.equal(again.body.status, "error");
    assert.deepEqual(again.body.payload.results[0], {
      id: ids[0],
      asset_tag: "BK-AUD-1",
      status: "error",
      messages: null,
      payload: "The Asset was not deleted and therefore cannot be restored",
    });

    // A tag another asset took meanwhile: the database refuses the restore, the others go on.
    await bulk("delete", { ids });
    const taker = await createAsset(inventory, f, "BK-AUD-1");
    const taken = await bulk("restore", { ids, partial: true });
    assert.deepEqual(
      taken.body.payload.results.map((item) => [item.status, item.payload]),
      [
        ["error", "Error restoring asset: The asset tag must be unique."],
        ["success", "Asset restored successfully."],
      ],
    );
    assert.equal((await asset(ids[1])).deleted_at, null);
    assert.equal((await call("GET", `/hardware/${taker}`)).body.status, undefined, "the taker is untouched");
  });

  test("one bad id rolls back every asset; with partial the others are kept", async () => {
    const ids = await made("BK-RB", 3);
    const body = { checkout_to_type: "user", assigned_user: f.userId };
    const all = await bulk("checkout", { ids: [ids[0], 999_999, ids[1], ids[2]], ...body });
    assert.equal(all.status, 200, "Snipe-IT's 200 with an error status");
    assert.deepEqual(all.body, {
      status: "error",
      messages: "Nothing was changed: 1 of 4 assets could not be checked out.",
      payload: {
        results: [
          { id: 999_999, asset_tag: null, status: "error", messages: "Asset not found", payload: null },
        ],
      },
    });
    for (const id of ids) {
      assert.equal((await asset(id)).assigned_to, null);
      assert.equal((await log(id))[0].action_type, "create new", "no entry of an undone check-out");
    }
    const strict = await bulk("checkout", { ids: [ids[0], 999_999], ...body }, { strict: true });
    assert.equal(strict.status, 404);

    const partial = await bulk("checkout", {
      ids: [ids[0], 999_999, ids[1], ids[2]],
      partial: true,
      ...body,
    });
    assert.equal(partial.status, 200);
    assert.equal(partial.body.status, "error");
    assert.equal(partial.body.messages, "3 of 4 assets checked out; 1 failed.");
    assert.deepEqual(
      partial.body.payload.results.map((item) => item.status),
      ["success", "error", "success", "success"],
    );
    for (const id of ids) assert.equal((await log(id))[0].action_type, "checkout");
  });

  test("the request is refused whole when its list is: too long, repeated, mixed, missing, malformed", async () => {
    const [id] = await made("BK-BAD", 1);
    const body = { checkout_to_type: "user", assigned_user: f.userId };
    const refused = async (given: Record<string, unknown>, messages: unknown) => {
      const answer = await bulk("checkout", { ...body, ...given }, { strict: true });
      assert.equal(answer.status, 422, JSON.stringify(given));
      assert.deepEqual(answer.body, { status: "error", messages, payload: null });
    };
    await refused(
      { ids: Array.from({ length: 501 }, (_, n) => n + 1) },
      { ids: ["The ids field must not be greater than 500 items."] },
    );
    await refused({ ids: [id, 7, id] }, { "ids.2": ["The ids.2 field has a duplicate value."] });
    await refused(
      { asset_tags: ["A", "A"] },
      { "asset_tags.1": ["The asset tags.1 field has a duplicate value."] },
    );
    await refused(
      { ids: [id], asset_tags: ["BK-BAD-1"] },
      { ids: ["The ids field prohibits asset tags from being present."] },
    );
    await refused({ ids: [] }, { ids: ["The ids field is required when asset tags is not present."] });
    await refused({ ids: "1,2" }, { ids: ["The ids field must be an array."] });
    await refused(
      { ids: [1, "x", -2] },
      {
        "ids.1": ["The ids.1 field must be an integer."],
        "ids.2": ["The ids.2 field must be an integer."],
      },
    );
    await refused(
      { ids: [id], checkout_to_type: "moon" },
      { checkout_to_type: ["The selected checkout to type is invalid."] },
    );
    const fine = await bulk("checkout", { ...body, ids: Array.from({ length: 500 }, (_, n) => 900_000 + n) });
    assert.equal(fine.body.payload.results.length, 500, "500 is allowed: every id is tried");
    assert.equal((await log(id))[0].action_type, "create new");
  });

  test("each action needs its permission, checked before the body is read", async () => {
    const viewer = await userWithToken(inventory, "bk-viewer", { "assets.view": "1", "assets.checkin": "1" });
    for (const action of ["update", "checkout", "audit", "delete", "restore"]) {
      const answer = await api(inventory, "POST", `/hardware/bulk/${action}`, {
        token: viewer.token,
        rawBody: "{not json",
      });
      assert.equal(answer.status, 403, action);
    }
    const malformed = await api(inventory, "POST", "/hardware/bulk/checkin", {
      token: viewer.token,
      rawBody: "{not json",
    });
    assert.equal(malformed.status, 422, "with the permission, the body is read");
    const unknown = await api(inventory, "POST", "/hardware/bulk/explode", { body: { ids: [1] } });
    assert.equal(unknown.status, 404);
  });

  test("a bulk check-out racing single check-outs of the same assets: no asset goes out twice", async () => {
    for (const partial of [false, true]) {
      const ids = await made(`BK-RACE-${partial}`, 12);
      const body = { checkout_to_type: "user", assigned_user: f.userId };
      const [whole, ...singles] = await Promise.all([
        bulk("checkout", { ids, partial, ...body }),
        ...ids.filter((_, n) => n % 3 === 0).map((id) => call("POST", `/hardware/${id}/checkout`, body)),
      ]);
      assert.equal(whole.status, 200);
      for (const single of singles) assert.equal(single.status, 200);
      const bulkWins = whole.body.payload.results.filter((item) => item.status === "success").length;
      const singleWins = singles.filter((single) => single.body.status === "success").length;
      if (partial) assert.equal(bulkWins + singleWins, ids.length, "every asset went out");
      else if (whole.body.status === "success") assert.deepEqual([bulkWins, singleWins], [ids.length, 0]);
      else assert.equal(bulkWins, 0, "a single won one first: the bulk took none");
      let out = 0;
      for (const id of ids) {
        const checkouts = (await log(id)).filter((entry) => entry.action_type === "checkout");
        const held = await asset(id);
        assert.equal(checkouts.length, held.assigned_to === null ? 0 : 1, `asset ${id}: one entry when out`);
        assert.equal(held.checkout_counter, checkouts.length);
        out += checkouts.length;
      }
      assert.equal(out, bulkWins + singleWins, "each win is one asset out");
    }
  });
});

forEachInventory(
  "inventory API: bulk asset actions, rate limit and companies",
  (inventory) => {
    const { call, bulk, asset } = helpers(inventory);
    let f: AssetFixture;

    test("a bulk request counts once against the rate limit", async () => {
      f = await assetFixture(inventory, "bl");
      const clerk = await userWithToken(inventory, "bl-clerk", {
        "assets.checkout": "1",
        "assets.view": "1",
      });
      const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => createAsset(inventory, f, `BL-${n}`)));
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
      const before = await call("GET", `/hardware/${ids[0]}`, undefined, clerk.token);
      const answer = await bulk(
        "checkout",
        { ids, checkout_to_type: "user", assigned_user: f.userId },
        { token: clerk.token },
      );
      assert.equal(answer.body.status, "success");
      assert.equal(
        Number(answer.headers.get("x-ratelimit-remaining")),
        Number(before.headers.get("x-ratelimit-remaining")) - 1,
      );
    });

    test("another company's asset does not exist for the caller, item by item", async () => {
      const company = async (name: string) =>
        (await call<Envelope<{ id: number }>>("POST", "/companies", { name })).body.payload.id;
      const acme = await company("Acme");
      const globex = await company("Globex");
      const clerk = await userWithToken(inventory, "bl-acme", { "assets.checkout": "1", "assets.view": "1" });
      await call("PATCH", `/users/${clerk.id}`, { company_id: acme });
      const ours = await createAsset(inventory, f, "BL-ACME", { company_id: acme });
      const theirs = await createAsset(inventory, f, "BL-GLOBEX", { company_id: globex });
      const body = { checkout_to_type: "user", assigned_user: clerk.id, partial: true };
      const answer = await bulk("checkout", { ids: [ours, theirs], ...body }, { token: clerk.token });
      assert.deepEqual(
        answer.body.payload.results.map((item) => [item.id, item.asset_tag, item.status, item.messages]),
        [
          [ours, "BL-ACME", "success", "Asset checked out successfully."],
          [theirs, null, "error", "Asset not found"],
        ],
        "the other company's tag is not shown",
      );
      assert.equal((await asset(theirs)).assigned_to, null);
      const byTag = await bulk("checkout", { asset_tags: ["BL-GLOBEX"], ...body }, { token: clerk.token });
      assert.equal(byTag.body.payload.results[0].messages, "Asset not found");
    });
  },
  { apiThrottlePerMinute: 100, fullMultipleCompaniesSupport: true },
);
