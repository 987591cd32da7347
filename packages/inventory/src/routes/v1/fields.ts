import type { AnyKysely } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import {
  fieldRow,
  presentField,
  presentFieldset,
  presentFieldsetFields,
  presentFieldsWithDefaults,
} from "../../convert/custom-fields.ts";
import type { Row } from "../../repositories/records.ts";
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
  reorderFieldset,
  updateField,
  updateFieldset,
} from "../../services/custom-fields.ts";
import { modelDefaults } from "../../services/custom-values.ts";
import { type ApiContext, authorized, idParam, permitted, success } from "./context.ts";
import { bodyOf } from "./hardware.ts";
import { IdParams, rawRow } from "./resource.ts";

// /fields and /fieldsets (spec §20), with the permissions customfields.view|create|edit|delete
// (spec §6). Neither list is paged. Snipe-IT reads a fieldset's fields with POST, kept (QUIRK).

const FieldBody = Type.Object({
  name: Type.Optional(Type.String()),
  element: Type.Optional(Type.String({ description: "text, listbox, textarea, checkbox or radio" })),
  format: Type.Optional(Type.String({ description: "ANY, NUMERIC, EMAIL, … or regex:/…/" })),
  field_values: Type.Optional(Type.String({ description: "the options, one per line" })),
  field_encrypted: Type.Optional(Type.Boolean({ description: "on create only" })),
  is_unique: Type.Optional(Type.Boolean()),
  auto_add_to_fieldsets: Type.Optional(Type.Boolean()),
});
const FieldsetBody = Type.Object({ name: Type.Optional(Type.String()) });
const AssociateBody = Type.Object({
  fieldset_id: Type.Integer(),
  required: Type.Optional(Type.String({ description: '"on" to make the field required' })),
  order: Type.Optional(Type.Integer()),
});
const OrderBody = Type.Object({ item: Type.Array(Type.Integer(), { description: "field ids, in order" }) });
const ModelParams = Type.Object({ id: Type.String(), model_id: Type.String() });

export function registerCustomFields({ app, database }: ApiContext): void {
  const db = () => database.db as AnyKysely;
  const fieldTags = ["fields"];
  const fieldsetTags = ["fieldsets"];
  type Level = "view" | "create" | "edit" | "delete";
  const allowed = (request: FastifyRequest, level: Level) => authorized(request, `customfields.${level}`);
  // Writes (and the POSTs that read) check their permission before the body is read.
  const may = (level: Level) => permitted(`customfields.${level}`);

  const fieldsetObjects = async (fieldsets: Row[]) => {
    const ids = fieldsets.map((fieldset) => fieldset.id);
    const [fields, models] = await Promise.all([fieldsOfFieldsets(db(), ids), modelsOfFieldsets(db(), ids)]);
    return fieldsets.map((fieldset) =>
      presentFieldset(fieldset, fields.get(fieldset.id) ?? [], models.get(fieldset.id) ?? []),
    );
  };
  const fieldsOf = async (id: number) => (await fieldsOfFieldsets(db(), [id])).get(id) ?? [];

  app.get("/fields", { schema: { tags: fieldTags } }, async (request) => {
    allowed(request, "view");
    const fields = await listFields(db());
    return { total: fields.length, rows: fields.map((field) => presentField(field)) };
  });

  app.get("/fields/:id", { schema: { tags: fieldTags, params: IdParams } }, async (request) => {
    allowed(request, "view");
    return presentField(await findField(db(), idParam(request), FIELD_MESSAGES.invalid));
  });

  app.post(
    "/fields",
    { schema: { tags: fieldTags, body: FieldBody }, config: may("create") },
    async (request) => {
      const caller = allowed(request, "create");
      const field = await createField(database, caller, bodyOf(request));
      return success(FIELD_MESSAGES.create, rawRow(fieldRow(field)));
    },
  );

  const updateFieldRoute = async (request: FastifyRequest) => {
    allowed(request, "edit");
    const field = await updateField(database, idParam(request), bodyOf(request));
    return success(FIELD_MESSAGES.update, rawRow(fieldRow(field)));
  };
  const fieldWrite = { schema: { tags: fieldTags, params: IdParams, body: FieldBody }, config: may("edit") };
  app.patch("/fields/:id", fieldWrite, updateFieldRoute);
  app.put("/fields/:id", fieldWrite, updateFieldRoute);

  app.delete(
    "/fields/:id",
    { schema: { tags: fieldTags, params: IdParams }, config: may("delete") },
    async (request) => {
      allowed(request, "delete");
      await deleteField(database, idParam(request));
      return success(FIELD_MESSAGES.delete);
    },
  );

  app.post(
    "/fields/:id/associate",
    { schema: { tags: fieldTags, params: IdParams, body: AssociateBody }, config: may("edit") },
    async (request) => {
      allowed(request, "edit");
      const fieldset = await associateField(database, idParam(request), bodyOf(request));
      return success(FIELDSET_MESSAGES.update, rawRow(fieldset));
    },
  );

  app.post(
    "/fields/:id/disassociate",
    { schema: { tags: fieldTags, params: IdParams, body: AssociateBody }, config: may("edit") },
    async (request) => {
      allowed(request, "edit");
      const fieldset = await disassociateField(database, idParam(request), bodyOf(request));
      return success(FIELDSET_MESSAGES.update, rawRow(fieldset));
    },
  );

  // Answers Laravel's sync result as it is, not in the envelope (as Snipe-IT does).
  app.post(
    "/fields/fieldsets/:id/order",
    { schema: { tags: fieldTags, params: IdParams, body: OrderBody }, config: may("edit") },
    async (request) => {
      allowed(request, "edit");
      return reorderFieldset(database, idParam(request), bodyOf(request));
    },
  );

  app.get("/fieldsets", { schema: { tags: fieldsetTags } }, async (request) => {
    allowed(request, "view");
    const rows = await fieldsetObjects(await listFieldsets(db()));
    return { total: rows.length, rows };
  });

  app.get("/fieldsets/:id", { schema: { tags: fieldsetTags, params: IdParams } }, async (request) => {
    allowed(request, "view");
    const fieldset = await findFieldset(db(), idParam(request), FIELDSET_MESSAGES.doesNotExist);
    return (await fieldsetObjects([fieldset]))[0];
  });

  app.post(
    "/fieldsets",
    { schema: { tags: fieldsetTags, body: FieldsetBody }, config: may("create") },
    async (request) => {
      const caller = allowed(request, "create");
      return success(
        FIELDSET_MESSAGES.create,
        rawRow(await createFieldset(database, caller, bodyOf(request))),
      );
    },
  );

  const updateFieldsetRoute = async (request: FastifyRequest) => {
    allowed(request, "edit");
    const fieldset = await updateFieldset(database, idParam(request), bodyOf(request));
    return success(FIELDSET_MESSAGES.update, rawRow(fieldset));
  };
  const fieldsetWrite = {
    schema: { tags: fieldsetTags, params: IdParams, body: FieldsetBody },
    config: may("edit"),
  };
  app.patch("/fieldsets/:id", fieldsetWrite, updateFieldsetRoute);
  app.put("/fieldsets/:id", fieldsetWrite, updateFieldsetRoute);

  app.delete(
    "/fieldsets/:id",
    { schema: { tags: fieldsetTags, params: IdParams }, config: may("delete") },
    async (request) => {
      allowed(request, "delete");
      await deleteFieldset(database, idParam(request));
      return success(FIELDSET_MESSAGES.delete);
    },
  );

  app.post(
    "/fieldsets/:id/fields",
    { schema: { tags: fieldsetTags, params: IdParams }, config: may("view") },
    async (request) => {
      allowed(request, "view");
      const fieldset = await findFieldset(db(), idParam(request));
      return presentFieldsetFields(await fieldsOf(fieldset.id));
    },
  );

  app.post(
    "/fieldsets/:id/fields/:model_id",
    { schema: { tags: fieldsetTags, params: ModelParams }, config: may("view") },
    async (request) => {
      allowed(request, "view");
      const fieldset = await findFieldset(db(), idParam(request));
      const modelId = idParam(request, "model_id");
      const defaults = Number.isSafeInteger(modelId) ? await modelDefaults(db(), modelId) : new Map();
      return presentFieldsWithDefaults(await fieldsOf(fieldset.id), defaults);
    },
  );
}
