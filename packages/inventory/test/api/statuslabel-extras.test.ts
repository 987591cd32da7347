import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

interface Chart {
  labels: string[];
  datasets: { data: number[]; backgroundColor: string[]; hoverBackgroundColor: string[] }[];
}

forEachInventory("inventory API: status label charts, asset lists and deployability", (inventory) => {
  let f: AssetFixture;
  const call = <T>(path: string, token?: string) => api<T>(inventory, "GET", path, { token });

  test("fixture: assets under every kind of label, one of them checked out", async () => {
    f = await assetFixture(inventory, "sx");
    const coloured = await api<Envelope>(inventory, "PATCH", `/statuslabels/${f.deployable}`, {
      body: { type: "deployable", color: "#ff0000" },
    });
    assert.equal(coloured.body.status, "success");
    await createAsset(inventory, f, "SX-1");
    await createAsset(inventory, f, "SX-2");
    await createAsset(inventory, f, "SX-3", { assigned_user: f.userId });
    await createAsset(inventory, f, "SX-4", { status_id: f.pending });
    await createAsset(inventory, f, "SX-5", { status_id: f.archived });
    await createAsset(inventory, f, "SX-6", { status_id: f.undeployable });
    const gone = await createAsset(inventory, f, "SX-7");
    assert.equal((await api<Envelope>(inventory, "DELETE", `/hardware/${gone}`)).body.status, "success");
  });

  test("assets/name: one slice per label holding assets, its own colour first", async () => {
    const chart = (await call<Chart>("/statuslabels/assets/name")).body;
    assert.deepEqual(chart.labels, [
      "sx deployable (3)",
      "sx pending (1)",
      "sx archived (1)",
      "sx undeployable (1)",
    ]);
    assert.deepEqual(chart.datasets[0].data, [3, 1, 1, 1]);
    assert.equal(chart.datasets[0].backgroundColor.length, 4);
    assert.equal(chart.datasets[0].backgroundColor[0], "#ff0000");
    assert.deepEqual(chart.datasets[0].hoverBackgroundColor, chart.datasets[0].backgroundColor);
  });

  test("assets/type: checked out is Deployed, the rest by their label's type", async () => {
    const chart = (await call<Chart>("/statuslabels/assets/type")).body;
    assert.deepEqual(chart.labels, [
      "Ready to Deploy (2)",
      "Deployed (1)",
      "Archived (1)",
      "Pending (1)",
      "Undeployable (1)",
    ]);
    assert.deepEqual(chart.datasets[0].data, [2, 1, 1, 1, 1]);
  });

  test("{id}/assetlist: the label's assets as asset objects, 50 a page unless asked, archived too", async () => {
    const all = (await call<List<{ asset_tag: string }>>(`/statuslabels/${f.deployable}/assetlist`)).body;
    assert.equal(all.total, 3);
    assert.deepEqual(all.rows.map((row) => row.asset_tag).sort(), ["SX-1", "SX-2", "SX-3"]);
    const page = (
      await call<List<{ asset_tag: string }>>(
        `/statuslabels/${f.deployable}/assetlist?limit=1&sort=id&order=asc`,
      )
    ).body;
    assert.equal(page.total, 3);
    assert.deepEqual(
      page.rows.map((row) => row.asset_tag),
      ["SX-1"],
    );
    const archived = (await call<List<{ asset_tag: string }>>(`/statuslabels/${f.archived}/assetlist`)).body;
    assert.deepEqual(
      archived.rows.map((row) => row.asset_tag),
      ["SX-5"],
    );
    assert.deepEqual((await call<List>("/statuslabels/99999/assetlist")).body, { total: 0, rows: [] });
  });

  test('{id}/deployable: plain "1" for deployable and pending labels, "0" otherwise', async () => {
    for (const [id, expected] of [
      [f.deployable, "1"],
      [f.pending, "1"],
      [f.archived, "0"],
      [f.undeployable, "0"],
    ] as const) {
      const res = await fetch(`${inventory.url}/api/v1/statuslabels/${id}/deployable`, {
        headers: { authorization: `Bearer ${inventory.adminToken}`, accept: "application/json" },
      });
      assert.match(String(res.headers.get("content-type")), /^text\/plain/);
      assert.equal(await res.text(), expected);
    }
    const unknown = await call<Envelope>("/statuslabels/99999/deployable");
    assert.deepEqual(unknown.body, { status: "error", messages: "Statuslabel not found", payload: null });
  });

  test("permissions: charts need statuslabels.view, a label's assets need assets.view too", async () => {
    const assetsOnly = await userWithToken(inventory, "sxassets", { "assets.view": "1" });
    const labelsOnly = await userWithToken(inventory, "sxlabels", { "statuslabels.view": "1" });
    assert.equal((await call("/statuslabels/assets/name", assetsOnly.token)).status, 403);
    assert.equal((await call("/statuslabels/assets/type", assetsOnly.token)).status, 403);
    assert.equal((await call("/statuslabels/assets/name", labelsOnly.token)).status, 200);
    assert.equal((await call(`/statuslabels/${f.deployable}/assetlist`, labelsOnly.token)).status, 403);
    assert.equal((await call(`/statuslabels/${f.deployable}/deployable`, assetsOnly.token)).status, 200);
  });
});
