import type { Generated } from "kysely";

// The inventory's tables, as kysely sees them, named as Snipe-IT names them. Booleans come back as
// 1/0 on SQLite (readBool); timestamps as ISO text on SQLite and Date on PostgreSQL (readTime).

export type Bool = boolean | number;
export type Time = string | Date;
type Text = Generated<string | null>;
type Ref = Generated<number | null>;

/** Who made a row and when; deleted_at marks a soft delete. */
interface RecordColumns {
  created_by: Ref;
  created_at: Time;
  updated_at: Time;
  deleted_at: Generated<Time | null>;
}

export interface UserTable extends RecordColumns {
  id: Generated<number>;
  first_name: string;
  last_name: Text;
  username: string;
  /** scrypt hash (core/auth); empty when the user cannot sign in with a password. */
  password: Generated<string>;
  /** JSON object of permission -> "1" | "0" | "-1". */
  permissions: Generated<string>;
  email: Text;
  employee_num: Text;
  jobtitle: Text;
  phone: Text;
  website: Text;
  address: Text;
  city: Text;
  state: Text;
  country: Text;
  zip: Text;
  locale: Text;
  notes: Text;
  avatar: Text;
  vip: Generated<Bool>;
  remote: Generated<Bool>;
  ldap_import: Generated<Bool>;
  two_factor_enrolled: Generated<Bool>;
  two_factor_optin: Generated<Bool>;
  activated: Generated<Bool>;
  autoassign_licenses: Generated<Bool>;
  start_date: Text;
  end_date: Text;
  last_login: Generated<Time | null>;
  company_id: Ref;
  department_id: Ref;
  location_id: Ref;
  manager_id: Ref;
}

export interface PermissionGroupTable {
  id: Generated<number>;
  name: string;
  permissions: Generated<string>;
  notes: Text;
  created_by: Ref;
  created_at: Time;
  updated_at: Time;
}

export interface UserGroupTable {
  user_id: number;
  group_id: number;
}

export interface PersonalAccessTokenTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** SHA-256 (hex) of the secret, which is shown once and never stored. */
  token_hash: string;
  read_only: Generated<Bool>;
  /** JSON list of the permissions the token is limited to; NULL: all of its user's. */
  scopes: Generated<string | null>;
  created_at: Time;
  expires_at: Time;
  last_used_at: Generated<Time | null>;
}

export interface CompanyTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  phone: Text;
  fax: Text;
  email: Text;
  notes: Text;
  image: Text;
}

interface AddressColumns {
  address: Text;
  address2: Text;
  city: Text;
  state: Text;
  country: Text;
  zip: Text;
  phone: Text;
  fax: Text;
}

export interface LocationTable extends RecordColumns, AddressColumns {
  id: Generated<number>;
  name: string;
  parent_id: Ref;
  manager_id: Ref;
  company_id: Ref;
  currency: Text;
  ldap_ou: Text;
  notes: Text;
  image: Text;
}

export interface DepartmentTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  company_id: Ref;
  location_id: Ref;
  manager_id: Ref;
  phone: Text;
  fax: Text;
  notes: Text;
  image: Text;
}

export interface ManufacturerTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  url: Text;
  support_url: Text;
  warranty_lookup_url: Text;
  support_phone: Text;
  support_email: Text;
  notes: Text;
  image: Text;
}

export interface SupplierTable extends RecordColumns, AddressColumns {
  id: Generated<number>;
  name: string;
  email: Text;
  contact: Text;
  url: Text;
  notes: Text;
  image: Text;
}

export interface CategoryTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  /** asset, accessory, consumable, component or license. */
  category_type: string;
  eula_text: Text;
  use_default_eula: Generated<Bool>;
  require_acceptance: Generated<Bool>;
  checkin_email: Generated<Bool>;
  notes: Text;
  image: Text;
}

/** The type of a label is derived from the three flags, as Snipe-IT stores it. */
export interface StatusLabelTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  deployable: Generated<Bool>;
  pending: Generated<Bool>;
  archived: Generated<Bool>;
  color: Text;
  show_in_nav: Generated<Bool>;
  default_label: Generated<Bool>;
  notes: Text;
}

export interface DepreciationTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  months: number;
  depreciation_min: Generated<string | number | null>;
  depreciation_type: Generated<string>;
}

export interface CustomFieldsetTable {
  id: Generated<number>;
  name: string;
  created_by: Ref;
  created_at: Time;
  updated_at: Time;
}

export interface AssetModelTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  model_number: Text;
  manufacturer_id: Ref;
  category_id: number;
  depreciation_id: Ref;
  fieldset_id: Ref;
  /** End of life in months. */
  eol: Ref;
  min_amt: Ref;
  requestable: Generated<Bool>;
  notes: Text;
  image: Text;
}

/** An asset (spec §7); assigned_type is "user" | "location" | "asset" when assigned_to is set. */
export interface AssetTable extends RecordColumns {
  id: Generated<number>;
  name: Text;
  asset_tag: string;
  serial: Text;
  model_id: number;
  status_id: number;
  company_id: Ref;
  location_id: Ref;
  rtd_location_id: Ref;
  supplier_id: Ref;
  purchase_date: Text;
  purchase_cost: Generated<number | string | null>;
  order_number: Text;
  notes: Text;
  image: Text;
  warranty_months: Ref;
  asset_eol_date: Text;
  eol_explicit: Generated<Bool>;
  expected_checkin: Text;
  next_audit_date: Text;
  last_audit_date: Generated<Time | null>;
  last_checkout: Generated<Time | null>;
  last_checkin: Generated<Time | null>;
  requestable: Generated<Bool>;
  byod: Generated<Bool>;
  assigned_to: Ref;
  assigned_type: Text;
  checkout_counter: Generated<number>;
  checkin_counter: Generated<number>;
  requests_counter: Generated<number>;
}

export interface ActionLogTable {
  id: Generated<number>;
  created_by: Ref;
  action_type: string;
  item_type: Text;
  item_id: Ref;
  target_type: Text;
  target_id: Ref;
  note: Text;
  /** JSON of changed fields: {field: {old, new}}. */
  log_meta: Text;
  location_id: Ref;
  remote_ip: Text;
  user_agent: Text;
  action_source: Text;
  action_date: Time;
  created_at: Time;
  updated_at: Time;
  /** The stored file of an "uploaded" entry (a generated name under the data directory). */
  filename: Text;
}

export interface ApiThrottleTable {
  user_id: number;
  /** Start of the minute window, in minutes since the epoch. */
  window_start: number | string;
  hits: number;
}

/** What accessories, consumables and components share: counted stock (spec §15–§17). */
interface StockColumns extends RecordColumns {
  id: Generated<number>;
  name: string;
  category_id: Ref;
  company_id: Ref;
  location_id: Ref;
  manufacturer_id: Ref;
  supplier_id: Ref;
  qty: Generated<number>;
  min_amt: Ref;
  model_number: Text;
  order_number: Text;
  purchase_cost: Generated<string | number | null>;
  purchase_date: Text;
  notes: Text;
  image: Text;
}

export interface AccessoryTable extends StockColumns {
  requestable: Generated<Bool>;
}

export interface ConsumableTable extends StockColumns {
  item_no: Text;
  requestable: Generated<Bool>;
}

export interface ComponentTable extends StockColumns {
  serial: Text;
}

/** A check-out row: who wrote it and when. */
interface CheckoutColumns {
  id: Generated<number>;
  created_by: Ref;
  created_at: Time;
  updated_at: Time;
}

/** One unit of an accessory held by a user, location or asset (assigned_type). */
export interface AccessoryCheckoutTable extends CheckoutColumns {
  accessory_id: number;
  assigned_to: number;
  assigned_type: string;
  note: Text;
}

/** One unit of a consumable given to a user. */
export interface ConsumableUserTable extends CheckoutColumns {
  consumable_id: number;
  assigned_to: number;
  note: Text;
}

/** A quantity of a component installed in an asset. */
export interface ComponentAssetTable extends CheckoutColumns {
  component_id: number;
  asset_id: number;
  assigned_qty: number;
  note: Text;
}

export interface LicenseTable extends RecordColumns {
  id: Generated<number>;
  name: string;
  /** The product key. */
  serial: Text;
  seats: number;
  category_id: Ref;
  company_id: Ref;
  manufacturer_id: Ref;
  supplier_id: Ref;
  depreciation_id: Ref;
  license_name: Text;
  license_email: Text;
  purchase_cost: Generated<string | number | null>;
  purchase_date: Text;
  expiration_date: Text;
  termination_date: Text;
  order_number: Text;
  purchase_order: Text;
  reassignable: Generated<Bool>;
  maintained: Generated<Bool>;
  min_amt: Ref;
  notes: Text;
}

/** One seat of a license; free when neither a user nor an asset holds it. */
export interface LicenseSeatTable extends CheckoutColumns {
  license_id: number;
  assigned_to: Ref;
  asset_id: Ref;
  notes: Text;
}

/** A CSV file uploaded for import (spec §21); file_path is the generated name it is stored under. */
export interface ImportTable {
  id: Generated<number>;
  /** The client's file name, shown only. */
  name: string;
  file_path: string;
  filesize: number;
  import_type: Text;
  /** JSON arrays of the first two CSV records. */
  header_row: string;
  first_row: string;
  /** JSON object of CSV header -> field key, as the last processing used it. */
  field_map: Text;
  created_by: Ref;
  created_at: Time;
  updated_at: Time;
  /** null until processed; then processing, completed or failed (an error stopped it). */
  import_status: Text;
  /** Data records of the file, counted when it is uploaded. */
  rows_total: Ref;
  rows_processed: Generated<number>;
  rows_created: Generated<number>;
  rows_updated: Generated<number>;
  /** Rows of update mode whose record already held every value they give. */
  rows_unchanged: Generated<number>;
  rows_failed: Generated<number>;
  started_at: Generated<Time | null>;
  finished_at: Generated<Time | null>;
}

/** A row of an import that failed, and why; the first MAX_REPORTED_ROWS of each import. */
export interface ImportErrorTable {
  id: Generated<number>;
  import_id: number;
  /** The CSV line of the row, the header being line 1. */
  row_number: number;
  /** How the row names its record (item name, asset tag, username), when it does. */
  name: string | null;
  /** JSON object of field -> message. */
  messages: string;
}

/** Snipe-IT's one settings row (only the settings something here reads). */
export interface SettingsTable {
  id: Generated<number>;
  site_name: Generated<string>;
  default_currency: Generated<string>;
  label2_template: Generated<string>;
  label2_title: Text;
  label2_1d_type: Generated<string>;
  label2_2d_type: Generated<string>;
  qr_code: Generated<Bool>;
  barcode_type: Generated<string>;
  alt_barcode_enabled: Generated<Bool>;
  alt_barcode: Generated<string>;
  webhook_selected: Generated<string>;
  webhook_endpoint: Text;
  webhook_channel: Text;
  webhook_botname: Text;
  created_at: Time;
  updated_at: Time;
}

/** Work done on an asset (Snipe-IT's asset maintenance); asset_maintenance_time is in days. */
export interface AssetMaintenanceTable extends RecordColumns {
  id: Generated<number>;
  asset_id: number;
  supplier_id: Ref;
  asset_maintenance_type: string;
  title: string;
  is_warranty: Generated<Bool>;
  start_date: string;
  completion_date: Text;
  asset_maintenance_time: Ref;
  notes: Text;
  cost: Generated<number | string | null>;
}

/** A predefined kit: items checked out to a user together. */
export interface KitTable {
  id: Generated<number>;
  name: string;
  created_by: Ref;
  created_at: Time;
  updated_at: Time;
}

/** A web sign-in, successful or not (Snipe-IT's login_attempts). */
export interface LoginAttemptTable {
  id: Generated<number>;
  username: string;
  remote_ip: string | null;
  user_agent: string | null;
  successful: Bool;
  created_at: Time;
  updated_at: Time;
}

/** A user's request of a requestable asset; open while neither canceled nor fulfilled. */
export interface CheckoutRequestTable {
  id: Generated<number>;
  user_id: number;
  requestable_type: string;
  requestable_id: number;
  quantity: Generated<number>;
  canceled_at: Generated<Time | null>;
  fulfilled_at: Generated<Time | null>;
  created_at: Time;
  updated_at: Time;
}

/** A kit's pivot row: how many of one item the kit holds. */
interface KitItemColumns {
  id: Generated<number>;
  kit_id: number;
  quantity: Generated<number>;
  created_at: Time;
  updated_at: Time;
}

export interface KitModelTable extends KitItemColumns {
  model_id: number;
}
export interface KitLicenseTable extends KitItemColumns {
  license_id: number;
}
export interface KitAccessoryTable extends KitItemColumns {
  accessory_id: number;
}
export interface KitConsumableTable extends KitItemColumns {
  consumable_id: number;
}

/** Our generic webhook endpoints (spec §26). */
export interface WebhookTable {
  id: Generated<number>;
  name: string;
  url: string;
  secret: string;
  /** JSON list of event names. */
  events: string;
  active: Bool;
  created_by: number | null;
  created_at: Time;
  updated_at: Time;
}

export interface InventoryTables {
  users: UserTable;
  permission_groups: PermissionGroupTable;
  users_groups: UserGroupTable;
  personal_access_tokens: PersonalAccessTokenTable;
  companies: CompanyTable;
  locations: LocationTable;
  departments: DepartmentTable;
  manufacturers: ManufacturerTable;
  suppliers: SupplierTable;
  categories: CategoryTable;
  status_labels: StatusLabelTable;
  depreciations: DepreciationTable;
  custom_fieldsets: CustomFieldsetTable;
  models: AssetModelTable;
  assets: AssetTable;
  action_logs: ActionLogTable;
  api_throttle: ApiThrottleTable;
  accessories: AccessoryTable;
  accessories_checkout: AccessoryCheckoutTable;
  consumables: ConsumableTable;
  consumables_users: ConsumableUserTable;
  components: ComponentTable;
  components_assets: ComponentAssetTable;
  licenses: LicenseTable;
  license_seats: LicenseSeatTable;
  imports: ImportTable;
  import_errors: ImportErrorTable;
  settings: SettingsTable;
  login_attempts: LoginAttemptTable;
  checkout_requests: CheckoutRequestTable;
  asset_maintenances: AssetMaintenanceTable;
  kits: KitTable;
  kits_models: KitModelTable;
  kits_licenses: KitLicenseTable;
  kits_accessories: KitAccessoryTable;
  kits_consumables: KitConsumableTable;
  webhooks: WebhookTable;
}
