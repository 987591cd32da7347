import { Type } from "typebox";

// Request bodies and queries of the label and milestone routes, named after Gitea's API structs.

export const CreateLabelOption = Type.Object({
  name: Type.String(),
  color: Type.String(),
  description: Type.Optional(Type.String()),
  exclusive: Type.Optional(Type.Boolean()),
  is_archived: Type.Optional(Type.Boolean()),
});

export const EditLabelOption = Type.Partial(CreateLabelOption);

export const LabelListQuery = Type.Object({
  sort: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export const CreateMilestoneOption = Type.Object({
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  due_on: Type.Optional(Type.String({ format: "date-time" })),
  state: Type.Optional(Type.String()),
});

export const EditMilestoneOption = CreateMilestoneOption;

export const MilestoneListQuery = Type.Object({
  state: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export const RepoItemParams = Type.Object({ owner: Type.String(), repo: Type.String(), id: Type.String() });
export const OrgItemParams = Type.Object({ org: Type.String(), id: Type.String() });
