import { readBool } from "@anvil/core";
import type { LabelRow } from "../repositories/labels.ts";
import { link } from "./link.ts";

/** Where a label is shown: the owner's name, and the repository's when shown on one. */
export interface LabelPlace {
  rootUrl: URL;
  owner: string;
  repository?: string;
}

/**
 * A label as Gitea shows it: the colour as six hex digits without '#', and the URL of the
 * repository's label or, for an organization's label, of the organization's.
 */
export function toApiLabel(label: LabelRow, place: LabelPlace) {
  const path =
    label.repo_id !== null && place.repository !== undefined
      ? `api/v1/repos/${place.owner}/${place.repository}/labels/${label.id}`
      : `api/v1/orgs/${place.owner}/labels/${label.id}`;
  return {
    id: label.id,
    name: label.name,
    exclusive: readBool(label.exclusive),
    is_archived: label.archived_at !== null,
    color: label.color,
    description: label.description,
    url: link(place.rootUrl, path),
  };
}

export type ApiLabel = ReturnType<typeof toApiLabel>;
