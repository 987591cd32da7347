import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

// The labels PDF is read back with Debian's poppler-utils, its text (pdftotext) and its pages
// (pdfinfo), and its codes are decoded from the rendered pages (pdftoppm) by zbar-tools (zbarimg).

const run = promisify(execFile);

forEachInventory("inventory API: label templates and asset labels", (inventory) => {
  let f: AssetFixture;
  let folder = "";
  let pdfCount = 0;
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), "labels-"));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  /** The PDF an answer carries, written to a file. */
  const pdfOf = async (answer: Envelope<{ pdf: string }>) => {
    assert.equal(answer.status, "success", JSON.stringify(answer));
    const bytes = Buffer.from(answer.payload.pdf, "base64");
    assert.equal(bytes.subarray(0, 5).toString(), "%PDF-");
    const file = join(folder, `labels-${++pdfCount}.pdf`);
    await writeFile(file, bytes);
    return file;
  };
  const textOf = async (file: string) => (await run("pdftotext", ["-layout", file, "-"])).stdout;
  const pagesOf = async (file: string) => {
    const { stdout } = await run("pdfinfo", [file]);
    return Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
  };
  /** What the codes of the PDF's first page say, sorted ("QR-Code:…", "CODE-128:…"). */
  const codesOf = async (file: string) => {
    await run("pdftoppm", ["-r", "300", "-f", "1", "-l", "1", "-png", "-singlefile", file, file]);
    try {
      const { stdout } = await run("zbarimg", ["-q", `${file}.png`]);
      return stdout.trim().split("\n").sort();
    } catch (error) {
      // zbarimg's status when it finds no code at all.
      if ((error as { code?: number }).code === 4) return [];
      throw error;
    }
  };
  const pageOf = (id: number) => `QR-Code:${inventory.url}/hardware/${id}`;
  const print = (body: unknown, token?: string) =>
    call<Envelope<{ pdf: string }>>("POST", "/hardware/labels", body, token);

  const lb: number[] = [];

  test("fixture", async () => {
    f = await assetFixture(inventory, "lb");
    lb[1] = await createAsset(inventory, f, "LB-1", { name: "Alpha laptop" });
    lb[2] = await createAsset(inventory, f, "LB-2", { name: "Beta desktop" });
    lb[3] = await createAsset(inventory, f, "LB-3", { name: "Ünïcode ☃ monitor" });
    for (let n = 4; n <= 18; n++) await createAsset(inventory, f, `LB-${n}`);
  });

  test("GET /labels lists the templates; GET /labels/{name} shows one, slashes and all", async () => {
    const list = await call<List>("GET", "/labels");
    assert.deepEqual(
      list.body.rows.map((row) => row.name),
      ["Sheets/Avery/_5160", "Sheets/Avery/L7162", "Tapes/Brother/TZe_24mm"],
    );
    assert.equal(list.body.total, 3);
    const searched = await call<List>("GET", "/labels?search=tape");
    assert.deepEqual(
      searched.body.rows.map((row) => row.name),
      ["Tapes/Brother/TZe_24mm"],
    );
    const one = await call<Record<string, unknown>>("GET", "/labels/Sheets/Avery/L7162");
    assert.equal(one.body.name, "Sheets/Avery/L7162");
    assert.equal(one.body.unit, "mm");
    assert.deepEqual(one.body.rectangle_sheet_info, {
      columns: 2,
      rows: 8,
      column_spacing: 2.5,
      row_spacing: 0,
    });
    const backslashed = await call<Record<string, unknown>>(
      "GET",
      `/labels/${encodeURIComponent("Tapes\\Brother\\TZe_24mm")}`,
    );
    assert.equal(backslashed.body.name, "Tapes/Brother/TZe_24mm");
    const missing = await call("GET", "/labels/Sheets/Nobody/X");
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { status: "error", messages: "Label does not exist", payload: null });
  });

  test("labels of tags: one label per asset with its tag and name, and its QR code", async () => {
    const file = await pdfOf((await print({ asset_tags: ["LB-1", "LB-2", "LB-3", "LB-1"] })).body);
    const text = await textOf(file);
    for (const expected of ["LB-1", "Alpha laptop", "LB-2", "Beta desktop", "LB-3", "Ünïcode ? monitor"])
      assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    assert.equal(text.split("LB-1").length - 1, 1, "a tag named twice prints once");
    assert.equal(await pagesOf(file), 1);
    assert.deepEqual(
      await codesOf(file),
      [pageOf(lb[1]), pageOf(lb[2]), pageOf(lb[3])].sort(),
      "a QR code of each asset's page",
    );
  });

  test("by ids too; a sheet takes as many pages as its labels need", async () => {
    const tags = Array.from({ length: 18 }, (_, n) => `LB-${n + 1}`);
    const ids = (
      await call<List<{ id: number; asset_tag: string }>>("GET", `/hardware?model_id=${f.modelId}`)
    ).body.rows
      .filter((row) => tags.includes(row.asset_tag))
      .map((row) => row.id);
    assert.equal(ids.length, 18);
    const file = await pdfOf((await print({ asset_ids: ids })).body);
    assert.equal(await pagesOf(file), 2, "16 labels on an L7162 sheet");
    const text = await textOf(file);
    for (const tag of tags) assert.match(text, new RegExp(`${tag}\\b`));
  });

  test("the settings choose the template, the title and the codes", async () => {
    const changed = await call("PATCH", "/settings", {
      label2_template: "Tapes/Brother/TZe_24mm",
      label2_title: "Property of Acme",
      label2_1d_type: "C128",
    });
    assert.equal((changed.body as Envelope).status, "success", JSON.stringify(changed.body));
    const file = await pdfOf((await print({ asset_tags: ["LB-1", "LB-2"] })).body);
    assert.equal(await pagesOf(file), 2, "a tape prints one label per page");
    assert.deepEqual(
      await codesOf(file),
      ["CODE-128:LB-1", pageOf(lb[1])].sort(),
      "a QR code and a Code 128 barcode per label",
    );
    assert.match(await textOf(file), /Property of Acme/);
    await call("PATCH", "/settings", { label2_2d_type: "none", label2_1d_type: "none" });
    assert.deepEqual(await codesOf(await pdfOf((await print({ asset_tags: ["LB-1"] })).body)), []);
  });

  test("bad requests: nothing named 400, too many 400, nothing found 404, unknown tags left out", async () => {
    const none = await print({});
    assert.equal(none.status, 400);
    assert.deepEqual(none.body, {
      status: "error",
      messages: "Either asset_tags or asset_ids are required",
      payload: null,
    });
    for (const body of [
      { asset_tags: "LB-1" },
      { asset_tags: [] },
      { asset_tags: [1] },
      { asset_ids: ["x"] },
    ])
      assert.equal((await print(body)).status, 400, JSON.stringify(body));
    const tooMany = await print({ asset_tags: Array.from({ length: 501 }, (_, n) => `T-${n}`) });
    assert.equal(tooMany.status, 400);
    assert.match(String(tooMany.body.messages), /500/);
    const unknown = await print({ asset_tags: ["NOPE-1", "NOPE-2"] });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { status: "error", messages: "Asset does not exist.", payload: null });
    const some = await pdfOf((await print({ asset_tags: ["NOPE-1", "LB-2"] })).body);
    assert.match(await textOf(some), /LB-2/);
  });

  test("assets.view is needed, before the body is read", async () => {
    const { token } = await userWithToken(inventory, "labelless", { "users.view": "1" });
    const refused = await api(inventory, "POST", "/hardware/labels", { token, rawBody: "{" });
    assert.equal(refused.status, 403);
    assert.equal((await call("GET", "/labels", undefined, token)).status, 403);
  });
});
