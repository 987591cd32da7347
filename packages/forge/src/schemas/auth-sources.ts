import { Type } from "typebox";

// Bodies and answers of /admin/auths, which Gitea lacks (go-gitea/gitea#26417): the fields of
// Gitea's LDAP source under the names of `gitea admin auth add-ldap`'s flags, in snake_case.

const text = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }));
const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

const settings = {
  name: Type.Optional(Type.String({ maxLength: 255, description: "Authentication name, unique" })),
  is_active: flag("Whether users may sign in with it (default true)"),
  is_sync_enabled: flag("Include it in the periodic user synchronization (LDAP via bind DN only)"),
  security_protocol: Type.Optional(
    Type.String({ description: "Unencrypted, LDAPS or StartTLS (any case)", examples: ["StartTLS"] }),
  ),
  skip_tls_verify: flag("Accept any certificate from the server"),
  host: text("Host name or address of the LDAP server"),
  port: Type.Optional(Type.Integer({ description: "Port of the LDAP server" })),
  bind_dn: text("DN to bind as when searching (via bind DN); %s stands for the user's login"),
  bind_password: Type.Optional(
    Type.String({
      maxLength: 2048,
      description: "Password of the bind DN; stored encrypted, never answered",
    }),
  ),
  user_search_base: text("Base under which users are searched"),
  user_dn: text("The user's DN, %s standing for the login (simple auth)"),
  user_filter: text(
    "Filter a user must match, %s standing for the login, e.g. (&(objectClass=inetOrgPerson)(uid=%s))",
  ),
  admin_filter: text("Users matching it are site admins"),
  restricted_filter: text("Users matching it (and not the admin filter) are restricted"),
  allow_deactivate_all: flag("Let a synchronization that finds nobody deactivate every user of the source"),
  username_attribute: text("Attribute holding the user name (empty: the login as typed)"),
  firstname_attribute: text("Attribute holding the first name"),
  surname_attribute: text("Attribute holding the surname"),
  email_attribute: text("Attribute holding the e-mail address"),
  public_ssh_key_attribute: text("Attribute holding SSH public keys, one per value"),
  avatar_attribute: text("Kept for Gitea's flag; anvil keeps no avatars"),
  attributes_in_bind: flag("Read the attributes after binding as the user"),
  page_size: Type.Optional(
    Type.Integer({ description: "Search page size for synchronization (0: no paging)" }),
  ),
  skip_local_2fa: flag("Kept for Gitea's flag; anvil has no two-factor sign-in"),
  timeout: Type.Optional(
    Type.Integer({ description: "Seconds a sign-in may wait for the directory (1 to 60, default 5)" }),
  ),
};

export const CreateAuthSourceOption = Type.Object({
  type: Type.String({ description: "ldap (via bind DN) or ldap_simple (simple auth)", examples: ["ldap"] }),
  ...settings,
});

export const EditAuthSourceOption = Type.Object({
  type: Type.Optional(Type.String({ description: "When given, must be the source's own" })),
  ...settings,
});

export const TestAuthSourceOption = Type.Object({
  username: Type.Optional(
    Type.String({ maxLength: 255, description: "Sign this user in instead of listing users" }),
  ),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
});

export const AuthSourceParams = Type.Object({ id: Type.Integer() });

const answered = (description: string) => Type.String({ description });

export const AuthSource = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: answered("ldap or ldap_simple"),
  type_name: answered("Gitea's name of the type"),
  is_active: Type.Boolean(),
  is_sync_enabled: Type.Boolean(),
  host: Type.String(),
  port: Type.Integer(),
  security_protocol: Type.String(),
  skip_tls_verify: Type.Boolean(),
  bind_dn: Type.String(),
  bind_password_set: Type.Boolean({ description: "Whether a bind password is stored" }),
  user_search_base: Type.String(),
  user_dn: Type.String(),
  user_filter: Type.String(),
  admin_filter: Type.String(),
  restricted_filter: Type.String(),
  allow_deactivate_all: Type.Boolean(),
  username_attribute: Type.String(),
  firstname_attribute: Type.String(),
  surname_attribute: Type.String(),
  email_attribute: Type.String(),
  public_ssh_key_attribute: Type.String(),
  avatar_attribute: Type.String(),
  attributes_in_bind: Type.Boolean(),
  page_size: Type.Integer(),
  skip_local_2fa: Type.Boolean(),
  timeout: Type.Integer(),
  created: Type.String({ format: "date-time" }),
  updated: Type.String({ format: "date-time" }),
});

const DirectoryUser = Type.Object({
  dn: Type.String(),
  username: Type.String(),
  full_name: Type.String(),
  email: Type.String(),
  ssh_keys: Type.Integer({ description: "How many SSH keys the directory holds for them" }),
  is_admin: Type.Boolean(),
  is_restricted: Type.Boolean(),
});

export const AuthSourceTrial = Type.Object({
  ok: Type.Boolean(),
  users: Type.Array(DirectoryUser, {
    description: "The user signed in, or the first users the filter matches",
  }),
  error: Type.Optional(Type.String()),
  elapsed_ms: Type.Integer(),
});
