import { readBool } from "@anvil/core";
import type { MilestoneRow } from "../repositories/milestones.ts";
import { apiTime } from "./time.ts";

/** A milestone as Gitea shows it: open issues are the counted ones less the closed ones. */
export function toApiMilestone(milestone: MilestoneRow) {
  const closed = readBool(milestone.is_closed);
  return {
    id: milestone.id,
    title: milestone.name,
    description: milestone.description,
    state: closed ? "closed" : "open",
    open_issues: milestone.num_issues - milestone.num_closed_issues,
    closed_issues: milestone.num_closed_issues,
    created_at: apiTime(milestone.created_at),
    updated_at: apiTime(milestone.updated_at),
    closed_at: closed && milestone.closed_at !== null ? apiTime(milestone.closed_at) : null,
    due_on: milestone.due_on === null ? null : apiTime(milestone.due_on),
  };
}

export type ApiMilestone = ReturnType<typeof toApiMilestone>;
