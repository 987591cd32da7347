import { Conflict } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { presentField, presentFieldset } from "../../convert/custom-fields.ts";
import type { Row } from "../../repositories/records.ts";
import { idParam } from "../../routes/v1/context.ts";
import {
  associateField,
  createField,
  createFieldset,
  deleteField,
  deleteFieldset,
  disassociateField,
  FIELD_MESSAGES,
  FIELDSET_MESSAGES,
  fieldsOfFieldsets,
  findField,
  findFieldset,
  listFields,
  listFieldsets,
  modelsOfFieldsets,
  PREDEFINED_FORMATS,
  updateField,
  updateFieldset,
} from "../../services/custom-fields.ts";
import { can } from "../../services/permissions.ts";
import {
  field,
  guard,
  invalidFields,
  pageCaller,
  redirectWith,
  render,
  ticked,
  type WebContext,
} from "../context.ts";
import { renderForm, shownValue } from "../resource-view.ts";

// Custom fields and fieldsets (Snipe-IT's /fields and /fields/fieldsets): not table-driven
// resources, so written by hand, with the services of /api/v1/fields and /api/v1/fieldsets, the
// permissions customfields.view|create|edit|delete, and the resource pages' form templates.

const ELEMENTS = [
  ["text", "Text Box"],
  ["listbox", "List Box"],
  ["textarea", "Textarea (multi-line)"],
  ["checkbox", "Checkbox"],
  ["radio", "Radio Buttons"],
] as const;
const FORMATS = Object.keys(PREDEFINED_FORMATS)
  .filter((name) => name !== "CUSTOM REGEX")
  .map((name) => [name, name] as const);
/** The flags a field's form offers, with Snipe-IT's labels. */
const FIELD_FLAGS = [
  ["is_unique", "Unique"],
  ["auto_add_to_fieldsets", "Automatically add this to every new fieldset"],
  ["show_in_listview", "Show in list views"],
  ["display_in_user_view", "Allow the checked out user to view these values"],
] as const;

const checked = (value: unknown) => value === true || value === 1 || value === "1";

/** The custom field form, with the values shown (stored, or as sent). */
function fieldForm(values: Record<string, unknown>, creating: boolean) {
  const text = (name: string) =>
    values[name] === null || values[name] === undefined ? "" : String(values[name]);
  return [
    { name: "name", label: "Name", kind: "text", required: true, value: text("name") },
    {
      name: "element",
      label: "Field Element",
      kind: "select",
      required: true,
      value: text("element"),
      options: ELEMENTS,
    },
    {
      name: "format",
      label: "Format",
      kind: "select",
      required: false,
      value: text("format"),
      options: FORMATS,
    },
    {
      name: "custom_format",
      label: "Custom Format",
      kind: "text",
      required: false,
      value: text("custom_format"),
    },
    {
      name: "field_values",
      label: "Field Values",
      kind: "textarea",
      required: false,
      value: text("field_values"),
    },
    { name: "help_text", label: "Help Text", kind: "text", required: false, value: text("help_text") },
    ...(creating
      ? [
          {
            name: "field_encrypted",
            label: "Encrypt the value of this field",
            kind: "checkbox",
            required: false,
            value: "",
            checked: checked(values.field_encrypted),
          },
        ]
      : []),
    ...FIELD_FLAGS.map(([name, label]) => ({
      name,
      label,
      kind: "checkbox",
      required: false,
      value: "",
      checked: checked(values[name]),
    })),
  ];
}

/** A posted field form as the service takes it; a custom format stands for itself. */
function fieldInput(request: FastifyRequest, creating: boolean): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of ["name", "element", "format", "custom_format", "field_values", "help_text"])
    input[name] = field(request, name);
  if (input.custom_format === "") delete input.custom_format;
  const flags = [...FIELD_FLAGS.map(([name]) => name), ...(creating ? ["field_encrypted"] : [])];
  for (const name of flags) input[name] = ticked(request, name);
  return input;
}

export function registerFieldPages(context: WebContext): void {
  const { app, database } = context;
  const db = () => database.db;
  const on = (level: "view" | "create" | "edit" | "delete") => ({
    onRequest: guard(context, { permission: `customfields.${level}` }),
  });
  const may = (request: FastifyRequest) => {
    const caller = pageCaller(request);
    return {
      create: can(caller, "customfields.create"),
      edit: can(caller, "customfields.edit"),
      delete: can(caller, "customfields.delete"),
    };
  };
  const fieldsets = async (rows: Row[]) => {
    const ids = rows.map((row) => row.id);
    const [fields, models] = await Promise.all([fieldsOfFieldsets(db(), ids), modelsOfFieldsets(db(), ids)]);
    return rows.map((row) => presentFieldset(row, fields.get(row.id) ?? [], models.get(row.id) ?? []));
  };

  app.get("/fields", on("view"), async (request, reply) => {
    const sets = await fieldsets(await listFieldsets(db()));
    const fields = (await listFields(db())).map((row) => presentField(row));
    return render(context, request, reply, "resources/fields", {
      title: "Custom Fields",
      may: may(request),
      fieldsets: sets.map((set) => ({
        id: set.id,
        name: shownValue(set.name),
        fields: (set.fields as { total: number }).total,
        models: ((set.models as { rows: { name: string }[] }).rows ?? []).map((model) =>
          shownValue(model.name),
        ),
      })),
      fields: fields.map((row) => ({
        id: row.id,
        name: shownValue(row.name),
        element: shownValue(row.type),
        format: shownValue(row.format),
      })),
    });
  });

  // Custom fields: create, edit, delete.
  const showFieldForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    id: number | undefined,
    values: Record<string, unknown>,
    errors: Record<string, string[]> = {},
  ) =>
    renderForm(
      context,
      request,
      reply,
      {
        title: id === undefined ? "Create New Custom Field" : `Update Custom Field: ${values.name}`,
        action: id === undefined ? "/fields" : `/fields/${id}`,
        cancel: "/fields",
        fields: fieldForm(values, id === undefined),
      },
      errors,
    );
  app.get("/fields/create", on("create"), async (request, reply) =>
    showFieldForm(request, reply, undefined, { element: "text", format: "ANY" }),
  );
  app.post("/fields", on("create"), async (request, reply) => {
    const input = fieldInput(request, true);
    try {
      await createField(database, pageCaller(request), input);
    } catch (error) {
      return showFieldForm(request, reply, undefined, input, invalidFields(error));
    }
    return redirectWith(context, reply, "/fields", "success", FIELD_MESSAGES.create);
  });
  app.get("/fields/:id/edit", on("edit"), async (request, reply) => {
    const id = idParam(request);
    const row = await findField(db(), id);
    const shown = presentField(row);
    return showFieldForm(request, reply, id, { ...row, format: shownValue(shown.format) });
  });
  app.post("/fields/:id", on("edit"), async (request, reply) => {
    const id = idParam(request);
    const input = fieldInput(request, false);
    try {
      await updateField(database, id, input);
    } catch (error) {
      return showFieldForm(request, reply, id, input, invalidFields(error));
    }
    return redirectWith(context, reply, "/fields", "success", FIELD_MESSAGES.update);
  });

  /** A delete's confirmation and its post; the service's refusal ("in use") is shown on `back`. */
  const deletion = (
    path: string,
    kind: string,
    find: (id: number) => Promise<Row>,
    remove: (id: number) => Promise<void>,
    done: string,
    back: (id: number) => string,
  ) => {
    app.get(`${path}/:id/delete`, on("delete"), async (request, reply) => {
      const id = idParam(request);
      const row = await find(id);
      return render(context, request, reply, "resources/delete", {
        title: `Delete ${kind}`,
        name: String(row.name),
        action: `${path}/${id}/delete`,
        cancel: back(id),
      });
    });
    app.post(`${path}/:id/delete`, on("delete"), async (request, reply) => {
      const id = idParam(request);
      try {
        await remove(id);
      } catch (error) {
        if (error instanceof Conflict) return redirectWith(context, reply, back(id), "error", error.message);
        throw error;
      }
      return redirectWith(context, reply, "/fields", "success", done);
    });
  };
  deletion(
    "/fields",
    "Custom Field",
    (id) => findField(db(), id),
    (id) => deleteField(database, id),
    FIELD_MESSAGES.delete,
    () => "/fields",
  );

  // Fieldsets: create, show (its fields, which an editor adds and removes), rename, delete.
  const showFieldsetForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    id: number | undefined,
    name: string,
    errors: Record<string, string[]> = {},
  ) =>
    renderForm(
      context,
      request,
      reply,
      {
        title: id === undefined ? "Create New Fieldset" : `Update Fieldset: ${name}`,
        action: id === undefined ? "/fields/fieldsets" : `/fields/fieldsets/${id}`,
        cancel: id === undefined ? "/fields" : `/fields/fieldsets/${id}`,
        fields: [{ name: "name", label: "Name", kind: "text", required: true, value: name }],
      },
      errors,
    );
  app.get("/fields/fieldsets/create", on("create"), async (request, reply) =>
    showFieldsetForm(request, reply, undefined, ""),
  );
  app.post("/fields/fieldsets", on("create"), async (request, reply) => {
    let id: number;
    try {
      id = Number((await createFieldset(database, pageCaller(request), { name: field(request, "name") })).id);
    } catch (error) {
      return showFieldsetForm(request, reply, undefined, field(request, "name"), invalidFields(error));
    }
    return redirectWith(context, reply, `/fields/fieldsets/${id}`, "success", FIELDSET_MESSAGES.create);
  });
  app.get("/fields/fieldsets/:id", on("view"), async (request, reply) => {
    const id = idParam(request);
    const [set] = await fieldsets([await findFieldset(db(), id)]);
    const rows = (set.fields as { rows: Record<string, unknown>[] }).rows;
    const held = new Set(rows.map((row) => row.id));
    const others = (await listFields(db())).filter((row) => !held.has(Number(row.id)));
    return render(context, request, reply, "resources/fieldset", {
      title: shownValue(set.name),
      id,
      may: may(request),
      fields: rows.map((row) => ({
        id: row.id,
        name: shownValue(row.name),
        element: shownValue(row.type),
        format: shownValue(row.format),
        required: row.required === true,
      })),
      models: (set.models as { rows: { id: number; name: string }[] }).rows.map((model) => ({
        href: `/models/${model.id}`,
        name: shownValue(model.name),
      })),
      addable: others.map((row) => [String(row.id), String(row.name)]),
    });
  });
  app.get("/fields/fieldsets/:id/edit", on("edit"), async (request, reply) => {
    const id = idParam(request);
    return showFieldsetForm(request, reply, id, String((await findFieldset(db(), id)).name));
  });
  app.post("/fields/fieldsets/:id", on("edit"), async (request, reply) => {
    const id = idParam(request);
    try {
      await updateFieldset(database, id, { name: field(request, "name") });
    } catch (error) {
      return showFieldsetForm(request, reply, id, field(request, "name"), invalidFields(error));
    }
    return redirectWith(context, reply, `/fields/fieldsets/${id}`, "success", FIELDSET_MESSAGES.update);
  });
  app.post("/fields/fieldsets/:id/associate", on("edit"), async (request, reply) => {
    const id = idParam(request);
    await associateField(database, Number(field(request, "field_id")), {
      fieldset_id: id,
      required: ticked(request, "required") ? "on" : "",
    });
    return redirectWith(context, reply, `/fields/fieldsets/${id}`, "success", FIELDSET_MESSAGES.update);
  });
  app.post("/fields/fieldsets/:id/disassociate/:field", on("edit"), async (request, reply) => {
    const id = idParam(request);
    await disassociateField(database, idParam(request, "field"), { fieldset_id: id });
    return redirectWith(context, reply, `/fields/fieldsets/${id}`, "success", FIELDSET_MESSAGES.update);
  });
  deletion(
    "/fields/fieldsets",
    "Fieldset",
    (id) => findFieldset(db(), id),
    (id) => deleteFieldset(database, id),
    FIELDSET_MESSAGES.delete,
    (id) => `/fields/fieldsets/${id}`,
  );
}
