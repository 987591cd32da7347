// A pasted key is request data: its size is bounded before it is read, and reading it is linear, so
// a hostile key cannot stall the event loop that serves everyone else.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson } from "../support/people.ts";

const MEGABYTE = 1024 * 1024;

forEachForge("forge: SSH key text limits", (forge) => {
  let token = "";
  before(async () => {
    token = (await makePerson(forge.url, forge.adminToken, "paster")).token;
  });

  test("1 MB of backtracking bait in either key form is a 422 naming the length limit", async () => {
    // Many spaces before a U+2028, which `.` does not match, were quadratic for the line pattern;
    // the same in an RFC 4716 header was quadratic for the header pattern.
    const spaces = " ".repeat(MEGABYTE);
    const bait = [
      `ssh-ed25519 AAAA${spaces}x\u2028y`,
      `---- BEGIN SSH2 PUBLIC KEY ----\nComment:${spaces}x\u2028y\nAAAA\n---- END SSH2 PUBLIC KEY ----`,
    ];
    for (const key of bait) {
      const res = await api<{ message: string }>(forge.url, "POST", "/user/keys", {
        token,
        body: { title: "bait", key },
      });
      assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 200));
      assert.equal(res.body.message, "Invalid key content: the key is longer than 16384 characters");
    }
    const listed = await api<unknown[]>(forge.url, "GET", "/user/keys", { token, shape: "PublicKey[]" });
    assert.deepEqual(listed.body, []);
  });
});
