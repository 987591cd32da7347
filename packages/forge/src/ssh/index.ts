export type { SshClientKey } from "./client-auth.ts";
export type { GitRequest, GitService } from "./git-command.ts";
export type { GitAccess } from "./git-session.ts";
export type { KeyFamily } from "./key-blob.ts";
export {
  GITEA_MINIMUM_KEY_SIZES,
  type MinimumKeySizes,
  type ParsedPublicKey,
  parsePublicKey,
} from "./public-key.ts";
export { type SshServer, type SshServerOptions, startSshServer } from "./server.ts";
