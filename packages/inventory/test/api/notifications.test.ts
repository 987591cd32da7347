import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OUTBOX_TABLE } from "@anvil/core";
import {
  type HookRunner,
  hmacHex,
  type Receiver,
  signedWith,
  startHookRunner,
  startReceiver,
  type TempDir,
  tempDir,
  waitFor,
} from "@anvil/core/testing";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

// Notifications (issue 19): deliveries queued through core's outbox in the transaction of the
// change, sent by the inventory's outbox worker to real HTTP receivers on 127.0.0.1 (the allowed
// hosts are set to loopback): a generic endpoint's signed JSON, Snipe-IT's Slack and Teams
// messages, nothing for a change that rolls back, and a real `anvil hooks` process that runs its
// command only for a delivery signed with its secret.

const SECRET = "inventory-shared-secret";

interface Webhook {
  id: number;
  name: string;
  url: string;
  events: string[];
  active: boolean;
  has_secret: boolean;
}

interface Delivery {
  event: string;
  status: string;
  response_status: number | null;
}

forEachInventory(
  "inventory notifications: webhooks from the outbox",
  (inventory) => {
    let f: AssetFixture;
    let generic: Receiver;
    let chat: Receiver;
    let dir: TempDir;
    let runner: HookRunner;

    const outboxRows = async () => {
      const database = inventory.server.app.database;
      if (!database) throw new Error("no database");
      const row = await database.db
        .selectFrom(OUTBOX_TABLE as never)
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    };
    const checkout = (id: number, note?: string) =>
      api<Envelope>(inventory, "POST", `/hardware/${id}/checkout`, {
        body: { checkout_to_type: "user", assigned_user: f.userId, note },
      });
    const makeWebhook = async (body: Record<string, unknown>) => {
      const answer = await api<Envelope<Webhook>>(inventory, "POST", "/webhooks", { body });
      assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
      return answer.body.payload;
    };

    before(async () => {
      [generic, chat] = await Promise.all([startReceiver(), startReceiver()]);
      dir = await tempDir("anvil-inventory-hooks-");
      runner = await startHookRunner(dir.path, [
        {
          id: "inventory",
          arguments: [
            { source: "header", name: "X-Inventory-Event" },
            { source: "payload", name: "item.asset_tag" },
          ],
          rule: signedWith(SECRET),
        },
      ]);
    });
    after(async () => {
      await Promise.all([generic?.close(), chat?.close(), runner?.stop()]);
      await dir?.remove();
    });

    test("fixture", async () => {
      f = await assetFixture(inventory, "nt");
    });

    test("/webhooks: superusers only; made, shown and changed without ever answering the secret", async () => {
      const clerk = await userWithToken(inventory, "nt-clerk", { "assets.view": "1", admin: "1" });
      for (const [method, path] of [
        ["GET", "/webhooks"],
        ["POST", "/webhooks"],
        ["GET", "/webhooks/1"],
        ["PATCH", "/webhooks/1"],
        ["DELETE", "/webhooks/1"],
      ]) {
        const answer = await api(inventory, method, path, {
          token: clerk.token,
          rawBody: method === "GET" ? undefined : "{",
        });
        assert.equal(answer.status, 403, `${method} ${path}`);
      }
      const refused = await api<Envelope>(inventory, "POST", "/webhooks", {
        body: { name: "bad", url: "ftp://example.com/x", events: ["asset.explode"] },
      });
      assert.equal(refused.body.status, "error");
      assert.deepEqual(Object.keys(refused.body.messages as object).sort(), ["events", "url"]);

      const made = await makeWebhook({
        name: "temporary",
        url: "https://example.com/hook",
        secret: "s3cret",
      });
      assert.deepEqual(made.events, ["*"]);
      assert.equal(made.has_secret, true);
      const changed = await api<Envelope<Webhook>>(inventory, "PATCH", `/webhooks/${made.id}`, {
        body: { events: ["asset.checkin"], active: false },
      });
      assert.equal(changed.body.status, "success");
      assert.deepEqual(changed.body.payload.events, ["asset.checkin"]);
      assert.equal(changed.body.payload.active, false);
      const shown = await api<Webhook>(inventory, "GET", `/webhooks/${made.id}`);
      const listed = await api<List<Webhook>>(inventory, "GET", "/webhooks");
      assert.ok(!JSON.stringify([made, changed.body, shown.body, listed.body]).includes("s3cret"));
      assert.equal(listed.body.total, 1);
      const gone = await api<Envelope>(inventory, "DELETE", `/webhooks/${made.id}`);
      assert.equal(gone.body.status, "success");
      const again = await api<Envelope>(inventory, "GET", `/webhooks/${made.id}`);
      assert.deepEqual([again.body.status, again.body.messages], ["error", "Webhook not found"]);
    });

    test("a generic endpoint receives a signed JSON delivery for an asset check-out", async () => {
      const webhook = await makeWebhook({
        name: "receiver",
        url: generic.url,
        secret: SECRET,
        events: ["asset.checkout", "asset.create"],
      });
      const id = await createAsset(inventory, f, "NT-1", { name: "Laptop one" });
      const out = await checkout(id, "for the trip");
      assert.equal(out.body.status, "success", JSON.stringify(out.body));

      const delivery = await generic.next((r) => r.headers["x-inventory-event"] === "asset.checkout");
      assert.equal(delivery.method, "POST");
      assert.equal(delivery.headers["content-type"], "application/json");
      assert.equal(
        delivery.headers["x-hub-signature-256"],
        `sha256=${hmacHex("sha256", SECRET, delivery.body)}`,
      );
      const payload = JSON.parse(delivery.body);
      assert.equal(payload.event, "asset.checkout");
      assert.equal(payload.action, "checkout");
      assert.deepEqual(
        [payload.item.type, payload.item.id, payload.item.asset_tag, payload.item.name],
        ["asset", id, "NT-1", "Laptop one"],
      );
      assert.deepEqual(payload.item.assigned_to, { type: "user", id: f.userId });
      assert.deepEqual(
        [payload.target.type, payload.target.id, payload.target.name],
        ["user", f.userId, "ntFirst Holder"],
      );
      assert.equal(payload.note, "for the trip");
      assert.equal(payload.user.username, "admin");
      assert.match(payload.created_at, /^\d{4}-\d{2}-\d{2}T/);
      assert.ok(
        generic.received.some((r) => r.headers["x-inventory-event"] === "asset.create"),
        "the asset's creation was told too",
      );

      const history = await waitFor("the delivery's result", async () => {
        const page = await api<List<Delivery>>(inventory, "GET", `/webhooks/${webhook.id}/deliveries`);
        const sent = page.body.rows.find((d) => d.event === "asset.checkout");
        return sent?.status === "delivered" ? sent : undefined;
      });
      assert.equal(history.response_status, 200);
    });

    test("Slack's and Teams' messages for a check-out, as Snipe-IT sends them to the settings' webhook", async () => {
      const slack = await api<Envelope>(inventory, "PATCH", "/settings", {
        body: {
          webhook_selected: "slack",
          webhook_endpoint: chat.url,
          webhook_channel: "#it",
          webhook_botname: "Inventory Bot",
        },
      });
      assert.equal(slack.body.status, "success", JSON.stringify(slack.body));
      const id = await createAsset(inventory, f, "NT-2", { name: "Laptop two" });
      await checkout(id, "slack note");
      const slackMessage = JSON.parse((await chat.next((r) => r.body.includes("Asset checked out"))).body);
      const root = inventory.url;
      assert.deepEqual(slackMessage, {
        text: ":arrow_up: :computer: Asset checked out",
        attachments: [
          {
            fields: [
              { title: "To", value: `<${root}/users/${f.userId}|ntFirst Holder>`, short: true },
              { title: "By", value: `<${root}/users/1|Admin>`, short: true },
            ],
            text: "slack note",
            title: "Laptop two (NT-2)",
            title_link: `${root}/hardware/${id}`,
          },
        ],
        channel: "#it",
        username: "Inventory Bot",
      });
      assert.equal(
        chat.received.at(-1)?.headers["x-hub-signature-256"],
        undefined,
        "chat messages are not signed",
      );

      const teams = await api<Envelope>(inventory, "PATCH", "/settings", {
        body: { webhook_selected: "msteams", webhook_channel: "" },
      });
      assert.equal(teams.body.status, "success");
      const from = chat.received.length;
      const other = await createAsset(inventory, f, "NT-3", { name: "Laptop three" });
      await checkout(other);
      const card = JSON.parse((await chat.next((r) => r.body.includes("MessageCard"), from)).body);
      assert.deepEqual(card, {
        "@type": "MessageCard",
        "@context": "https://schema.org/extensions",
        summary: "Asset checked out",
        themeColor: "#4CAF50",
        text: "",
        title: "Asset checked out",
        sections: [
          { startGroup: true, facts: [{ name: "Laptop three (NT-3)", value: "" }] },
          {
            facts: [
              { name: "Assigned To", value: "ntFirst Holder" },
              { name: "Asset checked out by ", value: "Admin" },
              { name: "Notes", value: "" },
            ],
          },
        ],
      });
      const checkin = await api<Envelope>(inventory, "POST", `/hardware/${other}/checkin`, {
        body: { note: "back" },
      });
      assert.equal(checkin.body.status, "success");
      const checkinCard = JSON.parse(
        (await chat.next((r) => r.body.includes("Asset checked in"), from)).body,
      );
      assert.equal(checkinCard.title, "Asset checked in");
      assert.deepEqual(checkinCard.sections[1].facts.at(-1), { name: "Notes", value: "back" });
    });

    test("a change that rolls back queues nothing: a refused check-out, a bulk check-out with one bad id", async () => {
      await makeWebhook({ name: "everything", url: generic.url, secret: SECRET });
      const taken = await createAsset(inventory, f, "NT-4");
      const free = await createAsset(inventory, f, "NT-5");
      assert.equal((await checkout(taken)).body.status, "success");
      const before = await outboxRows();
      const refused = await checkout(taken);
      assert.equal(refused.body.status, "error");
      const bulk = await api<Envelope>(inventory, "POST", "/hardware/bulk/checkout", {
        body: { ids: [free, taken], checkout_to_type: "user", assigned_user: f.userId },
      });
      assert.equal(bulk.body.status, "error", JSON.stringify(bulk.body));
      assert.equal(await outboxRows(), before, "no delivery outlived its transaction");
      const still = await api<{ assigned_to: unknown }>(inventory, "GET", `/hardware/${free}`);
      assert.equal(still.body.assigned_to, null);
    });

    test("the other events: update, audit, delete, and the check-outs of accessories, consumables, components and licenses", async () => {
      const everything = await makeWebhook({ name: "all", url: generic.url, secret: SECRET, events: ["*"] });
      await api(inventory, "PATCH", "/settings", {
        body: { webhook_selected: "slack", webhook_endpoint: chat.url },
      });
      const from = generic.received.length;
      const chatFrom = chat.received.length;
      const told = (event: string) =>
        generic.next((r) => r.headers["x-inventory-event"] === event, from).then((r) => JSON.parse(r.body));

      const id = await createAsset(inventory, f, "NT-EV");
      await api(inventory, "PATCH", `/hardware/${id}`, { body: { name: "Renamed" } });
      assert.deepEqual((await told("asset.update")).changes.name, { old: null, new: "Renamed" });
      await api(inventory, "POST", `/hardware/${id}/audit`, { body: { note: "seen it" } });
      assert.equal((await told("asset.audit")).note, "seen it");
      await api(inventory, "DELETE", `/hardware/${id}`);
      assert.equal((await told("asset.delete")).item.deleted, true);

      const made = async (path: string, type: string, extra: Record<string, unknown>) => {
        const category = await api<Envelope<{ id: number }>>(inventory, "POST", "/categories", {
          body: { name: `nt ${type}s`, category_type: type },
        });
        const answer = await api<Envelope<{ id: number }>>(inventory, "POST", path, {
          body: { name: `nt ${type}`, category_id: category.body.payload.id, ...extra },
        });
        assert.equal(answer.body.status, "success", JSON.stringify(answer.body));
        return answer.body.payload.id;
      };
      const accessory = await made("/accessories", "accessory", { qty: 5 });
      const consumable = await made("/consumables", "consumable", { qty: 5 });
      const component = await made("/components", "component", { qty: 5 });
      const license = await made("/licenses", "license", { seats: 2 });
      const host = await createAsset(inventory, f, "NT-HOST");
      const steps: [string, Record<string, unknown>][] = [
        [`/accessories/${accessory}/checkout`, { assigned_user: f.userId, checkout_qty: 2 }],
        [`/consumables/${consumable}/checkout`, { assigned_to: f.userId }],
        [`/components/${component}/checkout`, { assigned_to: host, assigned_qty: 3 }],
        [`/licenses/${license}/checkout`, { assigned_to: f.userId }],
      ];
      for (const [path, body] of steps) {
        const answer = await api<Envelope>(inventory, "POST", path, { body });
        assert.equal(answer.body.status, "success", `${path}: ${JSON.stringify(answer.body)}`);
      }
      const accessoryOut = await told("accessory.checkout");
      assert.deepEqual(
        [accessoryOut.item.id, accessoryOut.quantity, accessoryOut.target.id],
        [accessory, 2, f.userId],
      );
      assert.equal((await told("consumable.checkout")).item.name, "nt consumable");
      const componentOut = await told("component.checkout");
      assert.deepEqual(
        [componentOut.quantity, componentOut.target.type, componentOut.target.id],
        [3, "asset", host],
      );
      assert.equal((await told("license.checkout")).target.id, f.userId);

      const slack = JSON.parse(
        (await chat.next((r) => r.body.includes("Accessory Checked Out"), chatFrom)).body,
      );
      assert.equal(slack.text, ":arrow_up: :keyboard: Accessory Checked Out");
      assert.equal(slack.attachments[0].title, "2 x nt accessory");
      for (const text of [
        "Consumable Checked Out",
        "Component checked out",
        "License Checked Out",
        "Asset Audited",
      ])
        await chat.next((r) => r.body.includes(text), chatFrom);
      assert.ok(
        !chat.received.slice(chatFrom).some((r) => /asset\.(update|delete|create)/.test(r.body)),
        "Snipe-IT tells its chat webhook of no create, update or delete",
      );
      await api(inventory, "DELETE", `/webhooks/${everything.id}`);
    });

    test("`anvil hooks` runs its command for a signed check-out notification, and nothing for a wrong secret", async () => {
      await api(inventory, "PATCH", "/settings", { body: { webhook_endpoint: "" } });
      const good = await makeWebhook({
        name: "runner",
        url: runner.url("inventory"),
        secret: SECRET,
        events: ["asset.checkout"],
      });
      const forged = await makeWebhook({
        name: "impostor",
        url: runner.url("inventory"),
        secret: "not-the-secret",
        events: ["asset.checkout"],
      });
      const id = await createAsset(inventory, f, "NT-RUN");
      assert.equal((await checkout(id)).body.status, "success");
      await runner.waitForCall(
        "the check-out's command",
        (c) => c[0] === "asset.checkout" && c[1] === "NT-RUN",
      );
      const answered = (webhook: Webhook) =>
        waitFor(`${webhook.name}'s answer`, async () => {
          const page = await api<List<Delivery>>(inventory, "GET", `/webhooks/${webhook.id}/deliveries`);
          return page.body.rows.find((d) => d.response_status !== null);
        });
      assert.equal((await answered(good)).response_status, 200);
      // The runner answers a signature that does not match with a 500, and runs nothing.
      assert.equal((await answered(forged)).response_status, 500);
      assert.deepEqual(await runner.calls(), [["asset.checkout", "NT-RUN"]]);
    });
  },
  { apiThrottlePerMinute: 0, webhookAllowedHostList: "loopback", webhookRetryWaitsMs: [] },
);
