import type { AnyKysely } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { presentAssets } from "../../convert/asset.ts";
import type { Row } from "../../repositories/records.ts";
import { assets, toDay } from "../../resources/assets.ts";
import { idParam, originOf } from "../../routes/v1/context.ts";
import { findAsset } from "../../services/assets.ts";
import { fieldsOfModel } from "../../services/custom-values.ts";
import type { Caller } from "../../services/permissions.ts";
import { createResource, updateResource } from "../../services/resource.ts";
import { choicesOf, searchOf } from "../choices.ts";
import {
  formOf,
  guard,
  invalidFields,
  pageCaller,
  redirectWith,
  render,
  type WebContext,
} from "../context.ts";
import { plain } from "./hardware-view.ts";

// The asset form (Snipe-IT's hardware/edit): create, edit and clone, through the generic create
// and update of the assets' resource definition, as POST and PATCH /api/v1/hardware do. The model's
// fieldset decides the custom fields: htmx swaps them in when the model changes; without
// JavaScript, "Reload Fields" posts the form back to show them, saving nothing.

/** The form's own fields, as the API names them. */
const FORM_FIELDS = [
  "asset_tag",
  "model_id",
  "status_id",
  "serial",
  "name",
  "company_id",
  "rtd_location_id",
  "purchase_date",
  "purchase_cost",
  "order_number",
  "warranty_months",
  "notes",
] as const;

/** A field's options as Snipe-IT keeps them: one per line, `value|label` or the value alone. */
function optionsOf(field: Row): { value: string; label: string }[] {
  return String(field.field_values ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const [value, label] = line.split("|");
      return { value: value.trim(), label: (label ?? value).trim() };
    });
}

/** The custom fields of a model's fieldset, as the form shows them. */
async function customFieldsOf(db: AnyKysely, modelId: unknown) {
  if (!/^\d+$/.test(String(modelId ?? ""))) return [];
  return (await fieldsOfModel(db, modelId)).map(({ field, required }) => ({
    name: String(field.db_column),
    label: String(field.name),
    element: String(field.element ?? "text"),
    help: field.help_text === null || field.help_text === undefined ? "" : String(field.help_text),
    required,
    options: optionsOf(field),
  }));
}

/** The values of a posted form: a checkbox field's ticks become Snipe-IT's "a, b" text. */
function postedValues(request: FastifyRequest): Record<string, unknown> {
  const { _reload: _reloading, ...fields } = formOf(request);
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const name = key.endsWith("[]") ? key.slice(0, -2) : key;
    values[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  // An unticked box sends nothing: it means "not requestable".
  values.requestable = values.requestable === "1" ? "1" : "0";
  return values;
}

/** The form's values of a stored asset: its columns, and its custom values as the API shows them. */
async function storedValues(db: AnyKysely, caller: Caller, row: Row): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const name of FORM_FIELDS)
    values[name] = row[name] === null || row[name] === undefined ? "" : String(row[name]);
  values.purchase_date = toDay(row.purchase_date) ?? "";
  values.requestable = row.requestable ? "1" : "0";
  const [shown] = await presentAssets(db, caller, [row]);
  for (const field of Object.values(
    (plain(shown) as { custom_fields: Record<string, { field: string; value: string }> }).custom_fields,
  ))
    values[field.field] = field.value;
  return values;
}

type FormKind = "create" | "edit" | "clone";

export function registerHardwareForm(context: WebContext): void {
  const { app, database } = context;
  const db = () => database.db as AnyKysely;
  const allowed = (permission: string) => ({ onRequest: guard(context, { permission }) });

  const showForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    kind: FormKind,
    values: Record<string, unknown>,
    errors: Record<string, string[]> = {},
    status = 200,
  ) => {
    const caller = pageCaller(request);
    const id = kind === "edit" ? idParam(request) : undefined;
    const [models, statuses, companies, locations, fields] = await Promise.all([
      choicesOf(database, caller, "models"),
      choicesOf(database, caller, "statuslabels"),
      choicesOf(database, caller, "companies"),
      choicesOf(database, caller, "locations"),
      customFieldsOf(db(), values.model_id),
    ]);
    const titles = { create: "Create Asset", edit: "Update Asset", clone: "Clone Asset" };
    // A message about a field the form does not show (a custom field of the model chosen before)
    // is said above the form, with the form's own.
    const shown = new Set<string>([...FORM_FIELDS, ...fields.map((field) => field.name), "form"]);
    const elsewhere = Object.entries(errors).filter(([key]) => !shown.has(key));
    if (elsewhere.length > 0)
      errors = {
        ...errors,
        form: [...(errors.form ?? []), ...elsewhere.flatMap(([, messages]) => messages)],
      };
    return render(
      context,
      request,
      reply,
      "hardware/form",
      {
        title: titles[kind],
        action: id === undefined ? "/hardware" : `/hardware/${id}`,
        choices: { models, statuses, companies, locations, searches: { models: searchOf("models", models) } },
        fields,
        values,
        errors,
      },
      status,
    );
  };

  app.get("/hardware/create", allowed("assets.create"), (request, reply) =>
    showForm(request, reply, "create", { requestable: "0" }),
  );

  app.get("/hardware/:id/edit", allowed("assets.edit"), async (request, reply) => {
    const caller = pageCaller(request);
    const row = await findAsset(db(), idParam(request), caller);
    return showForm(request, reply, "edit", await storedValues(db(), caller, row));
  });

  // A copy of the asset's values for a new one; its tag and serial are its own (as Snipe-IT clears them).
  app.get("/hardware/:id/clone", allowed("assets.create"), async (request, reply) => {
    const caller = pageCaller(request);
    const row = await findAsset(db(), idParam(request), caller);
    return showForm(request, reply, "clone", {
      ...(await storedValues(db(), caller, row)),
      asset_tag: "",
      serial: "",
    });
  });

  // The custom fields of the chosen model, for htmx to swap in when the model changes.
  app.get("/hardware/custom-fields", allowed("assets.view"), async (request, reply) => {
    const modelId = (request.query as Record<string, unknown>).model_id;
    return reply.header("cache-control", "no-store").view("hardware/custom-fields", {
      fields: await customFieldsOf(db(), modelId),
      values: {},
      errors: {},
    });
  });

  const save = async (request: FastifyRequest, reply: FastifyReply, kind: "create" | "edit") => {
    const caller = pageCaller(request);
    const values = postedValues(request);
    if (formOf(request)._reload !== undefined) return showForm(request, reply, kind, values);
    let row: Row;
    try {
      row =
        kind === "create"
          ? await createResource(database, assets, caller, originOf(request), values)
          : await updateResource(database, assets, caller, originOf(request), idParam(request), values);
    } catch (error) {
      return showForm(request, reply, kind, values, invalidFields(error), 422);
    }
    const message = kind === "create" ? assets.messages.create : assets.messages.update;
    return redirectWith(context, reply, `/hardware/${row.id}`, "success", message);
  };
  app.post("/hardware", allowed("assets.create"), (request, reply) => save(request, reply, "create"));
  app.post("/hardware/:id", allowed("assets.edit"), (request, reply) => save(request, reply, "edit"));
}
