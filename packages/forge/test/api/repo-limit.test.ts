// max_repo_creation as Gitea enforces it: an account's own limit, the site's when that is -1;
// site admins creating repositories are exempt; racing creations cannot pass the limit together.
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson } from "../support/people.ts";

const SITE_LIMIT = 2;

forEachForge(
  "forge: repository creation limits",
  (forge) => {
    const create = (token: string, name: string, path = "/user/repos") =>
      api<{ message: string }>(forge.url, "POST", path, { token, body: { name } });

    async function refusedWith(answer: ReturnType<typeof create>, limit: number) {
      const { status, body } = await answer;
      assert.equal(status, 403, JSON.stringify(body));
      assert.equal(body.message, `user has reached maximum limit of repositories [limit: ${limit}]`);
    }

    test("-1 is the site's limit; an account's own limit replaces it; a site admin creating is exempt", async () => {
      const una = await makePerson(forge.url, forge.adminToken, "una");
      for (const name of ["one", "two"]) assert.equal((await create(una.token, name)).status, 201);
      await refusedWith(create(una.token, "three"), SITE_LIMIT);
      const byAdmin = await create(forge.adminToken, "by-admin", "/admin/users/una/repos");
      assert.equal(byAdmin.status, 201, JSON.stringify(byAdmin.body));

      const raised = await api(forge.url, "PATCH", "/admin/users/una", {
        token: forge.adminToken,
        body: { source_id: 0, login_name: "una", max_repo_creation: 4 },
      });
      assert.equal(raised.status, 200, JSON.stringify(raised.body));
      assert.equal((await create(una.token, "four")).status, 201);
      await refusedWith(create(una.token, "five"), 4);

      const vic = await makePerson(forge.url, forge.adminToken, "vic");
      const none = await api(forge.url, "PATCH", "/admin/users/vic", {
        token: forge.adminToken,
        body: { source_id: 0, login_name: "vic", max_repo_creation: 0 },
      });
      assert.equal(none.status, 200, JSON.stringify(none.body));
      await refusedWith(create(vic.token, "none"), 0);

      for (const name of ["a", "b", "c"])
        assert.equal((await create(forge.adminToken, `admin-${name}`)).status, 201);
    });

    test("an organization's repositories count against the organization's limit", async () => {
      const owner = await makePerson(forge.url, forge.adminToken, "wes");
      const org = await api(forge.url, "POST", "/orgs", { token: owner.token, body: { username: "crew" } });
      assert.equal(org.status, 201);
      for (const name of ["x", "y"])
        assert.equal((await create(owner.token, name, "/orgs/crew/repos")).status, 201);
      await refusedWith(create(owner.token, "z", "/orgs/crew/repos"), SITE_LIMIT);
      assert.equal((await create(owner.token, "still-mine")).status, 201, "the owner's own limit is apart");
    });

    test("creations racing for the last places: exactly as many succeed as the limit allows", async () => {
      const racer = await makePerson(forge.url, forge.adminToken, "racer");
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => create(racer.token, `race-${i}`)),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [201, 201, 403, 403, 403, 403, 403, 403]);
      const listed = await api<unknown[]>(forge.url, "GET", "/users/racer/repos", { token: racer.token });
      assert.equal(listed.body.length, SITE_LIMIT);
    });
  },
  { forge: { maxCreationLimit: SITE_LIMIT } },
);
