import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { rawBody, rawExchange } from "@anvil/core/testing";
import { assetFixture, createAsset, type Envelope } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { category } from "../support/items.ts";
import { PNG, postMultipart } from "../support/uploads.ts";

// Requests no well-behaved client sends: each answered in Snipe-IT's shape, never a 500 or a crash,
// and nothing read or kept for a caller who may not make the request.

forEachInventory("inventory API: hostile requests", (inventory) => {
  const staged = () => readdir(join(inventory.server.dataDir, "inventory", "incoming")).catch(() => []);
  const images = () => readdir(join(inventory.server.dataDir, "inventory", "uploads")).catch(() => []);

  test("a caller without permission is refused before the body: no field read, no file staged", async () => {
    const nobody = await userWithToken(inventory, "hostile-nobody", {});
    // 100 MB announced, a few bytes sent: the 403 comes at once, not after the body.
    const answer = await rawExchange(
      inventory.url,
      [
        `POST /api/v1/hardware HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${nobody.token}\r\nAccept: application/json\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 104857600\r\n\r\n`,
        '--XyZ\r\nContent-Disposition: form-data; name="notes"\r\n\r\n',
      ],
      2_000,
    );
    assert.match(answer.text, /^HTTP\/1\.1 403 /);
    assert.equal(rawBody<{ message: string }>(answer).message, "This action is unauthorized.");

    const refused = await postMultipart(
      inventory,
      "/hardware",
      [
        { name: "asset_tag", value: "NOPE-1" },
        { name: "image", value: PNG, filename: "a.png", type: "image/png" },
      ],
      { token: nobody.token },
    );
    assert.equal(refused.status, 403);
    assert.deepEqual(await staged(), []);
    assert.deepEqual(await images(), []);

    // The same for a JSON check-out by a caller who may only look: refused with 5 MB still to come.
    const viewer = await userWithToken(inventory, "hostile-viewer", { "assets.view": "1" });
    for (const path of ["/hardware/1/checkout", "/accessories/1/checkout", "/licenses/1/checkout"]) {
      const checkout = await rawExchange(
        inventory.url,
        [
          `POST /api/v1${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${viewer.token}\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n`,
          '{"checkout_to_type":"',
        ],
        2_000,
      );
      assert.match(checkout.text, /^HTTP\/1\.1 403 /, path);
    }
  });

  test("every write whose permission is known from the request refuses before its body", async () => {
    const nobody = await userWithToken(inventory, "hostile-writer", { "assets.view": "1" });
    // Custom fields, restores, by-tag actions (the permission follows the path), imports, the drafts.
    const writes = [
      "POST /api/v1/fields",
      "PATCH /api/v1/fields/1",
      "PUT /api/v1/fields/1",
      "POST /api/v1/fields/1/associate",
      "POST /api/v1/fields/1/disassociate",
      "POST /api/v1/fields/fieldsets/1/order",
      "POST /api/v1/fieldsets",
      "PATCH /api/v1/fieldsets/1",
      "PUT /api/v1/fieldsets/1",
      "POST /api/v1/fieldsets/1/fields",
      "POST /api/v1/fieldsets/1/fields/1",
      "POST /api/v1/hardware/1/restore",
      "POST /api/v1/manufacturers/1/restore",
      "POST /api/v1/users/1/restore",
      "POST /api/v1/hardware/bytag/T-1/checkout",
      "POST /api/v1/hardware/bytag/a/b/checkin",
      "POST /api/v1/imports/process/1",
      "POST /api/hardware/create",
      "PATCH /api/hardware/1",
      "POST /api/hardware/1/checkout",
      "POST /api/hardware/1/checkin",
    ];
    // All at once: each must be answered within the wait, though its body never comes.
    const announced = (write: string) =>
      rawExchange(
        inventory.url,
        [
          `${write} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${nobody.token}\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n`,
          '{"name":"',
        ],
        2_000,
      );
    const refusals = await Promise.all(writes.map(announced));
    for (const [index, write] of writes.entries()) {
      const [method, path] = write.split(" ");
      // The answer a whole (empty) body gets: the announced 5 MB gets the same, at once.
      const whole = await fetch(`${inventory.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${nobody.token}`,
          accept: "application/json",
          "content-type": "application/json",
        },
        body: "{}",
      });
      assert.equal(whole.status, 403, write);
      assert.match(refusals[index].text, /^HTTP\/1\.1 403 /, write);
      assert.deepEqual(rawBody(refusals[index]), await whole.json(), write);
    }
  });

  test("multipart text fields are limited together: over 1 MB in small fields is a 413 in the envelope", async () => {
    const fixture = await assetFixture(inventory, "hostile");
    const id = await createAsset(inventory, fixture, "HOSTILE-1");
    const parts = Array.from({ length: 40 }, (_, i) => ({ name: `field${i}`, value: "z".repeat(32 * 1024) }));
    const res = await postMultipart<Envelope>(inventory, `/hardware/${id}`, parts, { method: "PATCH" });
    assert.equal(res.status, 413);
    assert.equal(res.body.status, "error");
    assert.deepEqual(await staged(), []);
  });

  test("a check-out whose checkout_to_type is nested 10,000 deep is a 422 Invalid JSON, not a 500", async () => {
    const fixture = await assetFixture(inventory, "deep");
    const id = await createAsset(inventory, fixture, "DEEP-1");
    const deep = await api<Envelope>(inventory, "POST", `/hardware/${id}/checkout`, {
      rawBody: `{"checkout_to_type":${"[".repeat(10_000)}${"]".repeat(10_000)},"assigned_user":${fixture.userId}}`,
    });
    assert.equal(deep.status, 422);
    assert.deepEqual(deep.body, { status: "error", messages: "Invalid JSON", payload: null });
  });

  test("a body on GET or DELETE is ignored", async () => {
    const fixture = await assetFixture(inventory, "ignored");
    const id = await createAsset(inventory, fixture, "IGNORED-1");
    // A multipart body on a GET: neither parsed nor staged.
    const read = await rawExchange(inventory.url, [
      `GET /api/v1/hardware/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${inventory.adminToken}\r\nAccept: application/json\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{not json`,
    ]);
    assert.equal(rawBody<{ asset_tag: string }>(read).asset_tag, "IGNORED-1");
    const deleted = await api<Envelope>(inventory, "DELETE", `/hardware/${id}`, { rawBody: "{not json" });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, "success");
  });

  test("a NUL character in a path, a query or a body is a 404 or a validation error, not a database error", async () => {
    const user = await api(inventory, "GET", "/users/1%00");
    assert.equal(user.status, 404);
    const search = await api<Envelope>(inventory, "GET", "/hardware?search=%00");
    assert.equal(search.body.status, "error");
    assert.deepEqual(Object.keys(search.body.messages as object), ["search"]);
    const body = await api<Envelope>(inventory, "POST", "/locations", {
      body: { name: "NUL place", address: "a\u0000b" },
    });
    assert.equal(body.body.status, "error");
    assert.deepEqual(Object.keys(body.body.messages as object), ["address"]);
    const listed = await api<{ total: number }>(inventory, "GET", "/locations?search=NUL");
    assert.equal(listed.body.total, 0, "nothing was stored");
  });

  test("a path id beyond what a JS number holds exactly finds nothing, never a database error", async () => {
    for (const [method, path] of [
      ["GET", "/hardware/99999999999999999999"],
      ["DELETE", "/hardware/99999999999999999999"],
      ["GET", "/users/99999999999999999999"],
      ["PATCH", "/locations/9007199254740993"],
    ]) {
      const answer = await api<Envelope>(inventory, method, path, {
        body: method === "PATCH" ? {} : undefined,
      });
      console.log("PROBE", method, path, answer.status, JSON.stringify(answer.body));
      assert.equal(answer.body.status, "error");
      assert.match(String(answer.body.messages), /not (exist|found)/i);
    }
  });

  test("a NUL character escaped in the JSON of an asset filter is a validation error, not a database error", async () => {
    for (const filter of ['{"name":"\\u0000"}', '{"\\u0000":"x"}']) {
      for (const path of ["/hardware", "/hardware/audit/due-or-overdue"]) {
        const answer = await api<Envelope>(inventory, "GET", `${path}?filter=${encodeURIComponent(filter)}`);
        assert.equal(answer.status, 200, `${path} ${filter}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(answer.body.messages, {
          filter: ["The filter field must not contain NUL characters."],
        });
      }
    }
  });

  test("a date the date rule reads loosely is stored as the YYYY-MM-DD it names, never a database error", async () => {
    const categoryId = await category(inventory, "component", "Loose dates");
    for (const [given, stored] of [
      ["fuzz-985", "0985-01-01"],
      ["March 7, 2024", "2024-03-07"],
    ]) {
      const answer = await api<Envelope<{ purchase_date: { date: string } }>>(
        inventory,
        "POST",
        "/components",
        {
          body: { name: "Loosely dated", qty: 2, category_id: categoryId, purchase_date: given },
        },
      );
      assert.equal(answer.status, 200, `${given}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.status, "success", given);
      assert.equal(answer.body.payload.purchase_date.date, stored, given);
    }
    const outside = await api<Envelope>(inventory, "POST", "/components", {
      body: { name: "Far future", qty: 2, category_id: categoryId, purchase_date: "x-99999" },
    });
    assert.deepEqual(outside.body.messages, {
      purchase_date: ["The purchase date field must be a valid date."],
    });
  });

  test("CONNECT and unknown methods get an answer in the envelope; the connection closes after it", async () => {
    const connectAnswer = await rawExchange(inventory.url, [
      "CONNECT /api/v1/hardware HTTP/1.1\r\nHost: x\r\n\r\n",
    ]);
    assert.match(connectAnswer.text, /^HTTP\/1\.1 405 /);
    assert.deepEqual(rawBody(connectAnswer), {
      status: "error",
      messages: "Method not allowed",
      payload: null,
    });
    assert.equal(connectAnswer.ending, "closed");

    const unknown = await rawExchange(inventory.url, ["BREW /api/v1/hardware HTTP/1.1\r\nHost: x\r\n\r\n"]);
    assert.match(unknown.text, /^HTTP\/1\.1 400 /);
    assert.deepEqual(rawBody(unknown), { status: "error", messages: "Bad Request", payload: null });
    assert.equal(unknown.ending, "closed");

    const longUrl = await rawExchange(inventory.url, [
      `POST /api/v1/hardware?x=${"a".repeat(1024 * 1024)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    ]);
    assert.match(longUrl.text, /^HTTP\/1\.1 431 /);
    assert.equal(longUrl.ending, "closed");
  });
});
