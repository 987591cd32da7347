import assert from "node:assert/strict";
import { test } from "node:test";
import type { AnyKysely } from "@anvil/core";
import { BATCH_ROWS, MAX_REPORTED_ROWS } from "../../src/services/imports.ts";
import type { Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { postMultipart } from "../support/uploads.ts";

// Imports of many rows (spec §21): batches with per-row results, progress while processing, and
// update mode that leaves identical rows alone.

const LIMITS = { apiThrottlePerMinute: 0, uploads: { fileSize: 4 * 1024 * 1024, files: 1 } };

interface Progress {
  id: number;
  import_type: string | null;
  import_status: string | null;
  rows_total: number | null;
  rows_processed: number;
  rows_created: number;
  rows_updated: number;
  rows_unchanged: number;
  rows_failed: number;
  started_at: { datetime: string } | null;
  finished_at: { datetime: string } | null;
  errors: Array<{ row: number; name: string | null; messages: Record<string, string> }>;
}

const HEADER =
  "Asset Tag,Item Name,Model Name,Model Number,Category,Manufacturer,Status,Location,Serial Number,Purchase Cost,Purchase Date,Requestable,Notes,Full Name,Email";

/** `count` asset rows tagged `<prefix>-<n>`; the nth row is bad when `bad(n)` says so. */
function assetCsv(prefix: string, count: number, bad: (n: number) => boolean = () => false): string {
  const lines = [HEADER];
  for (let n = 1; n <= count; n += 1) {
    const date = bad(n) ? "not-a-date" : `2024-0${(n % 9) + 1}-1${n % 10}`;
    // Every tenth asset goes to a person, which checks it out on creation.
    const person = n % 10 === 0 ? `Scale Person${n % 3},scale${n % 3}@example.com` : ",";
    lines.push(
      `${prefix}-${n},Scale ${prefix} ${n},Scale Book,SB-${n % 4},Scale laptops,Scale Maker,,Scale Office ${n % 5},SN-${prefix}-${n},"$1,${n % 1000}.50",${date},${n % 2 === 0 ? "yes" : "no"},row ${n},${person}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

forEachInventory(
  "inventory API: CSV imports at scale",
  (inventory) => {
    const db = () => inventory.server.app.database?.db as AnyKysely;
    const uploaded = async (csv: string) => {
      const answer = await postMultipart<{ files: Array<{ id: number; rows_total: number }> } & Envelope>(
        inventory,
        "/imports",
        [{ name: "files[]", value: Buffer.from(csv), filename: "scale.csv", type: "text/csv" }],
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.files[0];
    };
    const process = (id: number, body: Record<string, unknown>) =>
      api<Envelope>(inventory, "POST", `/imports/process/${id}`, { body });
    const progressOf = async (id: number) => {
      const answer = await api<Progress>(inventory, "GET", `/imports/${id}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body;
    };

    test("good rows are stored and bad rows reported with their row and reason, across batches", async () => {
      const count = BATCH_ROWS * 2 + 200;
      const bad = (n: number) => n % 100 === 7;
      const file = await uploaded(assetCsv("GB", count, bad));
      assert.equal(file.rows_total, count, "the upload counts the rows");

      const answer = await process(file.id, { "import-type": "asset" });
      assert.equal(answer.status, 500);
      assert.equal(answer.body.status, "import-errors");
      const failedRows = Array.from({ length: count }, (_, index) => index + 1).filter(bad);
      assert.deepEqual(
        answer.body.messages,
        Object.fromEntries(
          failedRows.map((n) => [
            `Scale GB ${n}`,
            { purchase_date: "The purchase date field must be a valid date." },
          ]),
        ),
      );

      const done = await progressOf(file.id);
      assert.equal(done.import_status, "completed");
      assert.equal(done.import_type, "asset");
      assert.deepEqual(
        [done.rows_total, done.rows_processed, done.rows_created, done.rows_updated, done.rows_failed],
        [count, count, count - failedRows.length, 0, failedRows.length],
      );
      assert.ok(done.started_at && done.finished_at, "it says when it ran");
      assert.deepEqual(
        done.errors,
        failedRows.map((n) => ({
          row: n + 1,
          name: `Scale GB ${n}`,
          messages: { purchase_date: "The purchase date field must be a valid date." },
        })),
        "each failed row by its CSV record number (the header is 1)",
      );
      const stored = await db()
        .selectFrom("assets")
        .select((select) => select.fn.countAll().as("n"))
        .where("asset_tag", "like", "GB-%")
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.n), count - failedRows.length);
      const last = await api<Record<string, unknown>>(inventory, "GET", `/hardware/bytag/GB-${count}`);
      assert.equal(last.body.name, `Scale GB ${count}`, "the last batch is stored");
      assert.equal((await api<Envelope>(inventory, "GET", "/hardware/bytag/GB-107")).body.status, "error");
      const listed = await api<Progress[]>(inventory, "GET", "/imports");
      const entry = listed.body.find((item) => item.id === file.id);
      assert.equal(entry?.rows_failed, failedRows.length, "the list shows progress too");
      assert.equal((entry as unknown as Record<string, unknown>).errors, undefined, "but not the errors");
    });

    test("errors kept are bounded: the first rows' reasons, counts for the rest", async () => {
      const count = MAX_REPORTED_ROWS + 30;
      const file = await uploaded(
        `Asset Tag,Item Name\n${Array.from({ length: count }, (_, n) => `BD-${n},No model ${n}`).join("\n")}\n`,
      );
      const answer = await process(file.id, { "import-type": "asset" });
      assert.equal(Object.keys(answer.body.messages as object).length, MAX_REPORTED_ROWS);
      const done = await progressOf(file.id);
      assert.equal(done.rows_failed, count);
      assert.equal(done.errors.length, MAX_REPORTED_ROWS);
      assert.deepEqual(done.errors[0], {
        row: 2,
        name: "No model 0",
        messages: { model_id: "The model id field is required." },
      });
      assert.equal(done.errors.at(-1)?.row, MAX_REPORTED_ROWS + 1);
    });

    test("progress is visible while an import runs, and it cannot be started twice at once", async () => {
      const count = BATCH_ROWS * 4;
      const file = await uploaded(assetCsv("PR", count));
      const before = await progressOf(file.id);
      assert.deepEqual(
        [before.import_status, before.rows_total, before.rows_processed, before.started_at],
        [null, count, 0, null],
      );
      const running = process(file.id, { "import-type": "asset" });
      const seen: Progress[] = [];
      let twice: Envelope | undefined;
      for (;;) {
        const now = await progressOf(file.id);
        seen.push(now);
        if (now.import_status === "processing" && twice === undefined)
          twice = (await process(file.id, { "import-type": "asset" })).body;
        if (now.import_status === "completed") break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const finished = await running;
      assert.equal(finished.body.status, "success", JSON.stringify(finished.body));
      const during = seen.filter((step) => step.import_status === "processing");
      assert.ok(
        during.some((step) => step.rows_processed > 0 && step.rows_processed < count),
        `a count between none and all was seen: ${during.map((step) => step.rows_processed).join(", ")}`,
      );
      const processed = seen.map((step) => step.rows_processed);
      assert.deepEqual(
        processed,
        [...processed].sort((a, b) => a - b),
        "it only grows",
      );
      assert.ok(
        during.every((step) => step.rows_processed % BATCH_ROWS === 0),
        "what is shown is what is committed: whole batches",
      );
      assert.equal(seen.at(-1)?.rows_processed, count);
      assert.deepEqual(twice, {
        status: "error",
        messages: "This import is already being processed.",
        payload: null,
      });
    });

    test("re-running a file in update mode changes nothing; a changed row changes only itself", async () => {
      const count = 700;
      const csv = assetCsv("UP", count);
      const first = await uploaded(csv);
      assert.equal((await process(first.id, { "import-type": "asset" })).body.status, "success");
      const snapshot = () =>
        db()
          .selectFrom("assets")
          .select(["asset_tag", "updated_at", "assigned_to", "name", "notes"])
          .where("asset_tag", "like", "UP-%")
          .orderBy("asset_tag")
          .execute();
      const entries = async () =>
        Number(
          (
            await db()
              .selectFrom("action_logs")
              .select((select) => select.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const stored = await snapshot();
      const logged = await entries();
      assert.equal(stored.length, count);

      const again = await uploaded(csv);
      const rerun = await process(again.id, { "import-type": "asset", "import-update": true });
      assert.equal(rerun.body.status, "success", JSON.stringify(rerun.body));
      const unchanged = await progressOf(again.id);
      assert.deepEqual(
        [unchanged.rows_processed, unchanged.rows_created, unchanged.rows_updated, unchanged.rows_unchanged],
        [count, 0, 0, count],
      );
      assert.deepEqual(await snapshot(), stored, "no updated_at moved, no holder changed");
      assert.equal(await entries(), logged, "no activity entries");

      const edited = csv.replace("row 42,", "row forty-two,");
      const changed = await uploaded(edited);
      assert.equal(
        (await process(changed.id, { "import-type": "asset", "import-update": true })).body.status,
        "success",
      );
      const once = await progressOf(changed.id);
      assert.deepEqual([once.rows_updated, once.rows_unchanged], [1, count - 1]);
      assert.equal(await entries(), logged + 1, "one update entry");
      const after = await snapshot();
      const differing = after.filter((row, index) => JSON.stringify(row) !== JSON.stringify(stored[index]));
      assert.deepEqual(
        differing.map((row) => [row.asset_tag, row.notes]),
        [["UP-42", "row forty-two"]],
      );
    });

    test("GET /imports/{id}: another user's import or none is not found; the permission comes first", async () => {
      const missing = await api<Envelope>(inventory, "GET", "/imports/99999");
      assert.deepEqual(missing.body, { status: "error", messages: "Import not found.", payload: null });
      const mine = await uploaded("Asset Tag\nX-1\n");
      const clerk = await userWithToken(inventory, "scale-clerk", { import: "1" });
      const foreign = await api<Envelope>(inventory, "GET", `/imports/${mine.id}`, { token: clerk.token });
      assert.deepEqual(foreign.body, missing.body);
      const outsider = await userWithToken(inventory, "scale-outsider", { admin: "1" });
      const denied = await api(inventory, "GET", `/imports/${mine.id}`, { token: outsider.token });
      assert.equal(denied.status, 403);
    });
  },
  LIMITS,
);
