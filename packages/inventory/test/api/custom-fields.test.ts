import assert from "node:assert/strict";
import { test } from "node:test";
import type { AnyKysely } from "@anvil/core";
import { type AssetFixture, assetFixture, createAsset, type Envelope, type List } from "../support/assets.ts";
import { api, forEachInventory, userWithToken } from "../support/inventory.ts";

// Custom fields and fieldsets (spec §20), and asset values through them (spec §7.2–7.4, §8).

type Row = Record<string, unknown> & { id: number };
type Shown = { field: string; value: string; field_format: string; element: string };

/** Laravel's name for a column in its messages: `_snipeit_ram_3` is " snipeit ram 3". */
const attribute = (column: string) => column.replaceAll("_", " ");

forEachInventory("inventory API: custom fields", (inventory) => {
  let f: AssetFixture;
  const call = <T = Envelope>(method: string, path: string, body?: unknown, token?: string) =>
    api<T>(inventory, method, path, { body, token });
  const create = async (path: string, body: Record<string, unknown>): Promise<Row> => {
    const answer = await call<Envelope<Row>>("POST", path, body);
    assert.equal(answer.body.status, "success", `${path}: ${JSON.stringify(answer.body)}`);
    return answer.body.payload;
  };
  const field = (body: Record<string, unknown>) => create("/fields", { element: "text", ...body });
  const associate = (fieldId: number, fieldsetId: number, extra: Record<string, unknown> = {}) =>
    call("POST", `/fields/${fieldId}/associate`, { fieldset_id: fieldsetId, ...extra });
  /** A model with a fieldset holding these fields (required where asked). */
  const modelWith = async (name: string, fields: { id: number; required?: boolean }[], extra = {}) => {
    const fieldset = await create("/fieldsets", { name: `${name} set` });
    for (const { id, required } of fields)
      await associate(id, fieldset.id, required ? { required: "on" } : {});
    const model = await create("/models", {
      name,
      category_id: f.categoryId,
      fieldset_id: fieldset.id,
      ...extra,
    });
    return { fieldsetId: fieldset.id, modelId: model.id };
  };
  const asset = async (id: number, token?: string) =>
    (await call<Row & { custom_fields: Record<string, Shown> }>("GET", `/hardware/${id}`, undefined, token))
      .body;
  const history = async (id: number) =>
    (
      await call<List<{ action_type: string; log_meta: Record<string, unknown> | null }>>(
        "GET",
        `/hardware/${id}/history?sort=id&order=desc`,
      )
    ).body;

  test("fixture", async () => {
    f = await assetFixture(inventory, "cf");
  });

  test("fields: the raw row with db_column on create, the field object on show, renames and refusals", async () => {
    const created = await call<Envelope<Row>>("POST", "/fields", {
      name: "MAC Address",
      element: "text",
      format: "MAC",
      help_text: "colon separated",
    });
    assert.equal(created.body.status, "success");
    assert.equal(created.body.messages, "Field created successfully.");
    const raw = created.body.payload;
    assert.equal(raw.db_column, `_snipeit_mac_address_${raw.id}`);
    assert.equal(raw.format, "MAC", "the format by its name");
    assert.equal(raw.help_text, "colon separated");
    assert.match(String(raw.created_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

    const shown = await call<Row>("GET", `/fields/${raw.id}`);
    assert.deepEqual(
      { ...shown.body, created_at: undefined, updated_at: undefined },
      {
        id: raw.id,
        name: "MAC Address",
        db_column_name: `_snipeit_mac_address_${raw.id}`,
        format: "MAC",
        field_values: null,
        field_values_array: null,
        type: "text",
        required: false,
        display_in_user_view: false,
        auto_add_to_fieldsets: false,
        show_in_listview: false,
        display_checkin: false,
        display_checkout: false,
        display_audit: false,
        created_at: undefined,
        updated_at: undefined,
      },
    );

    const listbox = await field({
      name: "Colour <list>",
      element: "listbox",
      field_values: "Red\nBlue|Navy blue",
    });
    const listed = await call<List<Row>>("GET", "/fields");
    const row = listed.body.rows.find((entry) => entry.id === listbox.id);
    assert.equal(listed.body.total, listed.body.rows.length);
    assert.equal(row?.name, "Colour &lt;list&gt;");
    assert.equal(row?.db_column_name, `_snipeit_colour_list_${listbox.id}`);
    assert.deepEqual(row?.field_values_array, ["Red", "Blue|Navy blue"]);

    const long = await field({ name: `Über ${"x".repeat(60)}` });
    assert.equal(long.db_column, `${`_snipeit_uber_${"x".repeat(60)}`.slice(0, 50)}_${long.id}`);
    const regex = await field({ name: "Three digits", format: "regex:/^[0-9]{3}$/" });
    assert.equal(regex.format, "regex:/^[0-9]{3}$/");

    assert.deepEqual((await call("POST", "/fields", {})).body, {
      status: "error",
      messages: { name: ["The name field is required."], element: ["The element field is required."] },
      payload: null,
    });
    assert.deepEqual(
      (await call("POST", "/fields", { name: "MAC Address", element: "text" })).body.messages,
      {
        name: ["The name has already been taken."],
      },
    );
    assert.deepEqual(
      (await call("POST", "/fields", { name: "Odd", element: "dropdown", format: "SHOUTING" })).body.messages,
      { element: ["The selected element is invalid."], format: ["The selected format is invalid."] },
    );
    assert.deepEqual((await call("POST", "/fields", { name: "Odd", format: "regex:/([/" })).body.messages, {
      element: ["The element field is required."],
      format: ["The selected format is invalid."],
    });

    const renamed = await call<Envelope<Row>>("PATCH", `/fields/${raw.id}`, {
      name: "Wi-Fi MAC",
      field_encrypted: true,
    });
    assert.equal(renamed.body.messages, "Field updated successfully.");
    assert.equal(
      renamed.body.payload.db_column,
      `_snipeit_wi_fi_mac_${raw.id}`,
      "renaming renames the column",
    );
    assert.equal(renamed.body.payload.format, "MAC", "a partial update keeps the format");
    assert.equal(Boolean(renamed.body.payload.field_encrypted), false, "encryption cannot change");
    const reformatted = await call<Envelope<Row>>("PUT", `/fields/${raw.id}`, { format: "ANY" });
    assert.equal(reformatted.body.payload.format, "ANY");
    assert.deepEqual(
      (await call("PATCH", `/fields/${raw.id}`, { name: "MAC Address x", element: "x" })).body.messages,
      {
        element: ["The selected element is invalid."],
      },
    );

    assert.deepEqual((await call("GET", "/fields/99999")).body, {
      status: "error",
      messages: "That field does not exist.",
      payload: null,
    });
    assert.equal(
      (await call("PATCH", "/fields/99999", { name: "x" })).body.messages,
      "CustomField not found",
    );
    assert.equal((await call("DELETE", "/fields/99999")).body.messages, "CustomField not found");
    assert.deepEqual((await call("DELETE", `/fields/${regex.id}`)).body, {
      status: "success",
      messages: "The field was deleted successfully.",
      payload: null,
    });
    assert.equal((await call("GET", `/fields/${regex.id}`)).body.messages, "That field does not exist.");
  });

  test("fieldsets: auto-added fields, associate, order, disassociate, POST fields, delete refusals", async () => {
    const automatic = await field({ name: "Inventory number", auto_add_to_fieldsets: true });
    const disk = await field({ name: "Disk" });
    const cpu = await field({ name: "CPU" });
    const created = await call<Envelope<Row>>("POST", "/fieldsets", { name: "Laptops" });
    assert.equal(created.body.messages, "Fieldset created successfully.");
    const fieldsetId = created.body.payload.id;
    assert.equal(created.body.payload.name, "Laptops");
    const names = async () =>
      (await call<List<Row>>("POST", `/fieldsets/${fieldsetId}/fields`)).body.rows.map((row) => [
        row.name,
        row.required,
      ]);
    assert.deepEqual(await names(), [["Inventory number", false]], "auto_add_to_fieldsets");
    // Later fieldsets of this suite are not to get it.
    await call("PATCH", `/fields/${automatic.id}`, { auto_add_to_fieldsets: false });

    const joined = await associate(disk.id, fieldsetId, { required: "on" });
    assert.equal(joined.body.status, "success");
    assert.equal(joined.body.messages, "Fieldset updated successfully.");
    assert.equal((joined.body.payload as Row).id, fieldsetId, "the payload is the fieldset");
    await associate(cpu.id, fieldsetId, { order: 5 });
    assert.equal((await associate(disk.id, fieldsetId)).body.status, "success", "twice is once");
    assert.deepEqual(await names(), [
      ["Inventory number", false],
      ["Disk", true],
      ["CPU", false],
    ]);

    const ordered = await call<Record<string, unknown>>("POST", `/fields/fieldsets/${fieldsetId}/order`, {
      item: [cpu.id, automatic.id, disk.id],
    });
    const byNumber = (ids: unknown) => [...(ids as number[])].sort((a, b) => a - b);
    assert.deepEqual(ordered.body.attached, []);
    assert.deepEqual(ordered.body.detached, []);
    assert.deepEqual(byNumber(ordered.body.updated), byNumber([cpu.id, automatic.id, disk.id]));
    assert.deepEqual(await names(), [
      ["CPU", false],
      ["Inventory number", false],
      ["Disk", true],
    ]);
    assert.deepEqual((await call("POST", `/fields/fieldsets/${fieldsetId}/order`, {})).body.messages, {
      item: ["The item field is required."],
    });
    assert.equal(
      (await call("POST", "/fields/fieldsets/99999/order", { item: [] })).body.messages,
      "Fieldset does not exist",
    );

    assert.equal(
      (await call("POST", `/fields/${automatic.id}/disassociate`, { fieldset_id: fieldsetId })).body.status,
      "success",
    );
    assert.deepEqual(
      (await names()).map(([name]) => name),
      ["CPU", "Disk"],
    );
    assert.equal((await associate(99999, fieldsetId)).body.messages, "CustomField not found");
    assert.equal((await associate(cpu.id, 99999)).body.messages, "CustomFieldset not found");

    const model = await create("/models", {
      name: "FS model",
      category_id: f.categoryId,
      fieldset_id: fieldsetId,
    });
    const shown = await call<Row>("GET", `/fieldsets/${fieldsetId}`);
    assert.equal(shown.body.name, "Laptops");
    assert.deepEqual(shown.body.models, { total: 1, rows: [{ id: model.id, name: "FS model" }] });
    const fields = shown.body.fields as List<Row>;
    assert.equal(fields.total, 2);
    assert.equal(fields.rows[1].db_column_name, `_snipeit_disk_${disk.id}`);
    assert.equal(fields.rows[1].required, true);
    const all = await call<List<Row>>("GET", "/fieldsets");
    assert.ok(all.body.rows.some((row) => row.id === fieldsetId));
    assert.equal(all.body.total, all.body.rows.length);

    assert.deepEqual((await call("DELETE", `/fields/${disk.id}`)).body, {
      status: "error",
      messages: "Field is in use.",
      payload: null,
    });
    assert.equal((await call("DELETE", `/fieldsets/${fieldsetId}`)).body.messages, "Fieldset is in use.");
    for (const id of [cpu.id, disk.id])
      await call("POST", `/fields/${id}/disassociate`, { fieldset_id: fieldsetId });
    assert.equal(
      (await call("DELETE", `/fieldsets/${fieldsetId}`)).body.messages,
      "Fieldset is in use.",
      "a model uses it",
    );
    await call("PATCH", `/models/${model.id}`, { custom_fieldset_id: null });
    assert.deepEqual((await call("DELETE", `/fieldsets/${fieldsetId}`)).body, {
      status: "success",
      messages: "The fieldset was deleted successfully.",
      payload: null,
    });
    assert.equal((await call("GET", `/fieldsets/${fieldsetId}`)).body.messages, "Fieldset does not exist");
    assert.equal(
      (await call("PATCH", `/fieldsets/${fieldsetId}`, { name: "x" })).body.messages,
      "CustomFieldset not found",
    );
    assert.equal((await call("DELETE", `/fields/${disk.id}`)).body.status, "success", "free again");

    const renamed = await create("/fieldsets", { name: "Desktops" });
    assert.equal(
      (await call<Envelope<Row>>("PUT", `/fieldsets/${renamed.id}`, { name: "Towers" })).body.payload.name,
      "Towers",
    );
    assert.deepEqual((await call("POST", "/fieldsets", { name: "Towers" })).body.messages, {
      name: ["The name has already been taken."],
    });
    assert.deepEqual((await call("POST", "/fieldsets", {})).body.messages, {
      name: ["The name field is required."],
    });
    await call("PATCH", `/models/${model.id}`, { fieldset_id: null, custom_fieldset_id: renamed.id });
    const moved = (await call<Row>("GET", `/models/${model.id}`)).body;
    assert.deepEqual(moved.fieldset, { id: renamed.id, name: "Towers" }, "custom_fieldset_id wins on update");
  });

  test("permissions: customfields.view reads, the rest needs create/edit/delete", async () => {
    const viewer = await userWithToken(inventory, "cfviewer", { "customfields.view": "1" });
    assert.equal((await call("GET", "/fields", undefined, viewer.token)).status, 200);
    assert.equal((await call("GET", "/fieldsets", undefined, viewer.token)).status, 200);
    for (const [method, path] of [
      ["POST", "/fields"],
      ["PATCH", "/fields/1"],
      ["DELETE", "/fields/1"],
      ["POST", "/fields/1/associate"],
      ["POST", "/fieldsets"],
      ["DELETE", "/fieldsets/1"],
    ]) {
      const denied = await call(method, path, { name: "x" }, viewer.token);
      assert.equal(denied.status, 403, `${method} ${path}`);
      assert.deepEqual(denied.body, { message: "This action is unauthorized." });
    }
    const nobody = await userWithToken(inventory, "cfnobody", {});
    assert.equal((await call("GET", "/fields", undefined, nobody.token)).status, 403);
  });

  test("formats: each accepts its values and refuses others in Laravel's words", async () => {
    const cases: [string, string | number | boolean, unknown, string, string][] = [
      // format, accepted value, refused value, message after the attribute, value as stored
      ["ANY", "anything <at> all", ["x"], "cannot be an array.", "anything <at> all"],
      ["ALPHA", "Ärger", "abc1", "field must only contain letters.", "Ärger"],
      [
        "ALPHA-DASH",
        "a-b_c9",
        "a b",
        "field must only contain letters, numbers, dashes, and underscores.",
        "a-b_c9",
      ],
      ["ALPHA-NUMERIC", "abc123", "abc-1", "field must only contain letters and numbers.", "abc123"],
      ["NUMERIC", 12.5, "12a", "field must be a number.", "12.5"],
      ["EMAIL", "a@example.com", "a@", "field must be a valid email address.", "a@example.com"],
      ["DATE", "2024-03-05", "2024-02-31", "field must be a valid date.", "2024-03-05"],
      ["URL", "https://example.com/x", "example", "field must be a valid URL.", "https://example.com/x"],
      ["IP", "::1", "1.2.3", "field must be a valid IP address.", "::1"],
      ["IPV4", "10.0.0.1", "::1", "field must be a valid IPv4 address.", "10.0.0.1"],
      ["IPV6", "fe80::1", "10.0.0.1", "field must be a valid IPv6 address.", "fe80::1"],
      ["MAC", "00:1a:2B:3c:4d:5e", "00-1a-2b-3c-4d-5e", "field format is invalid.", "00:1a:2B:3c:4d:5e"],
      ["BOOLEAN", "yes", "maybe", "field must be true or false.", "1"],
      ["regex:/^[A-Z]{2}-\\d+$/", "AB-12", "ab-12", "field format is invalid.", "AB-12"],
    ];
    const fields: Row[] = [];
    for (const [format] of cases) fields.push(await field({ name: `Format ${format}`, format }));
    const choice = await field({ name: "Size", element: "listbox", field_values: "S\nM|Medium\nL" });
    const radio = await field({ name: "Side", element: "radio", field_values: "left\nright" });
    const boxes = await field({ name: "Ports", element: "checkbox", field_values: "usb\nhdmi\nvga" });
    const { modelId } = await modelWith("Formats", [...fields, choice, radio, boxes]);
    const id = await createAsset(inventory, f, "CF-FMT", { model_id: modelId });

    for (const [index, [format, good, bad, message, stored]] of cases.entries()) {
      const column = String(fields[index].db_column);
      const refused = await call("PATCH", `/hardware/${id}`, { [column]: bad });
      const prefix = message === "cannot be an array." ? attribute(column) : `The ${attribute(column)}`;
      assert.deepEqual(refused.body.messages, { [column]: [`${prefix} ${message}`] }, format);
      const accepted = await call<Envelope<Row>>("PATCH", `/hardware/${id}`, { [column]: good });
      assert.equal(accepted.body.status, "success", `${format}: ${JSON.stringify(accepted.body.messages)}`);
      assert.equal(accepted.body.payload[column], stored, `${format} as stored`);
    }
    const column = (row: Row) => String(row.db_column);
    const refusals: [Row, unknown, string][] = [
      [choice, "XL", `The selected ${attribute(column(choice))} is invalid.`],
      [radio, "up", `${attribute(column(radio))} is invalid.`],
      [boxes, ["usb", "scart"], `${attribute(column(boxes))} contains invalid options.`],
      [boxes, "usb, scart", `${attribute(column(boxes))} contains invalid options.`],
    ];
    for (const [target, value, message] of refusals)
      assert.deepEqual((await call("PATCH", `/hardware/${id}`, { [column(target)]: value })).body.messages, {
        [column(target)]: [message],
      });
    const options = await call<Envelope<Row>>("PATCH", `/hardware/${id}`, {
      [column(choice)]: "M",
      [column(radio)]: "right",
      [column(boxes)]: ["usb", "vga"],
    });
    assert.equal(options.body.status, "success");
    assert.equal(options.body.payload[column(boxes)], "usb,vga");

    const shown = (await asset(id)).custom_fields;
    assert.deepEqual(shown["Format DATE"], {
      field: column(fields[6]),
      value: "2024-03-05",
      field_format: "DATE",
      element: "text",
    });
    assert.equal(shown["Format ANY"].value, "anything &lt;at&gt; all", "values are HTML-escaped");
    assert.equal(shown["Format regex:/^[A-Z]{2}-\\d+$/"].field_format, "regex:/^[A-Z]{2}-\\d+$/");
    assert.equal(shown.Size.value, "M");
    assert.equal(shown.Size.element, "listbox");
    const loose = await call<Envelope<Row>>("PATCH", `/hardware/${id}`, {
      [column(fields[6])]: "March 7, 2024",
    });
    assert.equal(loose.body.payload[column(fields[6])], "2024-03-07", "dates are stored as YYYY-MM-DD");
    const cleared = await call<Envelope<Row>>("PATCH", `/hardware/${id}`, { [column(fields[0])]: "" });
    assert.equal(cleared.body.payload[column(fields[0])], null);
    assert.equal((await asset(id)).custom_fields["Format ANY"].value, "", "no value shows as empty");
  });

  test("asset writes: defaults, unknown and foreign columns, required, unique, nothing half-written, history", async () => {
    const code = await field({ name: "Asset code", is_unique: true });
    const ram = await field({ name: "RAM GB", format: "NUMERIC" });
    const note = await field({ name: "Remark" });
    const stranger = await field({ name: "Not in the set" });
    const { fieldsetId, modelId } = await modelWith("Writer", [{ id: code.id, required: true }, ram, note], {
      default_values: { [ram.id]: "8" },
    });
    const [codeColumn, ramColumn, noteColumn] = [code, ram, note].map((row) => String(row.db_column));

    const model = (await call<Row>("GET", `/models/${modelId}`)).body;
    assert.deepEqual(model.fieldset, { id: fieldsetId, name: "Writer set" });
    assert.deepEqual(model.default_fieldset_values, [
      { name: "Asset code", db_column_name: codeColumn, default_value: null, format: "ANY", required: true },
      { name: "RAM GB", db_column_name: ramColumn, default_value: "8", format: "NUMERIC", required: false },
      { name: "Remark", db_column_name: noteColumn, default_value: null, format: "ANY", required: false },
    ]);
    const withDefaults = await call<List<Row>>("POST", `/fieldsets/${fieldsetId}/fields/${modelId}`);
    assert.deepEqual(
      withDefaults.body.rows.map((row) => [row.name, row.required, row.default_value]),
      [
        ["Asset code", true, null],
        ["RAM GB", false, "8"],
        ["Remark", false, null],
      ],
    );
    assert.deepEqual(
      (
        await call("PATCH", `/models/${modelId}`, {
          default_values: { [ram.id]: "eight", [stranger.id]: "x", 99999: "y" },
        })
      ).body.messages,
      {
        [ramColumn]: [`The ${attribute(ramColumn)} field must be a number.`],
        [`default_values.${stranger.id}`]: [
          "This field seems to exist, but is not available on this Asset Model's fieldset.",
        ],
        "default_values.99999": [
          "This field does not seem to exist, please double check your custom field names.",
        ],
      },
    );

    const base = { model_id: modelId, status_id: f.deployable };
    const count = async () => (await call<List>("GET", `/hardware?model_id=${modelId}`)).body.total;
    const missing = await call("POST", "/hardware", { ...base, asset_tag: "CF-W0" });
    assert.deepEqual(missing.body.messages, {
      [codeColumn]: [`The ${attribute(codeColumn)} field is required.`],
    });
    const foreign = await call("POST", "/hardware", {
      ...base,
      asset_tag: "CF-W0",
      [codeColumn]: "C-0",
      [String(stranger.db_column)]: "x",
      _snipeit_nothing_99999: "y",
    });
    assert.deepEqual(foreign.body.messages, {
      [String(stranger.db_column)]: [
        "This field seems to exist, but is not available on this Asset Model's fieldset.",
      ],
      _snipeit_nothing_99999: [
        "This field does not seem to exist, please double check your custom field names.",
      ],
    });
    const both = await call("POST", "/hardware", { ...base, _snipeit_nothing_99999: "y" });
    assert.deepEqual(
      both.body.messages,
      { asset_tag: ["The asset tag field is required."] },
      "field rules come first",
    );
    assert.equal(await count(), 0, "a refused create stores nothing");

    const created = await call<Envelope<Row>>("POST", "/hardware", {
      ...base,
      asset_tag: "CF-W1",
      [codeColumn]: "C-1",
    });
    assert.equal(created.body.status, "success");
    assert.equal(created.body.payload[codeColumn], "C-1", "the raw row carries the custom columns");
    assert.equal(created.body.payload[ramColumn], "8", "the model's default");
    assert.equal(created.body.payload[noteColumn], null);
    const id = created.body.payload.id;
    const shown = (await asset(id)).custom_fields;
    assert.deepEqual(Object.keys(shown), ["Asset code", "RAM GB", "Remark"], "in fieldset order");
    assert.deepEqual(shown["RAM GB"], {
      field: ramColumn,
      value: "8",
      field_format: "NUMERIC",
      element: "text",
    });

    const taken = await call("POST", "/hardware", { ...base, asset_tag: "CF-W2", [codeColumn]: "C-1" });
    assert.deepEqual(taken.body.messages, { [codeColumn]: [`The ${attribute(codeColumn)} must be unique.`] });
    const second = await createAsset(inventory, f, "CF-W2", {
      ...base,
      [codeColumn]: "C-2",
      [ramColumn]: 32,
    });
    assert.equal((await asset(second)).custom_fields["RAM GB"].value, "32", "a value sent beats the default");
    assert.deepEqual((await call("PATCH", `/hardware/${second}`, { [codeColumn]: "C-1" })).body.messages, {
      [codeColumn]: [`The ${attribute(codeColumn)} must be unique.`],
    });
    assert.equal(
      (await call("PATCH", `/hardware/${id}`, { [codeColumn]: "C-1" })).body.status,
      "success",
      "its own value",
    );

    const before = (await history(id)).total;
    const refused = await call("PUT", `/hardware/${id}`, {
      name: "Renamed",
      [noteColumn]: "kept?",
      [ramColumn]: "lots",
    });
    assert.deepEqual(refused.body.messages, {
      [ramColumn]: [`The ${attribute(ramColumn)} field must be a number.`],
    });
    const unchanged = await asset(id);
    assert.equal(unchanged.name, "", "the asset's own change was rolled back");
    assert.equal(unchanged.custom_fields.Remark.value, "", "and so was the valid custom value");
    assert.equal((await history(id)).total, before, "and its log entry");
    assert.deepEqual((await call("PATCH", `/hardware/${id}`, { [codeColumn]: null })).body.messages, {
      [codeColumn]: [`The ${attribute(codeColumn)} field is required.`],
    });

    const changed = await call("PATCH", `/hardware/${id}`, {
      name: "Renamed",
      [ramColumn]: "16",
      [noteColumn]: "new",
    });
    assert.equal(changed.body.messages, "Asset updated successfully.");
    const [entry] = (await history(id)).rows;
    assert.equal(entry.action_type, "update");
    assert.deepEqual(entry.log_meta, {
      name: { old: null, new: "Renamed" },
      [ramColumn]: { old: "8", new: "16" },
      [noteColumn]: { old: null, new: "new" },
    });

    // Deleted assets do not hold unique values.
    await call("DELETE", `/hardware/${second}`);
    assert.equal(
      (await call("POST", "/hardware", { ...base, asset_tag: "CF-W3", [codeColumn]: "C-2" })).body.status,
      "success",
    );

    const plain = await createAsset(inventory, f, "CF-PLAIN");
    assert.deepEqual((await asset(plain)).custom_fields, {}, "a model without fieldset");
    assert.deepEqual((await call("PATCH", `/hardware/${plain}`, { [codeColumn]: "x" })).body.messages, {
      [codeColumn]: ["This field seems to exist, but is not available on this Asset Model's fieldset."],
    });
    const moved = await call("PATCH", `/hardware/${plain}`, { model_id: modelId, [codeColumn]: "C-9" });
    assert.equal(moved.body.status, "success", "the new model's fieldset applies");
    assert.equal((await asset(plain)).custom_fields["Asset code"].value, "C-9");
  });

  test("a unique value taken by many writers at once: exactly one gets it", async () => {
    const serial = await field({ name: "Board serial", is_unique: true });
    const column = String(serial.db_column);
    const { modelId } = await modelWith("Racer", [serial]);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        call("POST", "/hardware", {
          asset_tag: `CF-RACE-${n}`,
          model_id: modelId,
          status_id: f.deployable,
          [column]: "SN-1",
        }),
      ),
    );
    const won = answers.filter((answer) => answer.body.status === "success");
    assert.equal(won.length, 1);
    for (const lost of answers.filter((answer) => answer.body.status !== "success"))
      assert.deepEqual(lost.body.messages, { [column]: [`The ${attribute(column)} must be unique.`] });
    assert.equal((await call<List>("GET", `/hardware?model_id=${modelId}`)).body.total, 1);
  });

  test("hardware list: filter by value, sort (NUMERIC as numbers), search, filter JSON", async () => {
    const size = await field({ name: "Memory size", format: "NUMERIC" });
    const label = await field({ name: "Owner label" });
    const { modelId } = await modelWith("Lister", [size, label]);
    const [sizeColumn, labelColumn] = [size, label].map((row) => String(row.db_column));
    const ids: Record<string, number> = {};
    for (const [tag, memory, owner] of [
      ["CF-L1", "16", "alpha team"],
      ["CF-L2", "8", "beta team"],
      ["CF-L3", "128", "gamma squad"],
    ])
      ids[memory] = await createAsset(inventory, f, tag, {
        model_id: modelId,
        [sizeColumn]: memory,
        [labelColumn]: owner,
      });
    const list = async (query: string) =>
      (await call<List<Row>>("GET", `/hardware?model_id=${modelId}&${query}`)).body.rows.map((row) => row.id);

    assert.deepEqual(await list(`${sizeColumn}=16`), [ids["16"]]);
    assert.deepEqual(await list(`${sizeColumn}=1`), [], "exact values");
    assert.deepEqual(
      await list(`sort=${sizeColumn}&order=asc`),
      [ids["8"], ids["16"], ids["128"]],
      "numbers",
    );
    assert.deepEqual(await list(`sort=custom_fields.${sizeColumn}&order=desc`), [
      ids["128"],
      ids["16"],
      ids["8"],
    ]);
    assert.deepEqual(await list(`sort=${labelColumn}&order=desc`), [ids["128"], ids["8"], ids["16"]], "text");
    assert.deepEqual(await list("search=SQUAD"), [ids["128"]], "search matches custom values");
    assert.deepEqual((await list("search=team")).sort(), [ids["16"], ids["8"]].sort());
    const filter = encodeURIComponent(JSON.stringify({ [`custom_fields.${labelColumn}`]: "beta" }));
    assert.deepEqual(await list(`filter=${filter}`), [ids["8"]]);
    assert.equal((await list("_snipeit_unknown_99999=1")).length, 3, "an unknown column filters nothing");
  });

  test("encrypted fields: ciphertext at rest, ENCRYPTED without permission, written only with it", async () => {
    const pin = await field({ name: "PIN", field_encrypted: true, format: "NUMERIC" });
    const column = String(pin.db_column);
    const { modelId } = await modelWith("Vault", [pin]);
    assert.deepEqual(
      (
        await call("POST", "/hardware", {
          asset_tag: "CF-E0",
          model_id: modelId,
          status_id: f.deployable,
          [column]: "12a",
        })
      ).body.messages,
      {
        [column]: [`The ${attribute(column)} field must be a number.`],
      },
    );
    const id = await createAsset(inventory, f, "CF-E1", { model_id: modelId, [column]: "1234" });
    const db = inventory.server.app.database?.db as AnyKysely;
    const stored = await db
      .selectFrom("asset_custom_values")
      .select("value")
      .where("asset_id", "=", id)
      .executeTakeFirstOrThrow();
    assert.match(String(stored.value), /^enc:v1:/, "stored encrypted");
    assert.ok(!String(stored.value).includes("1234"));

    assert.equal((await asset(id)).custom_fields.PIN.value, "1234", "a superuser reads it");
    const reader = await userWithToken(inventory, "cfreader", { "assets.view": "1", "assets.edit": "1" });
    const trusted = await userWithToken(inventory, "cftrusted", {
      "assets.view": "1",
      "assets.view.encrypted_custom_fields": "1",
    });
    assert.equal((await asset(id, reader.token)).custom_fields.PIN.value, "ENCRYPTED");
    assert.equal((await asset(id, trusted.token)).custom_fields.PIN.value, "1234");
    const listed = await call<List<Row & { custom_fields: Record<string, Shown> }>>(
      "GET",
      `/hardware?model_id=${modelId}`,
      undefined,
      reader.token,
    );
    assert.equal(listed.body.rows[0].custom_fields.PIN.value, "ENCRYPTED");
    assert.deepEqual(
      (await call<List>("GET", `/hardware?model_id=${modelId}&search=1234`)).body.total,
      0,
      "search does not look into encrypted values",
    );
    const byCipher = encodeURIComponent(JSON.stringify({ [column]: "enc" }));
    const filtered = await call<List>("GET", `/hardware?model_id=${modelId}&filter=${byCipher}`);
    assert.equal(filtered.body.total, 0, "nor does the filter");

    const skipped = await call(
      "PATCH",
      `/hardware/${id}`,
      { name: "Vaulted", [column]: "9999" },
      reader.token,
    );
    assert.equal(skipped.body.status, "success");
    assert.equal(
      skipped.body.messages,
      "Asset updated successfully, but encrypted custom fields were not due to permissions",
    );
    assert.equal((await asset(id)).custom_fields.PIN.value, "1234");
    assert.equal((await asset(id)).name, "Vaulted");

    await call("PATCH", `/hardware/${id}`, { [column]: "4321" });
    assert.equal((await asset(id)).custom_fields.PIN.value, "4321");
    const [entry] = (await history(id)).rows;
    assert.deepEqual(
      entry.log_meta,
      { [column]: { old: "*************", new: "*************" } },
      "the log hides it",
    );
  });

  test("audit writes the fields shown on the audit form, in its transaction", async () => {
    const seen = await field({ name: "Seen in room", display_audit: true });
    const other = await field({ name: "Not audited" });
    const { modelId } = await modelWith("Audited", [seen, other]);
    const id = await createAsset(inventory, f, "CF-AUD", { model_id: modelId });
    const audited = await call("POST", `/hardware/${id}/audit`, {
      note: "checked",
      [String(seen.db_column)]: "B-12",
      [String(other.db_column)]: "ignored",
    });
    assert.equal(audited.body.status, "success");
    const shown = (await asset(id)).custom_fields;
    assert.equal(shown["Seen in room"].value, "B-12");
    assert.equal(shown["Not audited"].value, "");
    const [entry] = (await history(id)).rows;
    assert.equal(entry.action_type, "audit");
    assert.deepEqual(entry.log_meta, { [String(seen.db_column)]: { old: null, new: "B-12" } });
  });
});
