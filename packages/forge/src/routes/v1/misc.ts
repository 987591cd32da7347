import { DEFAULT_ATTACHMENT_SETTINGS } from "../../services/attachment-files.ts";
import type { ApiContext } from "./context.ts";

// The version Gitea clients see; they gate features on it.
export const GITEA_VERSION = "1.25.4";

export function registerMisc({ app, paging, attachmentSettings }: ApiContext): void {
  app.get("/version", async () => ({ version: GITEA_VERSION }));
  app.get("/settings/api", async () => ({
    max_response_items: paging.maxLimit,
    default_paging_num: paging.defaultLimit,
    default_git_trees_per_page: 1000,
    default_max_blob_size: 10 * 1024 * 1024,
    default_max_response_size: 100 * 1024 * 1024,
  }));
  app.get("/settings/repository", async () => ({
    mirrors_disabled: true,
    http_git_disabled: false,
    migrations_disabled: true,
    stars_disabled: false,
    time_tracking_disabled: false,
    lfs_disabled: true,
  }));
  app.get("/settings/ui", async () => ({
    default_theme: "gitea-auto",
    allowed_reactions: ["+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"],
    custom_emojis: ["git", "gitea", "codeberg", "gitlab", "github", "gogs"],
  }));
  const attachments = attachmentSettings ?? DEFAULT_ATTACHMENT_SETTINGS;
  app.get("/settings/attachment", async () => ({
    enabled: attachments.enabled,
    allowed_types: attachments.allowedTypes,
    max_size: attachments.maxSize,
    max_files: attachments.maxFiles,
  }));
}
