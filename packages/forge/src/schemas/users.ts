import { INTEGER_COLUMN } from "@anvil/core";
import { Type } from "typebox";

// Request bodies named after Gitea's API structs (swagger definitions of the same name).

export const CreateUserOption = Type.Object({
  username: Type.String(),
  email: Type.String(),
  password: Type.Optional(Type.String()),
  full_name: Type.Optional(Type.String()),
  login_name: Type.Optional(Type.String()),
  source_id: Type.Optional(Type.Integer()),
  /** Ours (go-gitea/gitea#26417 asks for it): the authentication source by name, beside source_id. */
  source_name: Type.Optional(Type.String({ maxLength: 255 })),
  must_change_password: Type.Optional(Type.Boolean()),
  restricted: Type.Optional(Type.Boolean()),
  send_notify: Type.Optional(Type.Boolean()),
  visibility: Type.Optional(Type.String()),
  created_at: Type.Optional(Type.String()),
});

export const EditUserOption = Type.Object({
  source_id: Type.Integer(),
  login_name: Type.String(),
  email: Type.Optional(Type.String()),
  full_name: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  must_change_password: Type.Optional(Type.Boolean()),
  website: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
  admin: Type.Optional(Type.Boolean()),
  allow_git_hook: Type.Optional(Type.Boolean()),
  allow_import_local: Type.Optional(Type.Boolean()),
  allow_create_organization: Type.Optional(Type.Boolean()),
  max_repo_creation: Type.Optional(Type.Integer(INTEGER_COLUMN)),
  prohibit_login: Type.Optional(Type.Boolean()),
  restricted: Type.Optional(Type.Boolean()),
  visibility: Type.Optional(Type.String()),
});

export const CreateAccessTokenOption = Type.Object({
  name: Type.String(),
  scopes: Type.Optional(Type.Array(Type.String())),
});

export const UsernameParams = Type.Object({ username: Type.String() });
