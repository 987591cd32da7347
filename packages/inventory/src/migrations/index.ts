import type { NamedMigration } from "@anvil/core";
import { people } from "./0001_people.ts";
import { catalog } from "./0002_catalog.ts";
import { activity } from "./0003_activity.ts";
import { assets } from "./0004_assets.ts";
import { items } from "./0005_items.ts";
import { customFields } from "./0006_custom_fields.ts";
import { files } from "./0007_files.ts";
import { listIndexes } from "./0009_list_indexes.ts";
import { loginThrottle } from "./0010_login_throttle.ts";
import { activitySecrets } from "./0011_activity_secrets.ts";
import { maintenancesKits } from "./0012_maintenances_kits.ts";
import { settingsRequests } from "./0013_settings_requests.ts";
import { tokenScopes } from "./0015_token_scopes.ts";
import { webhooks } from "./0016_webhooks.ts";
import { importProgress } from "./0017_import_progress.ts";
import { assetSearch } from "./0018_asset_search.ts";
import { assetSortIndexes } from "./0019_asset_sort_indexes.ts";
import { webSessions } from "./0020_web_sessions.ts";

/** Every inventory migration, in order; each file is NNNN_name.ts. Later waves append theirs. */
export const migrations: readonly NamedMigration[] = [
  people,
  catalog,
  activity,
  assets,
  items,
  customFields,
  files,
  listIndexes,
  loginThrottle,
  activitySecrets,
  maintenancesKits,
  settingsRequests,
  tokenScopes,
  webhooks,
  importProgress,
  assetSearch,
  assetSortIndexes,
  webSessions,
];
