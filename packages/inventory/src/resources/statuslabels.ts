import { Invalid } from "@anvil/core";
import { bool, escaped } from "../convert/format.ts";
import type { AnySelect, Row } from "../repositories/records.ts";
import { type ResourceDefinition, refuseWhileUsed } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields } from "./common.ts";

const TYPE_REQUIRED = "Status label type is required.";

/** A label's type, derived from the flags Snipe-IT stores (spec §14). */
export function statusType(row: Row): "deployable" | "pending" | "archived" | "undeployable" {
  if (bool(row.pending as number)) return "pending";
  if (bool(row.archived as number)) return "archived";
  if (bool(row.deployable as number)) return "deployable";
  return "undeployable";
}

/** The flags of a type; an unknown type is undeployable (QUIRK kept). */
function flagsOf(type: string) {
  return { deployable: type === "deployable", pending: type === "pending", archived: type === "archived" };
}

const TYPES = new Set(["deployable", "pending", "archived", "undeployable"]);

/**
 * `status_type=<type>`: the labels whose three flags are exactly the type's, as Snipe-IT's scopes
 * match them; any other value filters nothing.
 */
function ofStatusType(select: AnySelect, query: Record<string, unknown>): AnySelect {
  const type = query.status_type;
  if (typeof type !== "string" || !TYPES.has(type)) return select;
  return Object.entries(flagsOf(type)).reduce(
    (narrowed, [flag, value]) => narrowed.where(`status_labels.${flag}`, "=", value),
    select,
  );
}

/** Status labels (spec §14). */
export const statuslabels: ResourceDefinition = {
  table: "status_labels",
  path: "statuslabels",
  permission: "statuslabels",
  itemType: "statuslabel",
  notFound: "Statuslabel not found",
  messages: {
    create: "Status label created successfully.",
    update: "Status label updated successfully.",
    delete: "Status label was deleted successfully.",
  },
  rules: {
    name: "required|string|max:255",
    type: "nullable|string",
    color: "nullable|string|max:10",
    show_in_nav: "boolean",
    default_label: "boolean",
    notes: "nullable|string|max:65535",
  },
  createRules: { type: "required|string" },
  customMessages: { "type.required": TYPE_REQUIRED },
  columns: ["name", "color", "show_in_nav", "default_label", "notes"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: ["id", "name", "created_at", "updated_at", "assets_count", "color", "notes", "default_label"],
    defaultSort: "created_at",
    search: ["name", "notes"],
    filters: { name: "text" },
    refine: ofStatusType,
  },
  relations: CREATED_BY,
  counts: ["assets_count"],
  prepare: async (_context, values, before) => {
    if (typeof values.type === "string") return flagsOf(values.type.toLowerCase());
    // Creating requires a type through the rules; an update without one gets the bare sentence.
    if (before) throw new Invalid(TYPE_REQUIRED);
    return {};
  },
  checkDelete: refuseWhileUsed(
    ["assets_count"],
    "This Status Label is currently associated with at least one Asset and cannot be deleted. Please update your assets to no longer reference this status and try again. ",
  ),
  present: (row, context) => ({
    id: row.id,
    name: escaped(row.name as string),
    type: statusType(row),
    color: escaped(row.color as string | null),
    show_in_nav: bool(row.show_in_nav as number),
    default_label: bool(row.default_label as number),
    assets_count: context.counts.assets_count,
    notes: escaped(row.notes as string | null),
    ...recordFields(row, context),
    available_actions: {
      ...actions(context, "statuslabels"),
      delete: actions(context, "statuslabels").delete && !context.counts.assets_count,
    },
  }),
};
