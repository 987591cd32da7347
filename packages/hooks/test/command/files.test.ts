import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { test } from "node:test";
import { tempDir } from "@anvil/core/testing";
import { createTempFile, decodeBase64 } from "../../src/command/files.ts";

test("pass-file-to-command temp files: private, inside the directory, never a path from the name", async () => {
  const dir = await tempDir("anvil-files-");
  try {
    const file = await createTempFile(dir.path, "HOOK_PAYLOAD", Buffer.from("content"));
    assert.match(file, new RegExp(`^${dir.path}/HOOK_PAYLOAD\\d+$`));
    assert.equal(await readFile(file, "utf8"), "content");
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    await assert.rejects(createTempFile(dir.path, "../../etc/HOOK_X", Buffer.from("x")), {
      message: "createtemp ../../etc/HOOK_X: pattern contains path separator",
    });
    assert.deepEqual(await readdir(dir.path), [file.slice(dir.path.length + 1)]);
  } finally {
    await dir.remove();
  }
});

test("base64decode is Go's strict decoder", () => {
  assert.equal(decodeBase64("aGVsbG8=").data.toString(), "hello");
  const bad = decodeBase64("aGVsbG8*");
  assert.equal(bad.error, "illegal base64 data at input byte 7");
  assert.equal(bad.data.toString(), "hel");
});
