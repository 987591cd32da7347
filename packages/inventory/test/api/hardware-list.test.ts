import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

// The asset list's query layer as bench/inventory.ts made it: pages past the middle read from the
// other end (repositories/records.ts), archived labels hidden by their ids, and search matching
// related rows through id lists (services/assets.ts). Each must answer what the plain query would.

type Row = { id: number; asset_tag: string };

forEachInventory("inventory API: hardware list pages and search", (inventory) => {
  let f: AssetFixture;
  const call = <T = Envelope>(method: string, path: string, body?: unknown) =>
    api<T>(inventory, method, path, { body });
  const created = async (path: string, body: Record<string, unknown>) => {
    const answer = await call<Envelope<{ id: number }>>("POST", path, body);
    assert.equal(answer.body.status, "success", `${path}: ${JSON.stringify(answer.body)}`);
    return answer.body.payload.id;
  };
  const tags = (answer: { body: List<Row> }) => answer.body.rows.map((row) => row.asset_tag);

  test("fixture", async () => {
    f = await assetFixture(inventory, "pg");
  });

  test("every page, from either end, is the slice of the whole list, in every order", async () => {
    // Names repeat and serials are missing on some, so the id decides between equal values and
    // NULLs must keep their place when a page is read backwards.
    const names = ["Beta", "Alpha", "Beta", "Gamma", "Alpha", "Beta", "Delta"];
    for (const [i, name] of names.entries())
      await createAsset(inventory, f, `PG-${i}`, { name, ...(i % 3 === 0 ? {} : { serial: `S-${i % 4}` }) });
    await createAsset(inventory, f, "PG-ARC", { status_id: f.archived, name: "Alpha" });
    const list = (query: string) => call<List<Row>>("GET", `/hardware?model_id=${f.modelId}&${query}`);

    for (const sort of ["created_at", "id", "name", "serial", "model", "bogus"])
      for (const order of ["asc", "desc"]) {
        const whole = await list(`sort=${sort}&order=${order}`);
        assert.equal(whole.body.total, names.length, "the archived asset stays hidden");
        const every = tags(whole);
        for (const limit of [1, 2, 3])
          for (let offset = 0; offset <= names.length + 1; offset++) {
            const page = await list(`sort=${sort}&order=${order}&limit=${limit}&offset=${offset}`);
            assert.equal(page.body.total, names.length);
            assert.deepEqual(
              tags(page),
              every.slice(offset, offset + limit),
              `sort=${sort}&order=${order}&limit=${limit}&offset=${offset}`,
            );
          }
      }
  });

  test("lists sorted by a related row's name follow that name, then the id; assets with none come first ascending", async () => {
    // Models share names (the id decides between their assets), some assets have no location, and
    // holders are of every type, so each way PostgreSQL reads such a page (services/assets.ts
    // relationPage: name by name, the assets without one as a group of their own) is exercised.
    const model = (name: string, extra: Record<string, unknown> = {}) =>
      created("/models", { name, category_id: f.categoryId, manufacturer_id: f.manufacturerId, ...extra });
    const models = [
      await model("RelKilo", { model_number: "RelN2" }),
      await model("RelAlpha"),
      await model("RelKilo"),
    ];
    const places = [
      await created("/locations", { name: "RelPlace" }),
      await created("/locations", { name: "RelBase" }),
      await created("/locations", { name: "RelPier" }),
    ];
    const label = await created("/statuslabels", { name: "RelLabel", type: "deployable" });
    const person = await created("/users", {
      first_name: "RelFirst",
      last_name: "RelLast",
      username: "reluser",
      password: "password123",
      password_confirmation: "password123",
    });
    const ids: number[] = [];
    for (let i = 0; i < 9; i++)
      ids.push(
        await createAsset(inventory, f, `REL-${i}`, {
          name: `RelAsset${i % 4}`,
          order_number: "RELSORT",
          model_id: models[i % 3],
          status_id: i % 4 === 0 ? label : f.deployable,
          ...(i % 3 === 2 ? {} : { rtd_location_id: places[i % 3], location_id: places[(i + 1) % 3] }),
        }),
      );
    await createAsset(inventory, f, "REL-ARC", { order_number: "RELSORT", status_id: f.archived });
    for (const [i, body] of [
      [1, { checkout_to_type: "user", assigned_user: person }],
      [4, { checkout_to_type: "location", assigned_location: places[1] }],
      [6, { checkout_to_type: "asset", assigned_asset: ids[0] }],
      [7, { checkout_to_type: "location", assigned_location: places[2] }],
    ] as const)
      assert.equal(
        (await call<Envelope>("POST", `/hardware/${ids[i]}/checkout`, body)).body.status,
        "success",
      );

    type Shown = { id: number } & Record<string, { name?: string } | string | null>;
    const named = (value: { name?: string } | string | null | undefined) =>
      value === null || value === undefined ? null : typeof value === "string" ? value : (value.name ?? null);
    const keyOf: Record<string, (row: Shown) => string | null> = {
      model: (row) => named(row.model),
      model_number: (row) => named(row.model_number),
      category: (row) => named(row.category),
      manufacturer: (row) => named(row.manufacturer),
      company: (row) => named(row.company),
      location: (row) => named(row.location),
      rtd_location: (row) => named(row.rtd_location),
      status_label: (row) => named(row.status_label),
      supplier: (row) => named(row.supplier),
      assigned_to: (row) => named(row.assigned_to),
    };
    const list = async (query: string) =>
      (await call<List<Shown>>("GET", `/hardware?order_number=RELSORT&${query}`)).body;
    for (const [sort, key] of Object.entries(keyOf))
      for (const order of ["asc", "desc"] as const) {
        const whole = await list(`sort=${sort}&order=${order}`);
        assert.equal(whole.total, ids.length, `${sort}: the archived asset stays hidden`);
        const sign = order === "asc" ? 1 : -1;
        const expected = [...whole.rows].sort((a, b) => {
          const [x, y] = [key(a), key(b)];
          if (x !== y) return x === null ? -sign : y === null ? sign : x < y ? -sign : sign;
          return (a.id - b.id) * sign;
        });
        assert.deepEqual(
          whole.rows.map((row) => row.id),
          expected.map((row) => row.id),
          `sort=${sort}&order=${order}`,
        );
        for (const offset of [0, 2, 5, 8]) {
          const page = await list(`sort=${sort}&order=${order}&limit=2&offset=${offset}`);
          assert.deepEqual(
            page.rows.map((row) => row.id),
            expected.slice(offset, offset + 2).map((row) => row.id),
            `sort=${sort}&order=${order}&offset=${offset}`,
          );
        }
        const labelled = await list(`sort=${sort}&order=${order}&status_id=${label}`);
        assert.deepEqual(
          labelled.rows.map((row) => row.id),
          expected.filter((row) => named(row.status_label) === "RelLabel").map((row) => row.id),
          `sort=${sort}&order=${order}&status_id=`,
        );
      }
  });

  test("search finds assets by their own text and by every related name", async () => {
    const model = await created("/models", {
      name: "SrcModelName",
      model_number: "SrcNumber",
      category_id: await created("/categories", { name: "SrcCategory", category_type: "asset" }),
      manufacturer_id: await created("/manufacturers", { name: "SrcMaker" }),
      eol: 227,
    });
    const company = await created("/companies", { name: "SrcCompany" });
    const supplier = await created("/suppliers", { name: "SrcSupplier" });
    const here = await created("/locations", { name: "SrcHere" });
    const home = await created("/locations", { name: "SrcHome" });
    const place = await created("/locations", { name: "SrcPlace" });
    const label = await created("/statuslabels", { name: "SrcLabel", type: "deployable" });
    const person = await created("/users", {
      first_name: "SrcFirst",
      last_name: "SrcLast",
      username: "srcuser",
      password: "password123",
      password_confirmation: "password123",
    });
    const asset = (tag: string, extra: Record<string, unknown> = {}) => createAsset(inventory, f, tag, extra);
    const ids = {
      model: await asset("SRC-MODEL", { model_id: model }),
      company: await asset("SRC-COMPANY", { company_id: company }),
      supplier: await asset("SRC-SUPPLIER", { supplier_id: supplier }),
      location: await asset("SRC-LOCATION", { rtd_location_id: home }),
      label: await asset("SRC-LABEL", { status_id: label }),
      user: await asset("SRC-USER", { assigned_user: person }),
      own: await asset("SRC-OWN", { serial: "SrcSerial", order_number: "SrcOrder", notes: "SrcNotes" }),
      holder: await asset("SRC-HOLDER", { name: "SrcHolderAsset" }),
      placed: await asset("SRC-PLACED"),
      held: await asset("SRC-HELD"),
    };
    // Where an asset is now follows its holder; its default location stays.
    const moved = await call<Envelope>("POST", `/hardware/${ids.location}/checkout`, {
      checkout_to_type: "location",
      assigned_location: here,
    });
    assert.equal(moved.body.status, "success");
    for (const [id, body] of [
      [ids.placed, { checkout_to_type: "location", assigned_location: place }],
      [ids.held, { checkout_to_type: "asset", assigned_asset: ids.holder }],
    ] as const)
      assert.equal((await call<Envelope>("POST", `/hardware/${id}/checkout`, body)).body.status, "success");

    const found = async (term: string) =>
      (await call<List<Row>>("GET", `/hardware?search=${encodeURIComponent(term)}`)).body.rows
        .map((row) => row.id)
        .sort((a, b) => a - b);
    const expected: [string, number[]][] = [
      ["SrcModelName", [ids.model]],
      ["SrcNumber", [ids.model]],
      ["227", [ids.model]],
      ["SrcCategory", [ids.model]],
      ["SrcMaker", [ids.model]],
      ["SrcCompany", [ids.company]],
      ["SrcSupplier", [ids.supplier]],
      ["SrcHere", [ids.location]],
      ["SrcHome", [ids.location]],
      ["SrcLabel", [ids.label]],
      ["SrcFirst SrcLast", [ids.user]],
      ["srcuser", [ids.user]],
      ["SrcSerial", [ids.own]],
      ["SrcOrder", [ids.own]],
      ["SrcNotes", [ids.own]],
      ["SrcPlace", [ids.placed]],
      // The holder matches by its own name, the asset it holds by its holder's.
      ["SrcHolderAsset", [ids.holder, ids.held]],
      ["SrcNothing", []],
      ["SrcCompany OR SrcSupplier", [ids.company, ids.supplier].sort((a, b) => a - b)],
    ];
    for (const [term, wanted] of expected) assert.deepEqual(await found(term), wanted, term);
  });

  test("a page asked again is the same answer, and any write that changes it shows at once", async () => {
    // Pages are kept read, rendered and serialized (core's keptRows, convert/asset.ts) until a write.
    const model = await created("/models", {
      name: "KeptModel",
      category_id: await created("/categories", { name: "KeptCategory", category_type: "asset" }),
    });
    const first = await createAsset(inventory, f, "KEPT-1", { model_id: model, name: "Kept one" });
    const page = async () =>
      (
        await call<List<Row & { name: string; model: { name: string } }>>(
          "GET",
          `/hardware?model_id=${model}`,
        )
      ).body;
    const before = await page();
    assert.deepEqual(await page(), before);
    assert.equal(
      (await call<Envelope>("PATCH", `/hardware/${first}`, { name: "Kept renamed" })).body.status,
      "success",
    );
    assert.deepEqual(
      (await page()).rows.map((row) => row.name),
      ["Kept renamed"],
      "the asset's own write",
    );
    assert.equal(
      (await call<Envelope>("PATCH", `/models/${model}`, { name: "KeptModel renamed" })).body.status,
      "success",
    );
    assert.deepEqual(
      (await page()).rows.map((row) => row.model.name),
      ["KeptModel renamed"],
      "a related row's write",
    );
    await createAsset(inventory, f, "KEPT-2", { model_id: model });
    const after = await page();
    assert.equal(after.total, 2, "a new asset counts");
    assert.deepEqual(after.rows.map((row) => row.asset_tag).sort(), ["KEPT-1", "KEPT-2"]);
  });

  test("a kept page is each caller's own, and pages that share their first asset and total are each their own", async () => {
    // A kept page is found by its first row (convert/asset.ts assetListAnswer): what it shows must
    // still follow the caller's rights, and two sorts beginning with the same asset must not answer
    // each other's page.
    const model = await created("/models", {
      name: "SharedStart",
      category_id: await created("/categories", { name: "SharedStartCategory", category_type: "asset" }),
    });
    // Same serial (null first either way), names in opposite orders to the tags.
    for (const [tag, name] of [
      ["SS-1", "c"],
      ["SS-2", "b"],
      ["SS-3", "a"],
    ])
      await createAsset(inventory, f, tag, { model_id: model, name });
    const path = (sort: string) => `/hardware?model_id=${model}&sort=${sort}&order=asc&limit=2`;
    const bySerial = await call<List<Row>>("GET", path("serial"));
    const byName = await call<List<Row>>("GET", path("name"));
    assert.deepEqual(tags(bySerial), ["SS-1", "SS-2"]);
    assert.deepEqual(tags(byName), ["SS-3", "SS-2"]);
    const byWarranty = await call<List<Row>>("GET", path("warranty_months"));
    assert.deepEqual(tags(byWarranty), ["SS-1", "SS-2"], "same first row and total as by serial");
    assert.deepEqual(tags(await call<List<Row>>("GET", path("serial"))), ["SS-1", "SS-2"]);
    assert.deepEqual(
      tags(await call<List<Row>>("GET", `/hardware?model_id=${model}&sort=serial&order=asc&limit=3`)),
      ["SS-1", "SS-2", "SS-3"],
      "a longer page from the same first row",
    );

    const viewer = await userWithToken(inventory, "kept-page-viewer", { "assets.view": "1" });
    type Actions = Row & { available_actions: Record<string, boolean> };
    const actions = async (token?: string) =>
      (await api<List<Actions>>(inventory, "GET", path("serial"), { token })).body.rows.map(
        (row) => row.available_actions.update,
      );
    assert.deepEqual(await actions(), [true, true], "the admin may edit");
    assert.deepEqual(await actions(viewer.token), [false, false], "the viewer may not");
    assert.deepEqual(await actions(), [true, true], "the admin's page again");
  });
});
