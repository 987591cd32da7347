import { accessories } from "../resources/accessories.ts";
import { categories } from "../resources/categories.ts";
import { companies } from "../resources/companies.ts";
import { components } from "../resources/components.ts";
import { consumables } from "../resources/consumables.ts";
import { departments } from "../resources/departments.ts";
import { depreciations } from "../resources/depreciations.ts";
import { groups } from "../resources/groups.ts";
import { kits } from "../resources/kits.ts";
import { licenses } from "../resources/licenses.ts";
import { locations } from "../resources/locations.ts";
import { MAINTENANCE_TYPES, maintenances } from "../resources/maintenances.ts";
import { manufacturers } from "../resources/manufacturers.ts";
import { models } from "../resources/models.ts";
import { statuslabels } from "../resources/statuslabels.ts";
import { suppliers } from "../resources/suppliers.ts";
import { users } from "../resources/users.ts";
import type { ResourceDefinition } from "../services/resource.ts";

// What a resource's pages need beyond its API definition (resources/*.ts): where they live, their
// titles, the list's columns in Snipe-IT's words, and the few form fields the rules alone do not
// describe. Everything else (who may do what, the form's inputs, sorting, searching, validation,
// the messages) comes from the definition, through routes/resources.ts.

/** A column of the list and a line of the detail page: a key of the API's object and its title. */
export interface PageColumn {
  key: string;
  title: string;
}

export interface ResourcePage {
  definition: ResourceDefinition;
  /** Where the pages live (Snipe-IT's URL), without the trailing slash. */
  url: string;
  title: string;
  /** One row's kind, in "Create New …" and the delete confirmation. */
  singular: string;
  columns: readonly PageColumn[];
  /** Form fields besides the definition's stored columns (a status label's type). */
  extraFields?: readonly string[];
  /** Fields of fixed choices, as value and label. */
  choices?: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>>;
  /** The category type whose categories the Category field offers. */
  categoryType?: string;
  /** The key of the API's object that names a row (its page's heading, its link in the list): `name` unless given. */
  nameKey?: string;
  /** What a new row's form starts with where an empty field is not the usual choice. */
  createDefaults?: Readonly<Record<string, unknown>>;
  /** Labels of this resource's fields where they differ from FIELD_LABELS. */
  labels?: Readonly<Record<string, string>>;
  /** The list page's own section above its table (views/resources/NAME.eta), for what differs. */
  listSection?: string;
  /** The detail page's own section (views/resources/NAME.eta), for what differs. */
  detailSection?: string;
  /** The form's own section (routes/form-sections.ts, views/resources/NAME.eta), for what differs. */
  formSection?: string;
}

const NAME: PageColumn = { key: "name", title: "Name" };
const col = (key: string, title: string): PageColumn => ({ key, title });
const NOTES = col("notes", "Notes");
const ADDRESS = [
  col("address", "Address"),
  col("city", "City"),
  col("state", "State"),
  col("country", "Country"),
];
const STOCK = [
  col("category", "Category"),
  col("company", "Company"),
  col("location", "Location"),
  col("manufacturer", "Manufacturer"),
  col("supplier", "Supplier"),
  col("model_number", "Model No."),
  col("order_number", "Order Number"),
  col("purchase_date", "Purchase Date"),
  col("purchase_cost", "Purchase Cost"),
  col("qty", "Total"),
  col("min_amt", "Min. QTY"),
];

export const RESOURCE_PAGES: readonly ResourcePage[] = [
  {
    definition: models,
    url: "/models",
    title: "Asset Models",
    singular: "Asset Model",
    columns: [
      NAME,
      col("manufacturer", "Manufacturer"),
      col("model_number", "Model No."),
      col("category", "Category"),
      col("assets_count", "Assets"),
      col("depreciation", "Depreciation"),
      col("eol", "EOL"),
      col("min_amt", "Min. QTY"),
      col("requestable", "Requestable"),
      col("fieldset", "Fieldset"),
      NOTES,
    ],
    categoryType: "asset",
  },
  {
    definition: categories,
    url: "/categories",
    title: "Categories",
    singular: "Category",
    columns: [
      NAME,
      col("category_type", "Type"),
      col("item_count", "Quantity"),
      col("has_eula", "EULA"),
      col("require_acceptance", "Acceptance"),
      col("checkin_email", "Send Email"),
      NOTES,
    ],
    choices: {
      category_type: [
        ["asset", "Asset"],
        ["accessory", "Accessory"],
        ["consumable", "Consumable"],
        ["component", "Component"],
        ["license", "License"],
      ],
    },
  },
  {
    definition: manufacturers,
    url: "/manufacturers",
    title: "Manufacturers",
    singular: "Manufacturer",
    columns: [
      NAME,
      col("url", "URL"),
      col("support_url", "Support URL"),
      col("support_phone", "Support Phone"),
      col("support_email", "Support Email"),
      col("assets_count", "Assets"),
      col("licenses_count", "Licenses"),
      col("consumables_count", "Consumables"),
      col("accessories_count", "Accessories"),
      col("components_count", "Components"),
    ],
  },
  {
    definition: suppliers,
    url: "/suppliers",
    title: "Suppliers",
    singular: "Supplier",
    columns: [
      NAME,
      ...ADDRESS,
      col("contact", "Contact Name"),
      col("email", "Email"),
      col("phone", "Phone"),
      col("url", "URL"),
      col("assets_count", "Assets"),
      col("licenses_count", "Licenses"),
      col("accessories_count", "Accessories"),
      col("consumables_count", "Consumables"),
      col("components_count", "Components"),
    ],
  },
  {
    definition: locations,
    url: "/locations",
    title: "Locations",
    singular: "Location",
    columns: [
      NAME,
      col("parent", "Parent"),
      col("company", "Company"),
      col("assets_count", "Assets"),
      col("assigned_assets_count", "Assigned"),
      col("users_count", "Users"),
      ...ADDRESS,
      col("zip", "Zip"),
      col("phone", "Phone"),
      col("currency", "Currency"),
    ],
    listSection: "location-tree",
    detailSection: "location-children",
  },
  {
    definition: companies,
    url: "/companies",
    title: "Companies",
    singular: "Company",
    columns: [
      NAME,
      col("phone", "Phone"),
      col("fax", "Fax"),
      col("email", "Email"),
      col("users_count", "Users"),
      col("assets_count", "Assets"),
      col("licenses_count", "Licenses"),
      col("accessories_count", "Accessories"),
      col("consumables_count", "Consumables"),
      col("components_count", "Components"),
      NOTES,
    ],
  },
  {
    definition: departments,
    url: "/departments",
    title: "Departments",
    singular: "Department",
    columns: [
      NAME,
      col("company", "Company"),
      col("manager", "Manager"),
      col("users_count", "Users"),
      col("location", "Location"),
      col("phone", "Phone"),
      col("fax", "Fax"),
      NOTES,
    ],
  },
  {
    definition: statuslabels,
    url: "/statuslabels",
    title: "Status Labels",
    singular: "Status Label",
    columns: [
      NAME,
      col("type", "Status Type"),
      col("assets_count", "Assets"),
      col("color", "Chart Color"),
      col("show_in_nav", "Show in side nav"),
      col("default_label", "Default Label"),
      NOTES,
    ],
    extraFields: ["type"],
    choices: {
      type: [
        ["deployable", "Deployable"],
        ["pending", "Pending"],
        ["undeployable", "Undeployable"],
        ["archived", "Archived"],
      ],
    },
  },
  {
    definition: depreciations,
    url: "/depreciations",
    title: "Depreciations",
    singular: "Depreciation",
    columns: [
      NAME,
      col("months", "Term"),
      col("depreciation_min", "Minimum Value"),
      col("assets_count", "Assets"),
      col("models_count", "Asset Models"),
      col("licenses_count", "Licenses"),
    ],
    choices: {
      depreciation_type: [
        ["amount", "Amount"],
        ["percent", "Percent"],
      ],
    },
  },
  {
    definition: groups,
    url: "/admin/groups",
    title: "Groups",
    singular: "Group",
    columns: [NAME, col("users_count", "Users"), NOTES, col("created_at", "Created At")],
    formSection: "group-permissions",
    detailSection: "group-members",
  },
  {
    definition: users,
    url: "/users",
    title: "Users",
    singular: "User",
    columns: [
      NAME,
      col("username", "Username"),
      col("email", "Email"),
      col("jobtitle", "Title"),
      col("employee_num", "Employee No."),
      col("company", "Company"),
      col("department", "Department"),
      col("location", "Location"),
      col("manager", "Manager"),
      col("assets_count", "Assets"),
      col("licenses_count", "Licenses"),
      col("consumables_count", "Consumables"),
      col("accessories_count", "Accessories"),
      col("activated", "Login Enabled"),
    ],
    detailSection: "user-holdings",
    formSection: "user-access",
    // A new user may sign in, as Snipe-IT's form starts.
    createDefaults: { activated: true },
  },
  {
    definition: licenses,
    url: "/licenses",
    title: "Licenses",
    singular: "License",
    columns: [
      NAME,
      col("product_key", "Product Key"),
      col("expiration_date", "Expiration Date"),
      col("license_email", "Licensed to Email"),
      col("license_name", "Licensed to Name"),
      col("manufacturer", "Manufacturer"),
      col("category", "Category"),
      col("seats", "Total"),
      col("free_seats_count", "Avail"),
      col("company", "Company"),
      col("supplier", "Supplier"),
      col("purchase_date", "Purchase Date"),
      col("purchase_cost", "Purchase Cost"),
    ],
    categoryType: "license",
    labels: { serial: "Product Key" },
    detailSection: "license-seats",
  },
  {
    definition: accessories,
    url: "/accessories",
    title: "Accessories",
    singular: "Accessory",
    columns: [NAME, ...STOCK, col("remaining_qty", "Avail"), col("checkouts_count", "Checked Out")],
    categoryType: "accessory",
    detailSection: "accessory-checkouts",
  },
  {
    definition: consumables,
    url: "/consumables",
    title: "Consumables",
    singular: "Consumable",
    columns: [NAME, col("item_no", "Item No."), ...STOCK, col("remaining", "Remaining")],
    categoryType: "consumable",
    detailSection: "consumable-users",
  },
  {
    definition: components,
    url: "/components",
    title: "Components",
    singular: "Component",
    columns: [NAME, col("serial", "Serial"), ...STOCK, col("remaining", "Remaining")],
    categoryType: "component",
    detailSection: "component-assets",
  },
  {
    definition: maintenances,
    url: "/maintenances",
    title: "Asset Maintenances",
    singular: "Asset Maintenance",
    nameKey: "title",
    columns: [
      col("title", "Title"),
      col("asset", "Asset"),
      col("asset_maintenance_type", "Asset Maintenance Type"),
      col("start_date", "Start Date"),
      col("completion_date", "Completion Date"),
      col("asset_maintenance_time", "Asset Maintenance Time (in days)"),
      col("supplier", "Supplier"),
      col("cost", "Cost"),
      col("is_warranty", "Warranty"),
      NOTES,
    ],
    labels: {
      asset_id: "Asset",
      is_warranty: "Warranty Improvement",
      asset_maintenance_type: "Asset Maintenance Type",
    },
    choices: { asset_maintenance_type: MAINTENANCE_TYPES.map((type) => [type, type] as const) },
  },
  {
    definition: kits,
    url: "/kits",
    title: "Predefined Kits",
    singular: "Predefined Kit",
    columns: [NAME],
  },
];

/** The page of a resource by its definition's path, for the pages that link to it. */
export const PAGE_OF_PATH: ReadonlyMap<string, ResourcePage> = new Map(
  RESOURCE_PAGES.map((page) => [page.definition.path, page]),
);

/**
 * The labels of the forms' fields in Snipe-IT's words, by field name, for every resource; a field
 * not here is labelled from its name ("model_number" → "Model Number").
 */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  company_id: "Company",
  location_id: "Location",
  manager_id: "Manager",
  department_id: "Department",
  parent_id: "Parent",
  category_id: "Category",
  manufacturer_id: "Manufacturer",
  supplier_id: "Supplier",
  depreciation_id: "Depreciation",
  fieldset_id: "Fieldset",
  email: "Email",
  url: "URL",
  support_url: "Support URL",
  warranty_lookup_url: "Warranty Lookup URL",
  ldap_ou: "LDAP OU",
  contact: "Contact Name",
  model_number: "Model No.",
  eol: "EOL",
  min_amt: "Min. QTY",
  months: "Number of Months",
  depreciation_min: "Minimum Value",
  depreciation_type: "Depreciation Type",
  category_type: "Type",
  eula_text: "EULA",
  use_default_eula: "Use default EULA",
  require_acceptance: "Require users to confirm acceptance",
  checkin_email: "Send email to user on checkin/checkout",
  type: "Status Type",
  color: "Chart Color",
  show_in_nav: "Show in side nav",
  default_label: "Default Label",
  serial: "Serial",
  license_name: "Licensed to Name",
  license_email: "Licensed to Email",
  purchase_order: "Purchase Order Number",
  qty: "Quantity",
  item_no: "Item No.",
  jobtitle: "Title",
  employee_num: "Employee Number",
  locale: "Language",
  activated: "This user can login",
  vip: "VIP user",
  remote: "Remote user",
  autoassign_licenses: "Auto-assign licenses",
  password: "Password",
  password_confirmation: "Confirm Password",
};
