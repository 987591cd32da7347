import { Type } from "typebox";

export const CreateReleaseOption = Type.Object({
  tag_name: Type.String(),
  target_commitish: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  body: Type.Optional(Type.String()),
  draft: Type.Optional(Type.Boolean()),
  prerelease: Type.Optional(Type.Boolean()),
  tag_message: Type.Optional(Type.String()),
});

export const EditReleaseOption = Type.Object({
  tag_name: Type.Optional(Type.String()),
  target_commitish: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  body: Type.Optional(Type.String()),
  draft: Type.Optional(Type.Boolean()),
  prerelease: Type.Optional(Type.Boolean()),
});

export const EditAttachmentOptions = Type.Object({ name: Type.Optional(Type.String()) });

export const ReleaseListQuery = Type.Object({
  draft: Type.Optional(Type.Boolean()),
  "pre-release": Type.Optional(Type.Boolean()),
  page: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export const ReleaseTagParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  tag: Type.String(),
});

export const ReleaseAssetParams = Type.Object({
  owner: Type.String(),
  repo: Type.String(),
  id: Type.String(),
  attachment_id: Type.String(),
});

export const UploadQuery = Type.Object({ name: Type.Optional(Type.String()) });
