import { Type } from "typebox";

export const CreateRepoOption = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  private: Type.Optional(Type.Boolean()),
  auto_init: Type.Optional(Type.Boolean()),
  default_branch: Type.Optional(Type.String()),
  template: Type.Optional(Type.Boolean()),
  gitignores: Type.Optional(Type.String()),
  license: Type.Optional(Type.String()),
  readme: Type.Optional(Type.String()),
  issue_labels: Type.Optional(Type.String()),
  trust_model: Type.Optional(Type.String()),
  object_format_name: Type.Optional(Type.Union([Type.Literal("sha1"), Type.Literal("")])),
});

export const EditRepoOption = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  website: Type.Optional(Type.String()),
  private: Type.Optional(Type.Boolean()),
  template: Type.Optional(Type.Boolean()),
  default_branch: Type.Optional(Type.String()),
  archived: Type.Optional(Type.Boolean()),
});

export const RepoParams = Type.Object({ owner: Type.String(), repo: Type.String() });

export const RepoUserParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  collaborator: Type.String(),
});

export const AddCollaboratorOption = Type.Object({
  permission: Type.Optional(Type.Union([Type.Literal("read"), Type.Literal("write"), Type.Literal("admin")])),
});

export const RepoTopicOptions = Type.Object({ topics: Type.Array(Type.String()) });

export const RepoSearchQuery = Type.Object({
  q: Type.Optional(Type.String()),
  topic: Type.Optional(Type.Boolean()),
  includeDesc: Type.Optional(Type.Boolean()),
  uid: Type.Optional(Type.Integer()),
  private: Type.Optional(Type.Boolean()),
  is_private: Type.Optional(Type.Boolean()),
  template: Type.Optional(Type.Boolean()),
  archived: Type.Optional(Type.Boolean()),
  mode: Type.Optional(Type.String()),
  exclusive: Type.Optional(Type.Boolean()),
  sort: Type.Optional(Type.String()),
  order: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
