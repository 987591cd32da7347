// GET/POST/DELETE /user/emails in Gitea's shapes: the account's own address is the primary one,
// added addresses are unique across all users, and a bad list changes nothing.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { api, forEachForge } from "../support/forge.ts";
import { makePerson, type Person } from "../support/people.ts";

interface Email {
  email: string;
  verified: boolean;
  primary: boolean;
  user_id: number;
  username: string;
}

forEachForge("forge: a user's e-mail addresses", (forge) => {
  let ann: Person;
  let ben: Person;
  const emails = async (person: Person) => {
    const res = await api<Email[]>(forge.url, "GET", "/user/emails", {
      token: person.token,
      shape: "Email[]",
    });
    assert.equal(res.status, 200);
    return res.body;
  };

  before(async () => {
    ann = await makePerson(forge.url, forge.adminToken, "ann");
    ben = await makePerson(forge.url, forge.adminToken, "ben");
  });

  test("the list starts with the account's own address as the primary one", async () => {
    assert.deepEqual(await emails(ann), [
      { email: "ann@example.com", verified: true, primary: true, user_id: ann.id, username: "ann" },
    ]);
    assert.equal((await api(forge.url, "GET", "/user/emails")).status, 401);
  });

  test("POST adds addresses and answers the whole list; DELETE removes them", async () => {
    const added = await api<Email[]>(forge.url, "POST", "/user/emails", {
      token: ann.token,
      body: { emails: ["ann@work.example", "Ann@Home.example"] },
      shape: "Email[]",
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.deepEqual(
      added.body.map((e) => [e.email, e.primary, e.verified, e.username]),
      [
        ["ann@example.com", true, true, "ann"],
        ["ann@work.example", false, true, "ann"],
        ["Ann@Home.example", false, true, "ann"],
      ],
    );
    assert.deepEqual(await emails(ann), added.body);
    const removed = await api(forge.url, "DELETE", "/user/emails", {
      token: ann.token,
      body: { emails: ["ann@home.example"] },
    });
    assert.equal(removed.status, 204);
    assert.deepEqual(
      (await emails(ann)).map((e) => e.email),
      ["ann@example.com", "ann@work.example"],
    );
    assert.equal(
      (await api(forge.url, "DELETE", "/user/emails", { token: ann.token, body: { emails: [] } })).status,
      204,
    );
    assert.equal((await api(forge.url, "DELETE", "/user/emails", { token: ann.token })).status, 204);
    assert.equal((await emails(ann)).length, 2);
  });

  test("Gitea's errors: empty list, invalid or used address, unknown or primary address to delete", async () => {
    const before = await emails(ben);
    const refusals: Array<[string, unknown, number, string]> = [
      ["POST", { emails: [] }, 422, "Email list empty"],
      ["POST", {}, 422, "Email list empty"],
      [
        "POST",
        { emails: ["ben@new.example", "not-an-address"] },
        422,
        'Email address "not-an-address" invalid',
      ],
      [
        "POST",
        { emails: ["ben@new.example", "ANN@example.com"] },
        422,
        "Email address has been used: ANN@example.com",
      ],
      ["POST", { emails: ["ann@work.example"] }, 422, "Email address has been used: ann@work.example"],
      ["POST", { emails: ["b@x.example", "B@x.example"] }, 422, "Email address has been used: B@x.example"],
      [
        "DELETE",
        { emails: ["ben@nowhere.example"] },
        404,
        "Email address does not exist [email: ben@nowhere.example]",
      ],
      [
        "DELETE",
        { emails: ["ann@work.example"] },
        404,
        "Email address does not exist [email: ann@work.example]",
      ],
      [
        "DELETE",
        { emails: ["Ben@example.com"] },
        400,
        "Primary email address cannot be deleted [email: Ben@example.com]",
      ],
    ];
    for (const [method, body, status, message] of refusals) {
      const res = await api<{ message: string }>(forge.url, method, "/user/emails", {
        token: ben.token,
        body,
      });
      assert.equal(res.status, status, `${method} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.message, message);
    }
    assert.deepEqual(await emails(ben), before);
    assert.deepEqual(
      (await emails(ann)).map((e) => e.email),
      ["ann@example.com", "ann@work.example"],
    );
    const tooMany = Array.from({ length: 101 }, (_, i) => `ben${i}@many.example`);
    const bounded = await api(forge.url, "POST", "/user/emails", {
      token: ben.token,
      body: { emails: tooMany },
    });
    assert.equal(bounded.status, 422);
  });

  test("an added address counts as used when an admin creates or edits an account", async () => {
    const added = await api(forge.url, "POST", "/user/emails", {
      token: ann.token,
      body: { emails: ["ann@spare.example"] },
    });
    assert.equal(added.status, 201);
    const created = await api<{ message: string }>(forge.url, "POST", "/admin/users", {
      token: forge.adminToken,
      body: { username: "cat", email: "ANN@spare.example", password: "password123" },
    });
    assert.equal(created.status, 422);
    assert.equal(created.body.message, "e-mail already in use [email: ANN@spare.example]");
    const edited = await api<{ message: string }>(forge.url, "PATCH", "/admin/users/ben", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "ben", email: "ann@spare.example" },
    });
    assert.equal(edited.status, 422);
    assert.equal(edited.body.message, "e-mail already in use [email: ann@spare.example]");
    // Ann's own added address may become her primary one; it is then listed once.
    const own = await api(forge.url, "PATCH", "/admin/users/ann", {
      token: forge.adminToken,
      body: { source_id: 0, login_name: "ann", email: "ann@spare.example" },
    });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(
      (await emails(ann)).map((e) => [e.email, e.primary]),
      [
        ["ann@spare.example", true],
        ["ann@work.example", false],
      ],
    );
  });
});
