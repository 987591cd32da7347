import type { Row } from "../repositories/records.ts";
import { type FieldsetField, flag, formatName } from "../services/custom-fields.ts";
import { datetime, escaped } from "./format.ts";

// Snipe-IT's custom field and fieldset transformers (spec §20): rows → the field object, the
// fieldset object, and the raw rows that writes answer with.

/** A field's options as the API lists them, one per line of field_values. */
function optionList(field: Row): string[] | null {
  const values = field.field_values as string | null;
  return values ? (escaped(values) ?? "").split(/\r\n|\r|\n/) : null;
}

/** The field object; `required` is the fieldset's, false when the field is read on its own. */
export function presentField(field: Row, required = false): Record<string, unknown> {
  return {
    id: Number(field.id),
    name: escaped(field.name as string),
    db_column_name: escaped(field.db_column as string),
    format: escaped(formatName(field.format)),
    field_values: field.field_values ? escaped(field.field_values as string) : null,
    field_values_array: optionList(field),
    type: escaped(field.element as string),
    required,
    display_in_user_view: flag(field, "display_in_user_view"),
    auto_add_to_fieldsets: flag(field, "auto_add_to_fieldsets"),
    show_in_listview: flag(field, "show_in_listview"),
    display_checkin: flag(field, "display_checkin"),
    display_checkout: flag(field, "display_checkout"),
    display_audit: flag(field, "display_audit"),
    created_at: datetime(field.created_at as string | Date),
    updated_at: datetime(field.updated_at as string | Date),
  };
}

/** `{total, rows}` of a fieldset's fields, each with the fieldset's `required`. */
export function presentFieldsetFields(fields: readonly FieldsetField[]) {
  return { total: fields.length, rows: fields.map(({ field, required }) => presentField(field, required)) };
}

/** The fieldset object: its fields in order and the models that use it. */
export function presentFieldset(
  fieldset: Row,
  fields: readonly FieldsetField[],
  models: readonly { id: number; name: string }[],
): Record<string, unknown> {
  return {
    id: Number(fieldset.id),
    name: escaped(fieldset.name as string),
    fields: presentFieldsetFields(fields),
    models: {
      total: models.length,
      rows: models.map((model) => ({ id: model.id, name: escaped(model.name) })),
    },
    created_at: datetime(fieldset.created_at as string | Date),
    updated_at: datetime(fieldset.updated_at as string | Date),
  };
}

/** A fieldset's fields with one model's default values (the model form's `fields/{model_id}`). */
export function presentFieldsWithDefaults(
  fields: readonly FieldsetField[],
  defaults: ReadonlyMap<number, string>,
) {
  return {
    total: fields.length,
    rows: fields.map(({ field, required }) => ({
      id: Number(field.id),
      name: escaped(field.name as string),
      type: escaped(field.element as string),
      field_values_array: optionList(field),
      required,
      default_value: defaults.get(Number(field.id)) ?? null,
    })),
  };
}

/** The stored field as a write answers it, its format by name as Snipe-IT's accessor gives it. */
export function fieldRow(field: Row): Row {
  return { ...field, format: formatName(field.format) };
}
