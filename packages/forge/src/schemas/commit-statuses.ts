import { Type } from "typebox";

// Request bodies and queries of the commit status routes, named after Gitea's API structs.

export const CreateStatusOption = Type.Object({
  state: Type.String(),
  target_url: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  context: Type.Optional(Type.String()),
});

export const StatusListQuery = Type.Object({
  sort: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
