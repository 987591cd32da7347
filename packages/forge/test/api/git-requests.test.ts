import assert from "node:assert/strict";
import { test } from "node:test";
import { api, basic, forEachForge } from "../support/forge.ts";
import { makePerson } from "../support/people.ts";

// What a client that is not git (or a broken one) sends to the forge's git endpoints.

forEachForge("malformed git requests over HTTP", (forge) => {
  const post = (path: string, service: string, body: string, auth?: string) =>
    fetch(`${forge.url}${path}/${service}`, {
      method: "POST",
      headers: {
        "content-type": `application/x-${service}-request`,
        ...(auth ? { authorization: auth } : {}),
      },
      body,
    });

  test("a body git cannot read is a 400 in Gitea's shape, without git's own words", async () => {
    const { token } = await makePerson(forge.url, forge.adminToken, "junk");
    const created = await api(forge.url, "POST", "/user/repos", {
      token,
      body: { name: "public", auto_init: true },
    });
    assert.equal(created.status, 201);
    const owner = basic("junk", "password123");
    const cases: Array<[string, string, string | undefined]> = [
      ["git-receive-pack", "zzzz", owner],
      ["git-receive-pack", "fff0junk", owner],
      ["git-receive-pack", "0009done\n", owner],
      ["git-upload-pack", "0009done\n", undefined],
      ["git-upload-pack", "zzzz", undefined],
      ["git-upload-pack", "0003", undefined],
      ["git-upload-pack", "", undefined],
    ];
    for (const [service, body, auth] of cases) {
      const answer = await post("/junk/public.git", service, body, auth);
      const text = await answer.text();
      assert.equal(answer.status, 400, `${service} ${JSON.stringify(body)}: ${text}`);
      assert.deepEqual(JSON.parse(text), {
        message: `the request is not a valid ${service} request`,
        url: "http://forge.test/api/swagger",
      });
    }
    // The repository still serves a real fetch afterwards.
    const refs = await fetch(`${forge.url}/junk/public.git/info/refs?service=git-upload-pack`);
    assert.equal(refs.status, 200);
    await refs.body?.cancel();
  });
});
