import { Type } from "typebox";

export const PullParams = Type.Object({ owner: Type.String(), repo: Type.String(), index: Type.String() });
/** GET /pulls/{base}/{head}: the base is in the place of the index, the head may hold slashes. */
export const PullBaseHeadParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  index: Type.String(),
  "*": Type.String(),
});
export const ReviewParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  index: Type.String(),
  id: Type.String(),
});

export const CreatePullRequestOption = Type.Object({
  head: Type.String(),
  base: Type.String(),
  title: Type.Optional(Type.String()),
  body: Type.Optional(Type.String()),
  assignee: Type.Optional(Type.String()),
  assignees: Type.Optional(Type.Array(Type.String())),
  labels: Type.Optional(Type.Array(Type.Integer())),
  milestone: Type.Optional(Type.Integer()),
  due_date: Type.Optional(Type.String()),
  reviewers: Type.Optional(Type.Array(Type.String())),
  team_reviewers: Type.Optional(Type.Array(Type.String())),
});

export const EditPullRequestOption = Type.Object({
  title: Type.Optional(Type.String()),
  body: Type.Optional(Type.String()),
  base: Type.Optional(Type.String()),
  assignee: Type.Optional(Type.String()),
  assignees: Type.Optional(Type.Array(Type.String())),
  milestone: Type.Optional(Type.Integer()),
  labels: Type.Optional(Type.Array(Type.Integer())),
  state: Type.Optional(Type.String()),
  due_date: Type.Optional(Type.String()),
  unset_due_date: Type.Optional(Type.Boolean()),
  allow_maintainer_edit: Type.Optional(Type.Boolean()),
});

export const MergePullRequestOption = Type.Object({
  Do: Type.Union([
    Type.Literal("merge"),
    Type.Literal("rebase"),
    Type.Literal("rebase-merge"),
    Type.Literal("squash"),
    Type.Literal("fast-forward-only"),
    Type.Literal("manually-merged"),
  ]),
  MergeTitleField: Type.Optional(Type.String()),
  MergeMessageField: Type.Optional(Type.String()),
  MergeCommitID: Type.Optional(Type.String()),
  delete_branch_after_merge: Type.Optional(Type.Boolean()),
  head_commit_id: Type.Optional(Type.String()),
  force_merge: Type.Optional(Type.Boolean()),
  merge_when_checks_succeed: Type.Optional(Type.Boolean()),
});

export const PullListQuery = Type.Object({
  state: Type.Optional(Type.String()),
  sort: Type.Optional(Type.String()),
  labels: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  milestone: Type.Optional(Type.String()),
  poster: Type.Optional(Type.String()),
  base_branch: Type.Optional(Type.String()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export const CreatePullReviewOptions = Type.Object({
  body: Type.Optional(Type.String()),
  event: Type.Optional(Type.String()),
  commit_id: Type.Optional(Type.String()),
  comments: Type.Optional(
    Type.Array(
      Type.Object({
        path: Type.Optional(Type.String()),
        body: Type.Optional(Type.String()),
        new_position: Type.Optional(Type.Integer({ minimum: 0 })),
        old_position: Type.Optional(Type.Integer({ minimum: 0 })),
      }),
    ),
  ),
});

export const SubmitPullReviewOptions = Type.Object({
  body: Type.Optional(Type.String()),
  event: Type.Optional(Type.String()),
});

export const DismissPullReviewOptions = Type.Object({
  message: Type.Optional(Type.String()),
  priors: Type.Optional(Type.Boolean()),
});

export const PullReviewRequestOptions = Type.Object({
  reviewers: Type.Optional(Type.Array(Type.String())),
  team_reviewers: Type.Optional(Type.Array(Type.String())),
});

/** GET /pulls/{index}/commits: paging and Gitea's `verification` and `files` flags. */
export const PullCommitsQuery = Type.Object({
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  verification: Type.Optional(Type.String()),
  files: Type.Optional(Type.String()),
  stat: Type.Optional(Type.String()),
});
