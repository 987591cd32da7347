import { Type } from "typebox";

// Gitea's file option structs (modules/structs/repo_file.go).

const Identity = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
});

const CommitDateOptions = Type.Object({
  author: Type.Optional(Type.String()),
  committer: Type.Optional(Type.String()),
});

const FileOptions = {
  message: Type.Optional(Type.String()),
  branch: Type.Optional(Type.String()),
  new_branch: Type.Optional(Type.String()),
  author: Type.Optional(Identity),
  committer: Type.Optional(Identity),
  dates: Type.Optional(CommitDateOptions),
  signoff: Type.Optional(Type.Boolean()),
};

export const CreateFileOptions = Type.Object({ ...FileOptions, content: Type.String() });

export const UpdateFileOptions = Type.Object({
  ...FileOptions,
  content: Type.String(),
  sha: Type.String({ minLength: 1 }),
  from_path: Type.Optional(Type.String()),
});

export const DeleteFileOptions = Type.Object({ ...FileOptions, sha: Type.String({ minLength: 1 }) });

export const ChangeFileOperation = Type.Object({
  operation: Type.Union([
    Type.Literal("create"),
    Type.Literal("update"),
    Type.Literal("upload"),
    Type.Literal("rename"),
    Type.Literal("delete"),
  ]),
  path: Type.String({ minLength: 1 }),
  content: Type.Optional(Type.String()),
  from_path: Type.Optional(Type.String()),
  sha: Type.Optional(Type.String()),
});

export const ChangeFilesOptions = Type.Object({ ...FileOptions, files: Type.Array(ChangeFileOperation) });

export const FilePathParams = Type.Object({ owner: Type.String(), repo: Type.String(), "*": Type.String() });

export const RefQuery = Type.Object({ ref: Type.Optional(Type.String()) });

export const ContentsExtQuery = Type.Object({
  ref: Type.Optional(Type.String()),
  includes: Type.Optional(Type.String()),
});
