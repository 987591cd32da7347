import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { PNG, postMultipart } from "../support/uploads.ts";

// Attachments of assets and models (spec §7.1, §8) and records' images (spec §7.4 `image`).

const LIMITS = { apiThrottlePerMinute: 0, uploads: { fileSize: 64 * 1024, files: 5 } };

interface FileObject {
  id: number;
  filename: string;
  note: string | null;
  url: string;
  created_by: { id: number; name: string } | null;
}

async function filesIn(directory: string): Promise<string[]> {
  return readdir(directory).catch(() => []);
}

forEachInventory(
  "inventory API: file attachments and images",
  (inventory) => {
    let fixture: AssetFixture;
    let assetId: number;
    const attachments = () => join(inventory.server.dataDir, "inventory", "private_uploads", "assets");
    const images = (folder: string) => join(inventory.server.dataDir, "inventory", "uploads", folder);

    test("an asset takes files: upload, list, download with a safe name, delete", async () => {
      fixture = await assetFixture(inventory, "att");
      assetId = await createAsset(inventory, fixture, "ATT-1");
      const uploaded = await postMultipart<Envelope>(inventory, `/hardware/${assetId}/files`, [
        {
          name: "file[]",
          value: Buffer.from("%PDF-1.4 invoice"),
          filename: "Invoice 2024.pdf",
          type: "application/pdf",
        },
        {
          name: "file[]",
          value: Buffer.from("serial: 123"),
          filename: "../../etc/passwd.txt",
          type: "text/plain",
        },
        { name: "notes", value: "purchase papers" },
      ]);
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      assert.equal(uploaded.body.status, "success");
      assert.equal(uploaded.body.messages, "File(s) successfully uploaded.");
      assert.equal(uploaded.body.payload.asset_tag, "ATT-1");

      const listed = await api<Envelope<FileObject[]>>(inventory, "GET", `/hardware/${assetId}/files`);
      assert.equal(listed.body.status, "success");
      const files = listed.body.payload;
      assert.equal(files.length, 2);
      assert.match(files[0].filename, new RegExp(`^hardware-${assetId}-[0-9a-f]{8}-invoice-2024\\.pdf$`));
      assert.match(files[1].filename, new RegExp(`^hardware-${assetId}-[0-9a-f]{8}-passwd\\.txt$`));
      assert.equal(files[0].note, "purchase papers");
      assert.deepEqual(files[0].created_by, { id: 1, name: "Admin" });
      assert.equal(files[0].url, `${inventory.url}/api/v1/hardware/${assetId}/file/${files[0].id}`);
      // The client's "../../etc/passwd.txt" named nothing outside the attachments folder.
      assert.deepEqual((await filesIn(attachments())).sort(), files.map((file) => file.filename).sort());

      const download = await fetch(files[0].url, {
        headers: { authorization: `Bearer ${inventory.adminToken}` },
      });
      assert.equal(download.status, 200);
      assert.equal(Buffer.from(await download.arrayBuffer()).toString(), "%PDF-1.4 invoice");
      assert.equal(download.headers.get("content-type"), "application/pdf");
      assert.equal(
        download.headers.get("content-disposition"),
        `attachment; filename="${files[0].filename}"`,
      );
      assert.equal(download.headers.get("x-content-type-options"), "nosniff");
      const inline = await fetch(`${files[1].url}?inline=true`, {
        headers: { authorization: `Bearer ${inventory.adminToken}` },
      });
      assert.equal(inline.headers.get("content-disposition"), `inline; filename="${files[1].filename}"`);
      assert.equal(await inline.text(), "serial: 123");

      const removed = await api<Envelope>(inventory, "DELETE", `/hardware/${assetId}/file/${files[0].id}`);
      assert.deepEqual(removed.body, {
        status: "success",
        messages: "File successfully deleted.",
        payload: null,
      });
      assert.deepEqual(await filesIn(attachments()), [files[1].filename]);
      const gone = await api<Envelope>(inventory, "GET", `/hardware/${assetId}/file/${files[0].id}`);
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, {
        status: "error",
        messages: "No matching record for that asset/file",
        payload: null,
      });
      // Snipe-IT answers 500 here; we answer its envelope as for any file that is not there.
      const again = await api<Envelope>(inventory, "DELETE", `/hardware/${assetId}/file/${files[0].id}`);
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, {
        status: "error",
        messages: "File not deleted. Please try again.",
        payload: null,
      });
    });

    test("refusals: unknown record 404, no file in the envelope, a disallowed type, too large, another record's file", async () => {
      const unknown = await postMultipart<Envelope>(inventory, "/hardware/99999/files", [
        { name: "file[]", value: Buffer.from("x"), filename: "a.txt" },
      ]);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { status: "error", messages: "Asset does not exist.", payload: null });

      const none = await postMultipart<Envelope>(inventory, `/hardware/${assetId}/files`, [
        { name: "notes", value: "no file" },
      ]);
      assert.equal(none.status, 200, "Snipe-IT's 500 is answered as its refusal envelope");
      assert.deepEqual(none.body, {
        status: "error",
        messages:
          "You did not select any files for upload, or the file you are trying to upload is too large",
        payload: null,
      });
      const json = await api<Envelope>(inventory, "POST", `/hardware/${assetId}/files`, {
        body: { file: [{ path: "/etc/passwd", filename: "passwd.txt" }] },
        headers: { "x-api-strict-status": "1" },
      });
      assert.equal(json.status, 422, "a JSON object is not an upload, whatever it claims");
      assert.match(String(json.body.messages), /^You did not select any files for upload/);

      const before = await filesIn(attachments());
      const exe = await postMultipart<Envelope>(inventory, `/hardware/${assetId}/files`, [
        { name: "file[]", value: Buffer.from("ok"), filename: "fine.txt" },
        { name: "file[]", value: Buffer.from("MZ"), filename: "tool.exe" },
      ]);
      assert.equal(exe.body.status, "error");
      assert.match(
        String((exe.body.messages as Record<string, string[]>)["file.1"]),
        /must be a file of type: png/,
      );
      assert.deepEqual(await filesIn(attachments()), before, "nothing of the refused request is kept");

      const big = await postMultipart<Envelope>(inventory, `/hardware/${assetId}/files`, [
        { name: "file[]", value: new Uint8Array(65 * 1024), filename: "big.pdf" },
      ]);
      assert.equal(big.status, 413);
      assert.equal(big.body.status, "error");
      assert.deepEqual(await filesIn(attachments()), before);
      assert.deepEqual(await filesIn(join(inventory.server.dataDir, "inventory", "incoming")), []);

      const other = await createAsset(inventory, fixture, "ATT-2");
      const [mine] = (await api<Envelope<FileObject[]>>(inventory, "GET", `/hardware/${assetId}/files`)).body
        .payload;
      const foreign = await api<Envelope>(inventory, "GET", `/hardware/${other}/file/${mine.id}`);
      assert.equal(foreign.status, 404);
      const notAFile = await api<Envelope>(inventory, "GET", `/hardware/${assetId}/file/1`);
      assert.equal(notAFile.status, 404, "an activity entry that is not an upload is no file");
    });

    test("permissions: view lists and downloads, edit uploads and deletes; a read-only token cannot write", async () => {
      const viewer = await userWithToken(inventory, "att-viewer", { "assets.view": "1" });
      const listed = await api<Envelope<FileObject[]>>(inventory, "GET", `/hardware/${assetId}/files`, {
        token: viewer.token,
      });
      assert.equal(listed.status, 200);
      const download = await fetch(listed.body.payload[0].url, {
        headers: { authorization: `Bearer ${viewer.token}` },
      });
      assert.equal(download.status, 200);
      const upload = await postMultipart(
        inventory,
        `/hardware/${assetId}/files`,
        [{ name: "file[]", value: Buffer.from("x"), filename: "x.txt" }],
        { token: viewer.token },
      );
      assert.equal(upload.status, 403);
      assert.deepEqual(upload.body, { message: "This action is unauthorized." });
      const remove = await api(
        inventory,
        "DELETE",
        `/hardware/${assetId}/file/${listed.body.payload[0].id}`,
        {
          token: viewer.token,
        },
      );
      assert.equal(remove.status, 403);

      const stranger = await userWithToken(inventory, "att-stranger", {});
      const hidden = await api(inventory, "GET", `/hardware/${assetId}/files`, { token: stranger.token });
      assert.equal(hidden.status, 403);
      const reader = await userWithToken(inventory, "att-reader", { "assets.edit": "1" }, { readOnly: true });
      const readOnly = await postMultipart(
        inventory,
        `/hardware/${assetId}/files`,
        [{ name: "file[]", value: Buffer.from("x"), filename: "x.txt" }],
        { token: reader.token },
      );
      assert.equal(readOnly.status, 403);
      assert.deepEqual(readOnly.body, {
        status: "error",
        messages: "This token is read-only.",
        payload: null,
      });
    });

    test("models take files too, listed as {total, rows}", async () => {
      const uploaded = await postMultipart<Envelope>(inventory, `/models/${fixture.modelId}/files`, [
        { name: "file[]", value: Buffer.from("manual"), filename: "Manual.txt" },
      ]);
      assert.equal(uploaded.body.status, "success");
      const listed = await api<List<FileObject>>(inventory, "GET", `/models/${fixture.modelId}/files`);
      assert.equal(listed.body.total, 1);
      assert.match(
        listed.body.rows[0].filename,
        new RegExp(`^model-${fixture.modelId}-[0-9a-f]{8}-manual\\.txt$`),
      );
      const download = await fetch(listed.body.rows[0].url, {
        headers: { authorization: `Bearer ${inventory.adminToken}` },
      });
      assert.equal(await download.text(), "manual");
      const unknown = await api<Envelope>(inventory, "GET", "/models/99999/files");
      assert.deepEqual(unknown.body, { status: "error", messages: "Model does not exist.", payload: null });
      const asAsset = await api(inventory, "GET", `/hardware/${assetId}/file/${listed.body.rows[0].id}`);
      assert.equal(asAsset.status, 404, "a model's file is not the asset's");
    });

    test("Snipe-IT 8's paths: GET files/{file_id} downloads, DELETE files/{file_id}/delete deletes", async () => {
      for (const [path, id] of [
        ["hardware", assetId],
        ["models", fixture.modelId],
      ] as const) {
        const uploaded = await postMultipart<Envelope>(inventory, `/${path}/${id}/files`, [
          { name: "file[]", value: Buffer.from(`for ${path}`), filename: "Notes.txt" },
        ]);
        assert.equal(uploaded.body.status, "success");
        const listed = await api<Envelope<FileObject[]> & List<FileObject>>(
          inventory,
          "GET",
          `/${path}/${id}/files`,
        );
        const file = (listed.body.payload ?? listed.body.rows).at(-1) as FileObject;
        const download = await fetch(`${inventory.url}/api/v1/${path}/${id}/files/${file.id}`, {
          headers: { authorization: `Bearer ${inventory.adminToken}` },
        });
        assert.equal(download.status, 200, path);
        assert.equal(await download.text(), `for ${path}`);
        assert.equal(download.headers.get("content-disposition"), `attachment; filename="${file.filename}"`);

        const removed = await api<Envelope>(inventory, "DELETE", `/${path}/${id}/files/${file.id}/delete`);
        assert.deepEqual(removed.body, {
          status: "success",
          messages: "File successfully deleted.",
          payload: null,
        });
        const gone = await api<Envelope>(inventory, "GET", `/${path}/${id}/files/${file.id}`);
        assert.equal(gone.status, 404);
        assert.equal(gone.body.messages, "No matching record for that asset/file");
        const again = await api<Envelope>(inventory, "DELETE", `/${path}/${id}/files/${file.id}/delete`);
        assert.equal(again.status, 404);
        assert.equal(again.body.messages, "File not deleted. Please try again.");
      }
      const viewer = await userWithToken(inventory, "att-viewer8", { "assets.view": "1" });
      const uploaded = await postMultipart<Envelope>(inventory, `/hardware/${assetId}/files`, [
        { name: "file[]", value: Buffer.from("kept"), filename: "kept.txt" },
      ]);
      assert.equal(uploaded.body.status, "success");
      const [kept] = (await api<Envelope<FileObject[]>>(inventory, "GET", `/hardware/${assetId}/files`)).body
        .payload;
      const refused = await api(inventory, "DELETE", `/hardware/${assetId}/files/${kept.id}/delete`, {
        token: viewer.token,
      });
      assert.equal(refused.status, 403, "deleting needs assets.edit on this path too");
    });

    test("images: an upload on create, a data URI on update, image_delete; absolute URLs served without a token", async () => {
      const created = await postMultipart<Envelope<{ id: number; image: string }>>(inventory, "/hardware", [
        { name: "asset_tag", value: "IMG-1" },
        { name: "model_id", value: String(fixture.modelId) },
        { name: "status_id", value: String(fixture.deployable) },
        { name: "image", value: PNG, filename: "photo.png", type: "image/png" },
      ]);
      assert.equal(created.body.status, "success", JSON.stringify(created.body));
      assert.match(
        created.body.payload.image,
        /^[0-9a-f-]{36}\.png$/,
        "the raw row holds the generated name",
      );
      const shown = await api<{ image: string }>(inventory, "GET", `/hardware/${created.body.payload.id}`);
      assert.equal(shown.body.image, `${inventory.url}/uploads/assets/${created.body.payload.image}`);
      const served = await fetch(shown.body.image);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get("content-type"), "image/png");
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), PNG);

      const dataUri = `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`;
      const maker = await api<Envelope<{ id: number; image: string }>>(inventory, "POST", "/manufacturers", {
        body: { name: "Pictured Maker", image_source: dataUri },
      });
      assert.equal(maker.body.status, "success");
      assert.match(
        maker.body.payload.image,
        new RegExp(`^${inventory.url}/uploads/manufacturers/[0-9a-f-]{36}\\.png$`),
      );
      const first = maker.body.payload.image;
      const replaced = await api<Envelope<{ image: string }>>(
        inventory,
        "PATCH",
        `/manufacturers/${maker.body.payload.id}`,
        {
          body: { image: dataUri },
        },
      );
      assert.notEqual(replaced.body.payload.image, first);
      assert.equal((await fetch(first)).status, 404, "the replaced image is removed");
      assert.equal((await fetch(replaced.body.payload.image)).status, 200);
      const cleared = await api<Envelope<{ image: string | null }>>(
        inventory,
        "PATCH",
        `/manufacturers/${maker.body.payload.id}`,
        {
          body: { image_delete: "1" },
        },
      );
      assert.equal(cleared.body.payload.image, null);
      assert.deepEqual(await filesIn(images("manufacturers")), []);

      const avatar = await api<Envelope<{ avatar: string }>>(inventory, "POST", "/users", {
        body: {
          first_name: "Pic",
          username: "pic",
          password: "password123",
          password_confirmation: "password123",
          image: dataUri,
        },
      });
      assert.match(avatar.body.payload.avatar, new RegExp(`^${inventory.url}/uploads/avatars/`));
    });

    test("images that are not images are refused, and nothing is written", async () => {
      const before = await filesIn(images("companies"));
      for (const image of [
        `data:image/png;base64,${Buffer.from("<svg onload=alert(1)>").toString("base64")}`,
        "../../etc/passwd",
        "https://example.com/logo.png",
      ]) {
        const refused = await api<Envelope>(inventory, "POST", "/companies", {
          body: { name: "Imageless", image },
        });
        assert.deepEqual(refused.body, {
          status: "error",
          messages: {
            image: ["The image field must be a file of type: png, gif, jpg, jpeg, bmp, webp, avif."],
          },
          payload: null,
        });
      }
      const text = await postMultipart<Envelope>(inventory, "/companies", [
        { name: "name", value: "Imageless" },
        { name: "image", value: Buffer.from("just text"), filename: "logo.png", type: "image/png" },
      ]);
      assert.equal(text.body.status, "error");
      const companies = await api<List>(inventory, "GET", "/companies?search=Imageless");
      assert.equal(companies.body.total, 0);
      assert.deepEqual(await filesIn(images("companies")), before);
      const invalidRow = await api<Envelope>(inventory, "POST", "/companies", {
        body: { name: "", image: `data:image/png;base64,${Buffer.from(PNG).toString("base64")}` },
      });
      assert.deepEqual(invalidRow.body.messages, { name: ["The name field is required."] });
      assert.deepEqual(await filesIn(images("companies")), before, "a write that fails keeps no image");
      for (const path of [
        "/uploads/assets/..%2F..%2Finventory.db",
        "/uploads/secrets/x.png",
        "/uploads/assets/nothing.png",
      ]) {
        const answer = await fetch(`${inventory.url}${path}`);
        assert.equal(answer.status, 404, path);
      }
      const content = await readFile(
        join(
          inventory.server.dataDir,
          "inventory",
          "uploads",
          "assets",
          (await filesIn(images("assets")))[0],
        ),
      );
      assert.deepEqual(new Uint8Array(content), PNG);
    });
  },
  LIMITS,
);
