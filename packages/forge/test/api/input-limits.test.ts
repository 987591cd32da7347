import assert from "node:assert/strict";
import { test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";

// Names and addresses a client sends are checked by linear patterns after their length limit:
// 1 MB of the input worst for a backtracking pattern is refused well within a second.

const MEGABYTE = 1024 * 1024;
const ANSWER_WITHIN_MS = 1000;

forEachForge("forge API: name and e-mail checks are linear and bounded", (forge) => {
  const timed = async (path: string, body: unknown) => {
    const started = performance.now();
    const answer = await api<{ message: string }>(forge.url, "POST", path, { token: forge.adminToken, body });
    const took = performance.now() - started;
    assert.ok(took < ANSWER_WITHIN_MS, `${path} took ${Math.round(took)} ms`);
    return answer;
  };

  test("a 1 MB e-mail address, user name or repository name is refused at once", async () => {
    const email = await timed("/admin/users", {
      username: "longmail",
      email: `${"a@".repeat(MEGABYTE / 2)} `,
      password: "password123",
    });
    assert.equal(email.status, 422);
    assert.equal(email.body.message, "[Email]: Email");
    const username = await timed("/admin/users", {
      username: `${"a-".repeat(MEGABYTE / 2)}-`,
      email: "long@example.com",
      password: "password123",
    });
    assert.equal(username.status, 422);
    const repository = await timed("/user/repos", { name: `${"a.".repeat(MEGABYTE / 2)}!` });
    assert.equal(repository.status, 422);
  });
});
