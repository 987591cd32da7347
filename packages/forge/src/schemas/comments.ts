import { Type } from "typebox";

export const CommentParams = Type.Object({ owner: Type.String(), repo: Type.String(), id: Type.String() });

/** The deprecated Gogs path, whose index Gitea ignores. */
export const IssueCommentParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  index: Type.String(),
  id: Type.String(),
});

export const SubscriptionParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  index: Type.String(),
  user: Type.String(),
});

/** Gitea binds `body` as Required: missing and empty are both 422 (the service checks empty). */
export const CreateIssueCommentOption = Type.Object({ body: Type.String() });

export const EditIssueCommentOption = Type.Object({ body: Type.String() });

/** A missing content is Gitea's empty one, which no reaction allows. */
export const EditReactionOption = Type.Object({ content: Type.Optional(Type.String()) });

export const CommentListQuery = Type.Object({
  since: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
