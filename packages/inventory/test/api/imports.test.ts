import assert from "node:assert/strict";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { KEPT_BACKUPS } from "../../src/services/imports.ts";
import type { Envelope, List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { postMultipart } from "../support/uploads.ts";

// CSV imports (spec §21): upload, list, process into records, delete.

const LIMITS = { apiThrottlePerMinute: 0, uploads: { fileSize: 64 * 1024, files: 5 } };

interface ImportObject {
  id: number;
  file_path: string;
  filesize: string;
  name: string;
  import_type: string | null;
  created_at: string;
  header_row: string[];
  first_row: string[];
  field_map: Record<string, string> | null;
}

type Row = Record<string, unknown> & { id: number };

forEachInventory(
  "inventory API: CSV imports",
  (inventory) => {
    const importsDir = () => join(inventory.server.dataDir, "inventory", "imports");
    const upload = (csv: string | Uint8Array, filename = "import.csv", token?: string, type = "text/csv") =>
      postMultipart<{ files: ImportObject[] } & Envelope>(
        inventory,
        "/imports",
        [{ name: "files[]", value: typeof csv === "string" ? Buffer.from(csv) : csv, filename, type }],
        { token },
      );
    const uploaded = async (csv: string, filename?: string) => {
      const answer = await upload(csv, filename);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.files[0];
    };
    const process = (id: number, body: Record<string, unknown>, token?: string) =>
      api<Envelope>(inventory, "POST", `/imports/process/${id}`, { body, token });
    const find = async (path: string) => (await api<List<Row>>(inventory, "GET", path)).body;

    test("an upload is kept under a generated name and described as Snipe-IT does", async () => {
      const csv = "Asset Tag,Item Name,Model Name\nIMP-0,Zero,Importer X\n";
      const answer = await upload(csv, "../../etc/Spring Import.csv");
      assert.equal(answer.status, 200);
      const [file] = answer.body.files;
      assert.match(file.file_path, /^[0-9a-f-]{36}\.csv$/);
      assert.equal(file.name, "Spring Import.csv", "the client's name is shown without its directories");
      assert.equal(file.filesize, `${csv.length} B`);
      assert.equal(file.import_type, null);
      assert.match(file.created_at, /^\d+ seconds? ago$/);
      assert.deepEqual(file.header_row, ["Asset Tag", "Item Name", "Model Name"]);
      assert.deepEqual(file.first_row, ["IMP-0", "Zero", "Importer X"]);
      assert.equal(file.field_map, null);
      assert.deepEqual(await readdir(importsDir()), [file.file_path]);

      const listed = await api<ImportObject[]>(inventory, "GET", "/imports");
      assert.ok(Array.isArray(listed.body), "the list is a bare array");
      assert.equal(listed.body[0].id, file.id);
    });

    test("processing an asset import creates what it names, through the API's own writes", async () => {
      const file = await uploaded(
        [
          "Asset Tag,Item Name,Model Name,Model Number,Category,Manufacturer,Status,Location,Serial Number,Purchase Cost,Purchase Date,Full Name,Email",
          'IMP-1,Laptop One,ImpBook,IB-1,Imported laptops,Imp Maker,,Imp Office,SN-1,"$1,299.50",2024-03-01,Grace Hopper,grace@example.com',
          "IMP-2,Laptop Two,ImpBook,IB-1,Imported laptops,Imp Maker,Imp Broken,Imp Office,SN-2,,,,",
        ].join("\n"),
      );
      const done = await process(file.id, { "import-type": "asset" });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.deepEqual(done.body, {
        status: "success",
        messages: { redirect_url: `${inventory.url}/hardware` },
        payload: null,
      });

      const first = await api<Record<string, unknown>>(inventory, "GET", "/hardware/bytag/IMP-1");
      assert.equal(first.body.name, "Laptop One");
      assert.equal(first.body.serial, "SN-1");
      assert.equal(first.body.purchase_cost, "1,299.50");
      assert.deepEqual((first.body.purchase_date as { date: string }).date, "2024-03-01");
      assert.equal((first.body.model as { name: string }).name, "ImpBook");
      assert.equal((first.body.category as { name: string }).name, "Imported laptops");
      assert.equal((first.body.manufacturer as { name: string }).name, "Imp Maker");
      assert.equal(
        (first.body.status_label as { name: string }).name,
        "Ready to Deploy",
        "no status: the first deployable label",
      );
      assert.equal((first.body.rtd_location as { name: string }).name, "Imp Office");
      assert.equal(
        first.body.location,
        null,
        "checked out to someone without a location, it moved with them",
      );
      const holder = first.body.assigned_to as { type: string; name: string; email: string };
      assert.deepEqual(
        [holder.type, holder.name, holder.email],
        ["user", "Grace Hopper", "grace@example.com"],
      );

      const second = await api<Record<string, unknown>>(inventory, "GET", "/hardware/bytag/IMP-2");
      const label = second.body.status_label as { name: string; status_type: string };
      assert.deepEqual(
        [label.name, label.status_type],
        ["Imp Broken", "deployable"],
        "a new label is deployable",
      );
      assert.equal(second.body.assigned_to, null);
      assert.equal((second.body.location as { name: string }).name, "Imp Office");
      assert.equal((await find("/models?search=ImpBook")).total, 1, "one model for both rows");

      const history = await api<List<{ action_type: string }>>(
        inventory,
        "GET",
        `/hardware/${second.body.id}/history`,
      );
      assert.ok(
        history.body.rows.some((entry) => entry.action_type === "create new"),
        "the create is in the log",
      );
      const listed = await api<ImportObject[]>(inventory, "GET", "/imports");
      assert.equal(listed.body.find((item) => item.id === file.id)?.import_type, "asset");
    });

    test("row errors: 500 import-errors by item name and field; good rows stay, bad rows leave nothing", async () => {
      const file = await uploaded(
        [
          "Asset Tag,Item Name,Model Name,Category,Purchase Date",
          "IMP-10,Good Row,ImpBook,Imported laptops,2024-01-01",
          "IMP-11,Bad Date,ImpBook,Phantom category,not-a-date",
          "IMP-1,Taken Tag,ImpBook,Imported laptops,",
          "IMP-12,No Model,,,",
        ].join("\n"),
      );
      const answer = await process(file.id, { "import-type": "asset" });
      assert.equal(answer.status, 500);
      assert.deepEqual(answer.body, {
        status: "import-errors",
        messages: {
          "Bad Date": { purchase_date: "The purchase date field must be a valid date." },
          "Taken Tag": { asset_tag: "The asset tag must be unique." },
          "No Model": { model_id: "The model id field is required." },
        },
        payload: null,
      });
      assert.equal((await api<Row>(inventory, "GET", "/hardware/bytag/IMP-10")).body.name, "Good Row");
      assert.equal((await api<Envelope>(inventory, "GET", "/hardware/bytag/IMP-11")).body.status, "error");
      assert.equal(
        (await find("/categories?search=Phantom")).total,
        0,
        "the failed row's category went with it",
      );
      assert.equal((await api<Row>(inventory, "GET", "/hardware/bytag/IMP-1")).body.name, "Laptop One");
    });

    test("import-update updates the rows whose asset tag exists; column-mappings name the columns", async () => {
      const file = await uploaded("Tag,Label,Notes\nIMP-1,Renamed One,updated by import\n");
      const refused = await process(file.id, {
        "import-type": "asset",
        "column-mappings": { Tag: "asset_tag", Label: "item_name", Notes: "notes" },
      });
      assert.deepEqual(refused.body.messages, {
        "Renamed One": { asset_tag: "The asset tag must be unique." },
      });
      const updated = await process(file.id, {
        "import-type": "asset",
        "column-mappings": { Tag: "asset_tag", Label: "item_name", Notes: "notes" },
        "import-update": true,
      });
      assert.equal(updated.body.status, "success", JSON.stringify(updated.body));
      const asset = (await api<Row>(inventory, "GET", "/hardware/bytag/IMP-1")).body;
      assert.equal(asset.name, "Renamed One");
      assert.equal(asset.notes, "updated by import");
      assert.equal(asset.serial, "SN-1", "a column the file lacks keeps its value");
      const listed = await api<ImportObject[]>(inventory, "GET", "/imports");
      assert.deepEqual(listed.body.find((item) => item.id === file.id)?.field_map, {
        Tag: "asset_tag",
        Label: "item_name",
        Notes: "notes",
      });
    });

    test("users, locations, accessories, consumables, components and licenses import too", async () => {
      const users = await uploaded(
        "First Name,Last Name,Username,Email,Location,Department,Employee Number\nAlan,Turing,aturing,alan@example.com,Bletchley,Codes,7\nKatherine,Johnson,,kj@example.com,,,\n",
      );
      assert.equal((await process(users.id, { "import-type": "user" })).body.status, "success");
      const alan = (await find("/users?search=aturing")).rows[0];
      assert.equal(alan.email, "alan@example.com");
      assert.equal(alan.employee_num, "7");
      assert.equal((alan.location as { name: string }).name, "Bletchley");
      assert.equal((alan.department as { name: string }).name, "Codes");
      assert.equal(
        (await find("/users?username=katherine.johnson")).total,
        1,
        "firstname.lastname when no username",
      );

      const places = await uploaded("Name,Parent Location,City\nImp Wing,Imp Campus,Leeds\n");
      assert.equal((await process(places.id, { "import-type": "location" })).body.status, "success");
      const wing = (await find("/locations?search=Imp Wing")).rows[0];
      assert.equal(wing.city, "Leeds");
      assert.equal((wing.parent as { name: string }).name, "Imp Campus");

      const stock = "Item Name,Category,Quantity,Purchase Cost\nImp Cable,Imp Stock,12,3.50\n";
      for (const [type, path] of [
        ["accessory", "accessories"],
        ["consumable", "consumables"],
        ["component", "components"],
      ]) {
        const file = await uploaded(stock);
        const done = await process(file.id, { "import-type": type });
        assert.equal(done.body.status, "success", `${type}: ${JSON.stringify(done.body)}`);
        assert.equal(
          done.body.messages && (done.body.messages as { redirect_url: string }).redirect_url,
          `${inventory.url}/${path}`,
        );
        const [item] = (await find(`/${path}?search=Imp Cable`)).rows;
        assert.equal(item.qty, 12, type);
        assert.equal((item.category as { name: string }).name, "Imp Stock");
      }
      const categories = await find("/categories?search=Imp Stock");
      assert.equal(categories.total, 3, "one category of each item type");

      const licenses = await uploaded(
        "Item Name,Seats,Category,Serial Number,Licensed To Email\nImp Office Suite,5,Imp Software,KEY-1,it@example.com\n",
      );
      assert.equal((await process(licenses.id, { "import-type": "license" })).body.status, "success");
      const [suite] = (await find("/licenses?search=Imp Office Suite")).rows;
      assert.equal(suite.seats, 5);
      assert.equal(suite.free_seats_count, 5);
      assert.equal(suite.license_email, "it@example.com");
    });

    test("bad uploads: not a CSV, unreadable, duplicate headers, empty, too large — 422 or 413, nothing kept", async () => {
      const before = await readdir(importsDir());
      const png = await upload(Buffer.from([0x89, 0x50, 0x4e, 0x47]), "logo.png", undefined, "image/png");
      assert.equal(png.status, 422);
      assert.deepEqual(png.body, {
        status: "error",
        messages: "File type must be CSV. Uploaded file is image/png",
        payload: null,
      });

      const unclosed = await upload('Asset Tag,Item Name\nX-1,"never closed\n');
      assert.equal(unclosed.status, 422);
      assert.match(String(unclosed.body.messages), /^The file is not a readable CSV file: /);

      const duplicate = await upload("Asset Tag,Name,Asset Tag\nA,B,C\n");
      assert.equal(duplicate.status, 422);
      assert.equal(
        duplicate.body.messages,
        "Duplicate header 'Asset Tag' detected, first at column: 1, repeats at column: 3",
      );

      const empty = await upload("");
      assert.equal(empty.status, 422);

      const none = await postMultipart<Envelope>(inventory, "/imports", [{ name: "note", value: "no file" }]);
      assert.equal(none.status, 422);

      const big = await upload(`Asset Tag\n${"x".repeat(70 * 1024)}\n`);
      assert.equal(big.status, 413);
      assert.equal(big.body.status, "error");
      assert.deepEqual(await readdir(importsDir()), before);
      assert.deepEqual(await readdir(join(inventory.server.dataDir, "inventory", "incoming")), []);
    });

    test("a file that is not UTF-8 is transliterated from Windows-1252", async () => {
      const latin = Buffer.from("Item Name,Notes\nCaf\xe9 Table,na\xefve\n", "latin1");
      const answer = await upload(latin);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.files[0].first_row, ["Café Table", "naïve"]);
    });

    test("processing refuses an unknown import, a missing or wrong type, and mappings that are not an object", async () => {
      const unknown = await process(99999, { "import-type": "asset" });
      assert.equal(unknown.status, 500);
      assert.deepEqual(unknown.body, {
        status: "import-errors",
        messages: [["The selected file is invalid."]],
        payload: null,
      });
      const file = await uploaded("Asset Tag\nIMP-99\n");
      const missing = await process(file.id, {});
      assert.deepEqual(missing.body, {
        status: "error",
        messages: { "import-type": ["The import-type field is required."] },
        payload: null,
      });
      const wrong = await process(file.id, { "import-type": "spaceship" });
      assert.deepEqual(wrong.body.messages, { "import-type": ["The selected import-type is invalid."] });
      const mappings = await process(file.id, { "import-type": "asset", "column-mappings": "Asset Tag" });
      assert.deepEqual(mappings.body.messages, {
        "column-mappings": ["The column-mappings field must be an array."],
      });
      assert.equal((await api<Envelope>(inventory, "GET", "/hardware/bytag/IMP-99")).body.status, "error");
      await rm(join(importsDir(), file.file_path));
      const vanished = await process(file.id, { "import-type": "asset" });
      assert.equal(vanished.status, 500, "an import whose file is gone is as good as missing");
      assert.deepEqual(vanished.body.messages, [["The selected file is invalid."]]);
    });

    test("the import permission: others' imports stay unseen; delete removes the file", async () => {
      const outsider = await userWithToken(inventory, "imp-outsider", { "assets.create": "1", admin: "1" });
      const denied = await api(inventory, "GET", "/imports", { token: outsider.token });
      assert.equal(denied.status, 403, "admin does not imply import");
      assert.deepEqual(denied.body, { message: "This action is unauthorized." });
      const refusedUpload = await upload("Asset Tag\nX\n", "x.csv", outsider.token);
      assert.equal(refusedUpload.status, 403);

      const clerk = await userWithToken(inventory, "imp-clerk", { import: "1" });
      const own = await upload(
        "Item Name,Category,Quantity\nClerk Mouse,Clerk Stock,3\n",
        "mine.csv",
        clerk.token,
      );
      assert.equal(own.status, 200);
      const mine = own.body.files[0];
      const seen = await api<ImportObject[]>(inventory, "GET", "/imports", { token: clerk.token });
      assert.deepEqual(
        seen.body.map((item) => item.id),
        [mine.id],
      );
      const admins = (await api<ImportObject[]>(inventory, "GET", "/imports")).body;
      assert.ok(
        admins.length > 1 && admins.some((item) => item.id === mine.id),
        "a superuser sees every import",
      );
      const foreign = await process(
        admins.find((item) => item.id !== mine.id)?.id ?? 0,
        { "import-type": "asset" },
        clerk.token,
      );
      assert.equal(foreign.status, 500, "another user's import is as good as missing");
      const done = await process(mine.id, { "import-type": "accessory" }, clerk.token);
      assert.equal(done.body.status, "success", "import is enough, whatever else the user may not do");
      const [mouse] = (await find("/accessories?search=Clerk Mouse")).rows;
      assert.deepEqual(mouse.created_by, { id: clerk.id, name: "imp-clerk" });

      const notMine = await api<Envelope>(inventory, "DELETE", `/imports/${admins[admins.length - 1].id}`, {
        token: clerk.token,
      });
      assert.equal(notMine.body.status, "warning");
      const removed = await api<Envelope>(inventory, "DELETE", `/imports/${mine.id}`, { token: clerk.token });
      assert.deepEqual(removed.body, {
        status: "success",
        messages: "Your file has been been successfully deleted",
        payload: null,
      });
      assert.ok(!(await readdir(importsDir())).includes(mine.file_path));
      const twice = await api<Envelope>(inventory, "DELETE", `/imports/${mine.id}`, { token: clerk.token });
      assert.deepEqual(twice.body, {
        status: "warning",
        messages: "The file was unable to be deleted",
        payload: null,
      });
    });

    test("two imports of the same asset tags at once: each tag is stored once, the other row refused or updated", async () => {
      const seed = await uploaded(
        "Asset Tag,Item Name,Model Name,Category\nRACESEED-0,Seed,Race Book,Race laptops\n",
      );
      assert.equal((await process(seed.id, { "import-type": "asset" })).body.status, "success");
      const file = (prefix: string, side: string, from: number, to: number) =>
        uploaded(
          [
            "Asset Tag,Item Name,Model Name,Category",
            ...Array.from(
              { length: to - from + 1 },
              (_, index) => `${prefix}-${from + index},${side} ${from + index},Race Book,Race laptops`,
            ),
          ].join("\n"),
        );
      const progressOf = async (id: number) =>
        (await api<Record<string, number>>(inventory, "GET", `/imports/${id}`)).body;
      const stored = async (prefix: string) =>
        (await inventory.server.app.database?.db
          .selectFrom("assets")
          .select(["asset_tag", "name"])
          .where("asset_tag", "like", `${prefix}-%`)
          .where("deleted_at", "is", null)
          .execute()) ?? [];
      // Rows 1-300 are A's alone, 601-900 B's alone, 301-600 both's: more than a batch each.
      for (const update of [false, true]) {
        const prefix = update ? "RACEU" : "RACE";
        const [a, b] = [await file(prefix, "A", 1, 600), await file(prefix, "B", 301, 900)];
        const body = { "import-type": "asset", "import-update": update };
        const answers = await Promise.all([process(a.id, body), process(b.id, body)]);
        const [doneA, doneB] = [await progressOf(a.id), await progressOf(b.id)];
        const assets = await stored(prefix);
        assert.equal(assets.length, 900, "every tag once");
        assert.equal(new Set(assets.map((asset) => asset.asset_tag)).size, 900);
        assert.equal(doneA.rows_created + doneB.rows_created, 900);
        if (update) {
          assert.deepEqual(
            [doneA.rows_updated + doneB.rows_updated, doneA.rows_failed + doneB.rows_failed],
            [300, 0],
          );
          continue;
        }
        assert.equal(doneA.rows_failed + doneB.rows_failed, 300);
        const refused = answers.flatMap((answer) =>
          answer.body.status === "import-errors"
            ? Object.entries(answer.body.messages as Record<string, Record<string, string>>)
            : [],
        );
        const winners = new Map(assets.map((asset) => [asset.asset_tag, asset.name]));
        for (const [name, messages] of refused) {
          assert.deepEqual(messages, { asset_tag: "The asset tag must be unique." });
          const [side, n] = name.split(" ");
          assert.ok(Number(n) > 300 && Number(n) <= 600, name);
          assert.equal(
            winners.get(`${prefix}-${n}`),
            `${side === "A" ? "B" : "A"} ${n}`,
            "the other import's row holds it",
          );
        }
        assert.equal(refused.length, 300);
      }
    });

    test("a webhook for asset.create hears of every asset an import creates, written together or alone", async () => {
      const hook = await api<Envelope<{ id: number }>>(inventory, "POST", "/webhooks", {
        body: { name: "import hook", url: "https://hooks.example.invalid/import", events: ["asset.create"] },
      });
      assert.equal(hook.body.status, "success", JSON.stringify(hook.body));
      const deliveries = async () =>
        (
          await api<List<{ event: string }>>(inventory, "GET", `/webhooks/${hook.body.payload.id}/deliveries`)
        ).body.rows.filter((delivery) => delivery.event === "asset.create").length;
      // Two rows name records that exist (written together), one a new model (written alone).
      const file = await uploaded(
        "Asset Tag,Item Name,Model Name,Category\nIMP-H1,Heard one,ImpBook,Imported laptops\nIMP-H2,Heard two,ImpBook,Imported laptops\nIMP-H3,Heard three,Hook Book,Imported laptops\n",
      );
      assert.equal((await process(file.id, { "import-type": "asset" })).body.status, "success");
      assert.equal(await deliveries(), 3);
      assert.equal(
        (await api<Envelope>(inventory, "DELETE", `/webhooks/${hook.body.payload.id}`)).status,
        200,
      );
    });

    test("run-backup copies an SQLite database before the import", async () => {
      const file = await uploaded("Asset Tag,Model Name,Category\nIMP-50,ImpBook,Imported laptops\n");
      const done = await process(file.id, { "import-type": "asset", "run-backup": true });
      assert.equal(done.body.status, "success", JSON.stringify(done.body));
      const backups = await readdir(join(inventory.server.dataDir, "inventory", "backups")).catch(() => []);
      if (inventory.database.url.startsWith("sqlite:"))
        assert.match(backups[0] ?? "", /^pre-import-backup-.*\.sqlite$/);
      else assert.deepEqual(backups, []);
    });

    test("run-backup keeps the newest backups only, however many imports ask for one", async () => {
      const backupsDir = join(inventory.server.dataDir, "inventory", "backups");
      const seen: string[] = [];
      for (let run = 0; run < KEPT_BACKUPS + 2; run += 1) {
        const file = await uploaded(`Asset Tag,Model Name,Category\nIMP-6${run},ImpBook,Imported laptops\n`);
        const done = await process(file.id, { "import-type": "asset", "run-backup": true });
        assert.equal(done.body.status, "success", JSON.stringify(done.body));
        const now = await readdir(backupsDir).catch(() => []);
        seen.push(...now.filter((name) => !seen.includes(name)));
      }
      const kept = (await readdir(backupsDir).catch(() => [])).sort();
      if (inventory.database.url.startsWith("sqlite:")) {
        assert.equal(kept.length, KEPT_BACKUPS, kept.join(", "));
        assert.deepEqual(kept, seen.sort().slice(-KEPT_BACKUPS), "the newest are kept");
      } else assert.deepEqual(kept, []);
    });
  },
  LIMITS,
);
