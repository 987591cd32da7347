import { Type } from "typebox";

export const IssueParams = Type.Object({ owner: Type.String(), repo: Type.String(), index: Type.String() });

export const CreateIssueOption = Type.Object({
  title: Type.String(),
  body: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String()),
  assignee: Type.Optional(Type.String()),
  assignees: Type.Optional(Type.Array(Type.String())),
  labels: Type.Optional(Type.Array(Type.Integer())),
  milestone: Type.Optional(Type.Integer()),
  closed: Type.Optional(Type.Boolean()),
  due_date: Type.Optional(Type.String()),
});

export const EditIssueOption = Type.Object({
  title: Type.Optional(Type.String()),
  body: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String()),
  assignee: Type.Optional(Type.String()),
  assignees: Type.Optional(Type.Array(Type.String())),
  milestone: Type.Optional(Type.Integer()),
  state: Type.Optional(Type.String()),
  due_date: Type.Optional(Type.String()),
  unset_due_date: Type.Optional(Type.Boolean()),
});

/** Label ids, or label names (Gitea takes either, not both). */
export const IssueLabelsOption = Type.Object({
  labels: Type.Optional(Type.Array(Type.Union([Type.Integer(), Type.String()]))),
});

export const EditDeadlineOption = Type.Object({ due_date: Type.String() });

export const LockIssueOption = Type.Object({ lock_reason: Type.Optional(Type.String()) });

export const IssueListQuery = Type.Object({
  state: Type.Optional(Type.String()),
  labels: Type.Optional(Type.String()),
  milestones: Type.Optional(Type.String()),
  q: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  since: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
  created_by: Type.Optional(Type.String()),
  assigned_by: Type.Optional(Type.String()),
  mentioned_by: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export const IssueSearchQuery = Type.Object({
  state: Type.Optional(Type.String()),
  labels: Type.Optional(Type.String()),
  milestones: Type.Optional(Type.String()),
  q: Type.Optional(Type.String()),
  priority_repo_id: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  since: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
  assigned: Type.Optional(Type.String()),
  created: Type.Optional(Type.String()),
  mentioned: Type.Optional(Type.String()),
  review_requested: Type.Optional(Type.String()),
  reviewed: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  team: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
