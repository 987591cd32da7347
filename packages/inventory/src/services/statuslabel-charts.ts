import type { AnyKysely } from "@anvil/core";
import { escaped } from "../convert/format.ts";
import { assetCountsPerLabel } from "../repositories/asset-lists.ts";
import { undeletedLabels } from "../repositories/status-labels.ts";
import { statusType } from "../resources/statuslabels.ts";
import { inCallersCompany } from "./companies.ts";
import type { Caller } from "./permissions.ts";

// The dashboard's pie charts of assets by status label and by status type (Snipe-IT's
// /statuslabels/assets/name and /assets/type): Chart.js data, one slice per label or type.

/** Slice colours after a label's own (Snipe-IT's chart palette is its own; this one is ours). */
const PALETTE = [
  "#2C7BB6",
  "#D7191C",
  "#1A9641",
  "#FDAE61",
  "#7B3294",
  "#008837",
  "#E66101",
  "#5E3C99",
  "#4DAC26",
  "#CA0020",
  "#0571B0",
  "#A6611A",
];

const TYPE_SLICES = [
  ["rtd", "Ready to Deploy"],
  ["deployed", "Deployed"],
  ["archived", "Archived"],
  ["pending", "Pending"],
  ["undeployable", "Undeployable"],
] as const;

const COUNT = new Intl.NumberFormat("en-US");

/** A slice of a chart: its label, its count and its colour (the label's own, else the palette's next). */
export interface Slice {
  label: string;
  count: number;
  color: string;
}

/** Our colour for slices without one of their own, in slice order. */
function coloured(slices: { label: string; count: number; color?: string | null }[]): Slice[] {
  let next = 0;
  return slices.map((slice) => ({ ...slice, color: slice.color || PALETTE[next++ % PALETTE.length] }));
}

function chart(slices: Slice[]) {
  const colors = slices.map((slice) => slice.color);
  return {
    labels: slices.map((slice) => `${slice.label} (${COUNT.format(slice.count)})`),
    datasets: [
      { data: slices.map((slice) => slice.count), backgroundColor: colors, hoverBackgroundColor: colors },
    ],
  };
}

/** Undeleted assets the caller may see, counted per label and per whether they are checked out. */
function assetCounts(db: AnyKysely, caller: Caller) {
  return assetCountsPerLabel(db, (select) => inCallersCompany(select, caller, "assets"));
}

/**
 * One slice per label holding assets the caller may see, in the label's colour when it has one;
 * the label's name as stored (the dashboard page escapes it where it prints it).
 */
export async function labelSlices(db: AnyKysely, caller: Caller): Promise<Slice[]> {
  const [counts, all] = await Promise.all([assetCounts(db, caller), undeletedLabels(db)]);
  const perLabel = new Map<number, number>();
  for (const count of counts) perLabel.set(count.statusId, (perLabel.get(count.statusId) ?? 0) + count.count);
  return coloured(
    all
      .filter((label) => (perLabel.get(label.id) ?? 0) > 0)
      .map((label) => ({
        label: label.name as string,
        count: perLabel.get(label.id) ?? 0,
        color: label.color as string | null,
      })),
  );
}

/** Chart.js data of one slice per label holding assets (Snipe-IT's, whose names are HTML-escaped). */
export async function assetsByLabel(db: AnyKysely, caller: Caller) {
  const slices = await labelSlices(db, caller);
  return chart(slices.map((slice) => ({ ...slice, label: escaped(slice.label) ?? "" })));
}

/** One slice per status type: checked out is Deployed, else the type of the asset's label. */
export async function assetsByType(db: AnyKysely, caller: Caller) {
  const [counts, all] = await Promise.all([assetCounts(db, caller), undeletedLabels(db)]);
  const typeOf = new Map(all.map((label) => [label.id, statusType(label)]));
  const totals: Record<string, number> = { rtd: 0, deployed: 0, archived: 0, pending: 0, undeployable: 0 };
  for (const count of counts) {
    const type = typeOf.get(count.statusId) ?? "undeployable";
    const slice = count.assigned ? "deployed" : type === "deployable" ? "rtd" : type;
    totals[slice] += count.count;
  }
  return chart(coloured(TYPE_SLICES.map(([key, label]) => ({ label, count: totals[key] }))));
}
