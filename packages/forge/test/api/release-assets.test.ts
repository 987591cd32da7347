import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join, relative } from "node:path";
import { before, test } from "node:test";
import { api, basic, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";

// Release attachments: uploaded as multipart `attachment` or a raw body with ?name=, stored under
// the data directory by uuid within the configured size and type limits (nothing left on disk by
// a refused or failed upload), downloaded byte for byte with ranges, renamed, deleted with their
// release or repository.

interface Attachment {
  id: number;
  name: string;
  size: number;
  download_count: number;
  uuid: string;
  browser_download_url: string;
}
interface Release {
  id: number;
  assets: Attachment[];
}

const MB = 1024 * 1024;

forEachForge(
  "release attachments",
  (forge) => {
    const cast = {} as Record<"alice" | "rita", Person>;
    let release: Release;
    const attachmentsDir = () => join(forge.server.dataDir, "attachments");

    /** Every file under the attachments directory, relative to it. */
    function storedFiles(): string[] {
      const found: string[] = [];
      const walk = (dir: string) => {
        if (!existsSync(dir)) return;
        for (const entry of readdirSync(dir)) {
          const path = join(dir, entry);
          if (statSync(path).isDirectory()) walk(path);
          else found.push(relative(attachmentsDir(), path));
        }
      };
      walk(attachmentsDir());
      return found.sort();
    }

    const assetsPath = (repo: string, id: number) => `/api/v1/repos/${repo}/releases/${id}/assets`;

    async function uploadMultipart(
      who: Person | undefined,
      repo: string,
      id: number,
      content: Buffer,
      filename: string,
      options: { query?: string; type?: string; field?: string } = {},
    ) {
      const form = new FormData();
      form.append(
        options.field ?? "attachment",
        new Blob([content], { type: options.type ?? "application/octet-stream" }),
        filename,
      );
      const res = await fetch(`${forge.url}${assetsPath(repo, id)}${options.query ?? ""}`, {
        method: "POST",
        headers: who ? { authorization: `token ${who.token}` } : {},
        body: form,
      });
      return { status: res.status, body: (await res.json()) as Attachment & { message: string } };
    }

    async function uploadRaw(
      who: Person,
      repo: string,
      id: number,
      content: Buffer,
      query: string,
      type = "application/octet-stream",
    ) {
      const res = await fetch(`${forge.url}${assetsPath(repo, id)}${query}`, {
        method: "POST",
        headers: { authorization: `token ${who.token}`, "content-type": type },
        body: content,
      });
      return { status: res.status, body: (await res.json()) as Attachment & { message: string } };
    }

    /** The download URL as the forge serves it here (browser_download_url names the root URL). */
    const local = (url: string) => url.replace("http://forge.test", forge.url);

    before(async () => {
      for (const name of ["alice", "rita"] as const)
        cast[name] = await makePerson(forge.url, forge.adminToken, name);
      for (const [name, priv] of [
        ["app", false],
        ["vault", true],
      ] as const) {
        const made = await api(forge.url, "POST", "/user/repos", {
          token: cast.alice.token,
          body: { name, auto_init: true, private: priv },
        });
        assert.equal(made.status, 201);
      }
      const made = await api<Release>(forge.url, "POST", "/repos/alice/app/releases", {
        token: cast.alice.token,
        body: { tag_name: "v1" },
      });
      assert.equal(made.status, 201);
      release = made.body;
      const read = await api(forge.url, "PUT", "/repos/alice/app/collaborators/rita", {
        token: cast.alice.token,
        body: { permission: "read" },
      });
      assert.equal(read.status, 204);
    });

    test("GET /settings/attachment shows the configured limits", async () => {
      const settings = await api(forge.url, "GET", "/settings/attachment", {
        shape: "GeneralAttachmentSettings",
      });
      assert.deepEqual(settings.body, {
        enabled: true,
        allowed_types: ".txt,.bin,.tar.gz,image/*",
        max_size: 1,
        max_files: 5,
      });
    });

    test("a multipart upload downloads byte for byte, with ranges and a counted download", async () => {
      const content = randomBytes(300_000);
      const made = await uploadMultipart(cast.alice, "alice/app", release.id, content, "build résumé.bin");
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const attachment = made.body;
      assert.equal(attachment.name, "build résumé.bin");
      assert.equal(attachment.size, content.length);
      assert.equal(attachment.download_count, 0);
      assert.equal(attachment.browser_download_url, `http://forge.test/attachments/${attachment.uuid}`);
      const shown = await api<Attachment>(
        forge.url,
        "GET",
        `/repos/alice/app/releases/${release.id}/assets/${attachment.id}`,
        { shape: "Attachment" },
      );
      assert.equal(shown.body.uuid, attachment.uuid);
      // Stored by uuid, never by the client's name.
      assert.ok(storedFiles().includes(join(attachment.uuid[0], attachment.uuid[1], attachment.uuid)));

      const whole = await fetch(local(attachment.browser_download_url));
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get("content-length"), String(content.length));
      assert.equal(whole.headers.get("accept-ranges"), "bytes");
      assert.equal(
        whole.headers.get("content-disposition"),
        `attachment; filename="build r_sum_.bin"; filename*=UTF-8''build%20r%C3%A9sum%C3%A9.bin`,
      );
      assert.ok(Buffer.from(await whole.arrayBuffer()).equals(content));

      const part = await fetch(local(attachment.browser_download_url), {
        headers: { range: "bytes=1000-1999" },
      });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get("content-range"), `bytes 1000-1999/${content.length}`);
      assert.ok(Buffer.from(await part.arrayBuffer()).equals(content.subarray(1000, 2000)));
      const tail = await fetch(local(attachment.browser_download_url), { headers: { range: "bytes=-10" } });
      assert.equal(tail.status, 206);
      assert.ok(Buffer.from(await tail.arrayBuffer()).equals(content.subarray(content.length - 10)));
      const beyond = await fetch(local(attachment.browser_download_url), {
        headers: { range: "bytes=999999999-" },
      });
      assert.equal(beyond.status, 416);
      assert.equal(beyond.headers.get("content-range"), `bytes */${content.length}`);
      await beyond.body?.cancel();

      const byName = await fetch(
        `${forge.url}/alice/app/releases/download/v1/${encodeURIComponent("build résumé.bin")}`,
      );
      assert.equal(byName.status, 200);
      assert.ok(Buffer.from(await byName.arrayBuffer()).equals(content));

      // Two downloads from the first byte; the ranges that resume one do not count.
      const counted = await api<Release>(forge.url, "GET", `/repos/alice/app/releases/${release.id}`, {
        shape: "Release",
      });
      assert.equal(counted.body.assets.find((asset) => asset.id === attachment.id)?.download_count, 2);
    });

    test("a raw body with ?name= is an upload too; without a name it is a 400", async () => {
      const content = randomBytes(5000);
      const made = await uploadRaw(cast.alice, "alice/app", release.id, content, "?name=raw.bin");
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.name, "raw.bin");
      const back = await fetch(local(made.body.browser_download_url));
      assert.ok(Buffer.from(await back.arrayBuffer()).equals(content));
      // A JSON or text body is bytes here, not parsed.
      const json = await uploadRaw(
        cast.alice,
        "alice/app",
        release.id,
        Buffer.from('{"a":1}'),
        "?name=data.txt",
        "application/json",
      );
      assert.equal(json.status, 201, JSON.stringify(json.body));
      assert.equal(json.body.size, 7);
      const nameless = await uploadRaw(cast.alice, "alice/app", release.id, content, "");
      assert.equal(nameless.status, 400);
      const listed = await api<Attachment[]>(
        forge.url,
        "GET",
        `/repos/alice/app/releases/${release.id}/assets`,
        {
          shape: "Attachment[]",
        },
      );
      assert.deepEqual(
        listed.body.map((asset) => asset.name),
        ["build résumé.bin", "raw.bin", "data.txt"],
      );
    });

    test("names: a client path is reduced to its file name; `..`, NUL, control characters refused", async () => {
      const before = storedFiles();
      const slash = await uploadMultipart(
        cast.alice,
        "alice/app",
        release.id,
        Buffer.from("x"),
        "../../../../etc/passwd.txt",
      );
      assert.equal(slash.status, 201, JSON.stringify(slash.body));
      assert.equal(slash.body.name, "passwd.txt");
      const back = await uploadMultipart(
        cast.alice,
        "alice/app",
        release.id,
        Buffer.from("x"),
        "..\\..\\win.txt",
      );
      assert.equal(back.body.name, "win.txt");
      const queried = await uploadRaw(
        cast.alice,
        "alice/app",
        release.id,
        Buffer.from("x"),
        `?name=${encodeURIComponent("a/../../b.txt")}`,
      );
      assert.equal(queried.body.name, "b.txt");
      for (const name of ["..", ".", "a/..", "x\u0000y.txt", "line\nbreak.txt", "", "/"]) {
        const refused = await uploadRaw(
          cast.alice,
          "alice/app",
          release.id,
          Buffer.from("x"),
          `?name=${encodeURIComponent(name)}`,
        );
        // A NUL in a query is refused by the API's validation of every query (422) before this.
        const expected = name.includes("\u0000") ? 422 : 400;
        assert.equal(refused.status, expected, `${JSON.stringify(name)}: ${JSON.stringify(refused.body)}`);
      }
      const after = storedFiles();
      assert.equal(after.length, before.length + 3);
      assert.ok(
        after.every((file) => /^[0-9a-f]\/[0-9a-f]\/[0-9a-f-]{36}$/.test(file)),
        after.join(" "),
      );
      assert.equal(existsSync(join(forge.server.dataDir, "etc")), false);
    });

    test("a forbidden type is a 400; 100 MB over a 1 MB limit is a 413; neither leaves a file", async () => {
      const before = storedFiles();
      const exe = await uploadMultipart(cast.alice, "alice/app", release.id, Buffer.from("MZ"), "tool.exe", {
        type: "application/x-msdownload",
      });
      assert.equal(exe.status, 400);
      assert.match(exe.body.message, /^This file extension or type is not allowed to be uploaded/);
      const image = await uploadMultipart(
        cast.alice,
        "alice/app",
        release.id,
        Buffer.from("GIF89a"),
        "pic.gif",
        {
          type: "image/gif",
        },
      );
      assert.equal(image.status, 201);

      const huge = Buffer.alloc(100 * MB, 7);
      const raw = await uploadRaw(cast.alice, "alice/app", release.id, huge, "?name=huge.bin");
      assert.equal(raw.status, 413, JSON.stringify(raw.body));
      const multi = await uploadMultipart(cast.alice, "alice/app", release.id, huge, "huge.bin");
      assert.equal(multi.status, 413, JSON.stringify(multi.body));
      // Just over the limit is refused as well, and just at it accepted.
      const over = await uploadRaw(
        cast.alice,
        "alice/app",
        release.id,
        Buffer.alloc(MB + 1),
        "?name=over.bin",
      );
      assert.equal(over.status, 413);
      const at = await uploadRaw(cast.alice, "alice/app", release.id, Buffer.alloc(MB), "?name=at.bin");
      assert.equal(at.status, 201);
      const after = storedFiles();
      assert.equal(after.length, before.length + 2, after.join(" "));
    });

    test("readers list and download but do not upload, rename or delete; outsiders of a private repository get 404", async () => {
      const before = storedFiles();
      const refused = await uploadMultipart(cast.rita, "alice/app", release.id, Buffer.from("x"), "r.txt");
      assert.equal(refused.status, 403);
      const anonymous = await uploadMultipart(undefined, "alice/app", release.id, Buffer.from("x"), "a.txt");
      assert.equal(anonymous.status, 401);
      assert.deepEqual(storedFiles(), before);
      const [first] = (
        await api<Attachment[]>(forge.url, "GET", `/repos/alice/app/releases/${release.id}/assets`, {
          token: cast.rita.token,
        })
      ).body;
      const path = `/repos/alice/app/releases/${release.id}/assets/${first.id}`;
      assert.equal(
        (await api(forge.url, "PATCH", path, { token: cast.rita.token, body: { name: "n.txt" } })).status,
        403,
      );
      assert.equal((await api(forge.url, "DELETE", path, { token: cast.rita.token })).status, 403);
      assert.equal((await fetch(local(first.browser_download_url))).status, 200);

      const secret = await api<Release>(forge.url, "POST", "/repos/alice/vault/releases", {
        token: cast.alice.token,
        body: { tag_name: "s1" },
      });
      const stored = await uploadMultipart(
        cast.alice,
        "alice/vault",
        secret.body.id,
        Buffer.from("secret"),
        "s.txt",
      );
      assert.equal(stored.status, 201);
      const hidden = await fetch(local(stored.body.browser_download_url));
      assert.equal(hidden.status, 404);
      await hidden.body?.cancel();
      const asRita = await fetch(local(stored.body.browser_download_url), {
        headers: { authorization: basic("rita", "password123") },
      });
      assert.equal(asRita.status, 404);
      await asRita.body?.cancel();
      const asOwner = await fetch(local(stored.body.browser_download_url), {
        headers: { authorization: `token ${cast.alice.token}` },
      });
      assert.equal(asOwner.status, 200);
      assert.equal(await asOwner.text(), "secret");
      for (const uuid of ["../../etc/passwd", "not-a-uuid", "00000000-0000-0000-0000-000000000000"]) {
        const missing = await fetch(`${forge.url}/attachments/${encodeURIComponent(uuid)}`);
        assert.equal(missing.status, 404, uuid);
        await missing.body?.cancel();
      }
    });

    test("a draft's files download only for writers", async () => {
      const draft = await api<Release>(forge.url, "POST", "/repos/alice/app/releases", {
        token: cast.alice.token,
        body: { tag_name: "v2-draft", draft: true },
      });
      const stored = await uploadMultipart(
        cast.alice,
        "alice/app",
        draft.body.id,
        Buffer.from("draft"),
        "d.txt",
      );
      assert.equal(stored.status, 201);
      const anonymous = await fetch(local(stored.body.browser_download_url));
      assert.equal(anonymous.status, 404);
      await anonymous.body?.cancel();
      const writer = await fetch(local(stored.body.browser_download_url), {
        headers: { authorization: `token ${cast.alice.token}` },
      });
      assert.equal(await writer.text(), "draft");
    });

    test("rename (201, as Gitea) and delete an attachment; its file goes with it", async () => {
      const made = await uploadMultipart(
        cast.alice,
        "alice/app",
        release.id,
        Buffer.from("rename me"),
        "old.txt",
      );
      const path = `/repos/alice/app/releases/${release.id}/assets/${made.body.id}`;
      const renamed = await api<Attachment>(forge.url, "PATCH", path, {
        token: cast.alice.token,
        body: { name: "new.txt" },
        shape: "Attachment",
      });
      assert.equal(renamed.status, 201);
      assert.equal(renamed.body.name, "new.txt");
      const badName = await api(forge.url, "PATCH", path, { token: cast.alice.token, body: { name: ".." } });
      assert.equal(badName.status, 400);
      const byName = await fetch(`${forge.url}/alice/app/releases/download/v1/new.txt`);
      assert.equal(await byName.text(), "rename me");
      const file = join(attachmentsDir(), made.body.uuid[0], made.body.uuid[1], made.body.uuid);
      assert.ok(existsSync(file));
      assert.equal((await api(forge.url, "DELETE", path, { token: cast.alice.token })).status, 204);
      assert.equal(existsSync(file), false);
      assert.equal((await api(forge.url, "GET", path)).status, 404);
    });

    test("an upload whose release is deleted while it arrives leaves no row and no file", async () => {
      const doomed = await api<Release>(forge.url, "POST", "/repos/alice/app/releases", {
        token: cast.alice.token,
        body: { tag_name: "doomed" },
      });
      const before = storedFiles();
      const url = new URL(`${forge.url}${assetsPath("alice/app", doomed.body.id)}?name=slow.bin`);
      const answer = new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          url,
          {
            method: "POST",
            headers: {
              authorization: `token ${cast.alice.token}`,
              "content-type": "application/octet-stream",
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.write(Buffer.alloc(1000, 1));
        setTimeout(async () => {
          const deleted = await api(forge.url, "DELETE", `/repos/alice/app/releases/${doomed.body.id}`, {
            token: cast.alice.token,
          });
          assert.equal(deleted.status, 204);
          req.end(Buffer.alloc(1000, 2));
        }, 300);
      });
      assert.equal(await answer, 404);
      assert.deepEqual(storedFiles(), before);
    });

    test("deleting a release, then a repository, removes their files", async () => {
      const other = await api<Release>(forge.url, "POST", "/repos/alice/app/releases", {
        token: cast.alice.token,
        body: { tag_name: "v9" },
      });
      const made = await uploadMultipart(
        cast.alice,
        "alice/app",
        other.body.id,
        Buffer.from("gone"),
        "g.txt",
      );
      const file = join(attachmentsDir(), made.body.uuid[0], made.body.uuid[1], made.body.uuid);
      assert.ok(existsSync(file));
      assert.equal(
        (await api(forge.url, "DELETE", "/repos/alice/app/releases/tags/v9", { token: cast.alice.token }))
          .status,
        204,
      );
      assert.equal(existsSync(file), false);
      assert.ok(storedFiles().length > 0);
      assert.equal(
        (await api(forge.url, "DELETE", "/repos/alice/app", { token: cast.alice.token })).status,
        204,
      );
      assert.equal(
        (await api(forge.url, "DELETE", "/repos/alice/vault", { token: cast.alice.token })).status,
        204,
      );
      assert.deepEqual(storedFiles(), []);
    });
  },
  { forge: { attachments: { maxSize: 1, allowedTypes: ".txt,.bin,.tar.gz,image/*" } } },
);
