import { datetime, escaped } from "../convert/format.ts";
import { imageUrl } from "../services/images.ts";
import { type ResourceDefinition, refuseWhileUsed } from "../services/resource.ts";
import { actions, CREATED_BY, recordFields, texts } from "./common.ts";

const COUNTS = [
  "assets_count",
  "licenses_count",
  "consumables_count",
  "accessories_count",
  "components_count",
] as const;
// Snipe-IT's `starts_with` list for manufacturer links.
const LINK = "nullable|string|max:255|url";

/** Manufacturers (spec §10): soft-deleted, restorable, listed deleted with `deleted=true`. */
export const manufacturers: ResourceDefinition = {
  table: "manufacturers",
  path: "manufacturers",
  permission: "manufacturers",
  itemType: "manufacturer",
  notFound: "Manufacturer not found",
  messages: {
    create: "Manufacturer created successfully.",
    update: "Manufacturer updated successfully.",
    delete: "Manufacturer was deleted successfully.",
  },
  restore: {
    success: "Manufacturer restored successfully.",
    notDeleted: "Manufacturer was not deleted and therefore cannot be restored.",
    messageInPayload: "always",
  },
  rules: {
    name: "required|string|min:2|max:255",
    url: LINK,
    support_url: LINK,
    warranty_lookup_url: LINK,
    support_phone: "nullable|string|max:255",
    support_email: "nullable|email|max:255",
    notes: "nullable|string|max:65535",
  },
  customMessages: {
    "url.url": "The url must start with http://, https://, afp://, facetime://, file://, irc://.",
    "support_url.url":
      "The support url must start with http://, https://, afp://, facetime://, file://, irc://.",
  },
  columns: ["name", "url", "support_url", "warranty_lookup_url", "support_phone", "support_email", "notes"],
  softDeletes: true,
  unique: { field: "name", message: "The name has already been taken." },
  list: {
    sorts: [
      "id",
      "name",
      "url",
      "support_url",
      "support_email",
      "warranty_lookup_url",
      "support_phone",
      "created_at",
      "updated_at",
      "deleted_at",
      ...COUNTS,
    ],
    defaultSort: "created_at",
    search: ["name", "url", "support_url", "warranty_lookup_url", "support_phone", "support_email"],
    filters: {
      name: "text",
      url: "text",
      support_url: "text",
      warranty_lookup_url: "text",
      support_phone: "text",
      support_email: "text",
    },
    trashed: (query) => (query.deleted === "true" ? "only" : "without"),
  },
  relations: CREATED_BY,
  counts: COUNTS,
  checkDelete: refuseWhileUsed(
    COUNTS,
    "This manufacturer is currently associated with at least one model and cannot be deleted. Please update your models to no longer reference this manufacturer and try again. ",
  ),
  present: (row, context) => {
    const may = actions(context, "manufacturers", { restore: "delete" });
    const deleted = row.deleted_at !== null;
    return {
      id: row.id,
      name: escaped(row.name as string),
      ...texts(row, ["url", "support_url", "warranty_lookup_url", "support_phone", "support_email"]),
      image: imageUrl(context.caller, "manufacturers", row.image),
      ...context.counts,
      notes: escaped(row.notes as string | null),
      ...recordFields(row, context),
      deleted_at: datetime(row.deleted_at as string | null),
      available_actions: {
        update: may.update && !deleted,
        restore: may.restore && deleted,
        delete: may.delete && !deleted && COUNTS.every((count) => !context.counts[count]),
      },
    };
  },
};
