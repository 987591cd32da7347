import assert from "node:assert/strict";
import { before, test } from "node:test";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";
import { category, created } from "../support/items.ts";

// Keyset export (our addition): `?after=<id>&limit=N` walks a list in id order, one page a
// request, each page's Link rel="next" naming the following one.

type Row = { id: number; name?: string | null };

// Small pages over a small list walk the same code as pages of 500 over thousands of rows.
const ASSETS = 124;
const PAGE = 50;

forEachInventory("inventory API: keyset pages (after=)", (inventory) => {
  let fixture: AssetFixture;
  let assetIds: number[] = [];
  let thirdIds: number[] = [];

  const call = <T = Envelope>(method: string, path: string, body?: unknown) =>
    api<T>(inventory, method, path, { body });
  const make = (path: string, body: Record<string, unknown>) => created(inventory, path, body);

  /** Follows Link rel="next" from `path` to the end; every page, in order. */
  async function walk(path: string): Promise<{ pages: List<Row>[]; links: (string | null)[] }> {
    const pages: List<Row>[] = [];
    const links: (string | null)[] = [];
    let url: string | undefined = `${inventory.url}/api/v1${path}`;
    while (url !== undefined) {
      assert.ok(pages.length <= ASSETS, "the walk ends");
      const res = await fetch(url, { headers: { authorization: `Bearer ${inventory.adminToken}` } });
      assert.equal(res.status, 200);
      const page = (await res.json()) as List<Row>;
      assert.equal(res.headers.get("x-total-count"), String(page.total));
      const link = res.headers.get("link");
      pages.push(page);
      links.push(link);
      url = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
      if (link !== null) assert.ok(url, `a single next link: ${link}`);
    }
    return { pages, links };
  }
  const idsOf = (pages: List<Row>[]) => pages.flatMap((page) => page.rows.map((row) => row.id));

  before(async () => {
    fixture = await assetFixture(inventory, "ks");
    // A few at a time: one by one, the fixture takes seconds. Ids then follow no index order.
    for (let i = 0; i < ASSETS; i += 16) {
      const batch = Array.from({ length: Math.min(16, ASSETS - i) }, (_, j) => i + j);
      const ids = await Promise.all(
        batch.map((n) =>
          createAsset(inventory, fixture, `KS-${String(n).padStart(4, "0")}`, {
            name: n % 3 === 0 ? "Thirds" : "Other",
          }),
        ),
      );
      assetIds.push(...ids);
      thirdIds.push(...ids.filter((_, j) => batch[j] % 3 === 0));
    }
    assetIds = assetIds.sort((a, b) => a - b);
    thirdIds = thirdIds.sort((a, b) => a - b);
  });

  test(`a walk of ${ASSETS} assets by ${PAGE} gets each exactly once, in id order, and the last page links nowhere`, async () => {
    const { pages, links } = await walk(`/hardware?model_id=${fixture.modelId}&after=0&limit=${PAGE}`);
    assert.deepEqual(
      pages.map((page) => page.rows.length),
      [PAGE, PAGE, ASSETS - 2 * PAGE],
    );
    assert.ok(
      pages.every((page) => page.total === ASSETS),
      "total is the whole list's, as without after",
    );
    assert.deepEqual(idsOf(pages), assetIds);
    assert.equal(links.at(-1), null);
    const next = new URL(/<([^>]+)>/.exec(links[0] ?? "")?.[1] ?? "");
    assert.equal(next.searchParams.get("after"), String(assetIds[PAGE - 1]));
    assert.equal(next.searchParams.get("limit"), String(PAGE));
    assert.equal(next.searchParams.get("model_id"), String(fixture.modelId), "the filters carry on");
  });

  test("a page that ends the list exactly links to no empty page", async () => {
    const { pages, links } = await walk(
      `/hardware?model_id=${fixture.modelId}&after=${assetIds[ASSETS - PAGE - 1]}&limit=${PAGE}`,
    );
    assert.deepEqual(
      pages.map((page) => page.rows.length),
      [PAGE],
    );
    assert.deepEqual(links, [null]);
    const whole = await walk(`/hardware?model_id=${fixture.modelId}&after=0&limit=500`);
    assert.deepEqual(idsOf(whole.pages), assetIds, "one page of 500 holds them all");
    assert.deepEqual(whole.links, [null]);
  });

  test("rows made during a walk come once, rows before its place are not repeated", async () => {
    const first = await call<List<Row>>("GET", `/hardware?model_id=${fixture.modelId}&after=0&limit=${PAGE}`);
    const late = await createAsset(inventory, fixture, "KS-LATE", { name: "Late" });
    const removed = assetIds[10];
    assert.equal((await call("DELETE", `/hardware/${removed}`)).status, 200);
    const rest = await walk(
      `/hardware?model_id=${fixture.modelId}&after=${first.body.rows.at(-1)?.id}&limit=${PAGE}`,
    );
    const seen = [...first.body.rows.map((row) => row.id), ...idsOf(rest.pages)];
    assert.deepEqual(seen, [...assetIds, late]);
    assert.equal(new Set(seen).size, seen.length);
    assert.equal((await call<Envelope>("POST", `/hardware/${removed}/restore`)).body.status, "success");
    assert.equal((await call<Envelope>("DELETE", `/hardware/${late}`)).body.status, "success");
  });

  test("after= keeps the list's filters and search", async () => {
    const { pages } = await walk(`/hardware?model_id=${fixture.modelId}&search=Thirds&after=0&limit=10`);
    assert.deepEqual(idsOf(pages), thirdIds);
    assert.ok(pages.every((page) => page.total === thirdIds.length));

    const from = thirdIds[20];
    const tail = await walk(`/hardware?model_id=${fixture.modelId}&search=Thirds&after=${from}&limit=10`);
    assert.deepEqual(
      idsOf(tail.pages),
      thirdIds.filter((id) => id > from),
    );
    const none = await call<List<Row>>(
      "GET",
      `/hardware?model_id=${fixture.modelId}&after=${assetIds.at(-1)}`,
    );
    assert.deepEqual([none.body.total, none.body.rows], [ASSETS, []]);
    assert.equal(none.headers.get("link"), null);
  });

  test("users, licenses and accessories walk the same way", async () => {
    const licenseCategory = await category(inventory, "license", "ks software");
    const accessoryCategory = await category(inventory, "accessory", "ks cables");
    for (let i = 0; i < 5; i++) {
      await make("/users", {
        first_name: `Walker${i}`,
        username: `walker${i}`,
        password: "password123",
        password_confirmation: "password123",
      });
      await make("/licenses", { name: `KS licence ${i}`, seats: 1, category_id: licenseCategory });
      await make("/accessories", { name: `KS cable ${i}`, qty: 2, category_id: accessoryCategory });
    }
    for (const path of ["/users", "/licenses", "/accessories"]) {
      const whole = await call<List<Row>>("GET", `${path}?sort=id&order=asc&limit=500`);
      const expected = whole.body.rows.map((row) => row.id);
      assert.ok(expected.length >= 5, path);
      const { pages, links } = await walk(`${path}?after=0&limit=2`);
      assert.deepEqual(idsOf(pages), expected, path);
      assert.equal(pages.length, Math.ceil(expected.length / 2), path);
      assert.ok(
        pages.every((page) => page.total === expected.length),
        path,
      );
      assert.equal(links.at(-1), null, path);
    }
  });

  test("a bad after, or another order beside it: Snipe-IT's validation error, 422 under strict status", async () => {
    const cases: [string, Record<string, string[]>][] = [
      ["after=-1", { after: ["The after field must be at least 0."] }],
      ["after=abc", { after: ["The after field must be an integer."] }],
      ["after=1.5", { after: ["The after field must be an integer."] }],
      ["after=", { after: ["The after field must be an integer."] }],
      ["after=99999999999999999999", { after: ["The after field must be an integer."] }],
      [
        "after=0&sort=name",
        { sort: ["The sort field must be id when after is given: keyset pages are in id order."] },
      ],
      [
        "after=0&order=desc",
        { order: ["The order field must be asc when after is given: keyset pages are in id order."] },
      ],
      [
        "after=0&offset=500",
        { offset: ["The offset field cannot be given with after: the next page starts after the last id."] },
      ],
    ];
    for (const path of ["/hardware", "/users", "/licenses", "/accessories"])
      for (const [query, messages] of cases) {
        const res = await call(`GET`, `${path}?${query}`);
        assert.deepEqual(
          [res.status, res.body],
          [200, { status: "error", messages, payload: null }],
          `${path}?${query}`,
        );
      }
    const strict = await api(inventory, "GET", "/hardware?after=-5", {
      headers: { "x-api-strict-status": "1" },
    });
    assert.equal(strict.status, 422);
    const allowed = await call<List<Row>>(
      "GET",
      `/hardware?model_id=${fixture.modelId}&after=0&sort=id&order=asc&offset=0&limit=3`,
    );
    assert.deepEqual(
      allowed.body.rows.map((row) => row.id),
      assetIds.slice(0, 3),
    );
  });

  test("the permission is checked before after is read", async () => {
    const nobody = await userWithToken(inventory, "kswalker", {});
    const res = await api(inventory, "GET", "/hardware?after=-1", { token: nobody.token });
    assert.deepEqual([res.status, res.body], [403, { message: "This action is unauthorized." }]);
  });

  test("lists without after page by offset as before", async () => {
    const res = await call<List<Row>>(
      "GET",
      `/hardware?model_id=${fixture.modelId}&limit=${PAGE}&offset=${PAGE}`,
    );
    assert.equal(res.body.rows.length, PAGE);
    assert.match(
      res.headers.get("link") ?? "",
      new RegExp(`[?&]limit=${PAGE}&offset=${2 * PAGE}>; rel="next"`),
    );
  });
});
