import { type AnyKysely, publicUrl } from "@anvil/core";
import bwipjs from "bwip-js";
import { PDFDocument, type PDFFont, type PDFPage, StandardFonts } from "pdf-lib";
import type { SettingsRow } from "../repositories/settings.ts";
import { inCallersCompany } from "./companies.ts";
import type { Caller } from "./permissions.ts";

// Asset labels (Snipe-IT 7's label engine, spec §7.1): a PDF with one label per asset, laid out on
// a template's sheet or tape, each with the asset's tag, its name and the codes the settings ask
// for. Codes come from bwip-js (Barcode Writer in Pure JavaScript), the PDF from pdf-lib.

/** A label template; lengths in millimetres, as Snipe-IT's templates give theirs. */
export interface LabelTemplate {
  name: string;
  page: { width: number; height: number };
  label: { width: number; height: number };
  columns: number;
  rows: number;
  /** Where the first label starts on the page. */
  margin: { top: number; left: number };
  /** Gaps between columns and between rows. */
  spacing: { column: number; row: number };
}

export const LABEL_TEMPLATES: readonly LabelTemplate[] = [
  {
    name: "Sheets/Avery/L7162",
    page: { width: 210, height: 297 },
    label: { width: 99.1, height: 33.9 },
    columns: 2,
    rows: 8,
    margin: { top: 15.15, left: 4.65 },
    spacing: { column: 2.5, row: 0 },
  },
  {
    name: "Sheets/Avery/_5160",
    page: { width: 215.9, height: 279.4 },
    label: { width: 66.675, height: 25.4 },
    columns: 3,
    rows: 10,
    margin: { top: 12.7, left: 4.7625 },
    spacing: { column: 3.175, row: 0 },
  },
  {
    name: "Tapes/Brother/TZe_24mm",
    page: { width: 70, height: 24 },
    label: { width: 70, height: 24 },
    columns: 1,
    rows: 1,
    margin: { top: 0, left: 0 },
    spacing: { column: 0, row: 0 },
  },
];

export const LABEL_NOT_FOUND = "Label does not exist";

/** The most assets one request may print. */
export const MAX_LABELS = 500;

/** Snipe-IT's names of the codes a label may carry, and bwip-js's names of them. */
export const TWO_D_TYPES: Readonly<Record<string, string>> = {
  QRCODE: "qrcode",
  DATAMATRIX: "datamatrix",
  PDF417: "pdf417",
};
export const ONE_D_TYPES: Readonly<Record<string, string>> = { C128: "code128", C39: "code39" };

/** A template as Snipe-IT's labels transformer describes it. */
export function presentTemplate(template: LabelTemplate) {
  const sheet = template.columns * template.rows > 1;
  return {
    name: template.name,
    unit: "mm",
    width: template.page.width,
    height: template.page.height,
    margin_top: template.margin.top,
    margin_bottom: 0,
    margin_left: template.margin.left,
    margin_right: 0,
    support_asset_tag: true,
    support_1d_barcode: true,
    support_2d_barcode: true,
    support_fields: false,
    support_logo: false,
    support_title: true,
    ...(sheet
      ? {
          sheet_info: {
            label_width: template.label.width,
            label_height: template.label.height,
            label_margin_top: 0,
            label_margin_bottom: 0,
            label_margin_left: 0,
            label_margin_right: 0,
            labels_per_page: template.columns * template.rows,
          },
          rectangle_sheet_info: {
            columns: template.columns,
            rows: template.rows,
            column_spacing: template.spacing.column,
            row_spacing: template.spacing.row,
          },
        }
      : {}),
  };
}

export function findTemplate(name: string): LabelTemplate | undefined {
  return LABEL_TEMPLATES.find((template) => template.name === name);
}

/** The codes the settings ask for: the label2 choice, or with "default" the older switches. */
export function labelCodes(settings: SettingsRow): { oneD?: string; twoD?: string } {
  const twoD =
    settings.label2_2d_type === "default"
      ? Number(settings.qr_code) === 1
        ? settings.barcode_type
        : "none"
      : settings.label2_2d_type;
  const oneD =
    settings.label2_1d_type === "default"
      ? Number(settings.alt_barcode_enabled) === 1
        ? settings.alt_barcode
        : "none"
      : settings.label2_1d_type;
  return { oneD: ONE_D_TYPES[oneD], twoD: TWO_D_TYPES[twoD] };
}

export interface LabelAsset {
  id: number;
  asset_tag: string;
  name: string | null;
  /** What the 2D code holds: the asset's page. */
  url: string;
}

/**
 * The undeleted assets the caller may see among those named (by tag or by id), in the order
 * named, each once; names that find nothing are left out, as Snipe-IT leaves them.
 */
export async function labelAssets(
  db: AnyKysely,
  caller: Caller,
  wanted: { column: "asset_tag" | "id"; values: readonly (string | number)[] },
): Promise<LabelAsset[]> {
  const select = db
    .selectFrom("assets")
    .select(["assets.id", "assets.asset_tag", "assets.name"])
    .where(`assets.${wanted.column}`, "in", [...new Set(wanted.values)])
    .where("assets.deleted_at", "is", null);
  const rows = (await inCallersCompany(select, caller, "assets").execute()) as {
    id: number;
    asset_tag: string;
    name: string | null;
  }[];
  const byKey = new Map(rows.map((row) => [String(row[wanted.column]), row]));
  const seen = new Set<number>();
  const found: LabelAsset[] = [];
  for (const value of wanted.values) {
    const row = byKey.get(String(value));
    if (!row || seen.has(row.id)) continue;
    seen.add(row.id);
    found.push({
      id: Number(row.id),
      asset_tag: row.asset_tag,
      name: row.name,
      url: publicUrl(caller.rootUrl, `hardware/${row.id}`).href,
    });
  }
  return found;
}

const POINTS_PER_MM = 72 / 25.4;
const PADDING = 1.5;

/** Text the standard font can draw: anything else becomes "?". */
function drawable(font: PDFFont, text: string): string {
  const known = new Set(font.getCharacterSet());
  return [...text].map((c) => (known.has(c.codePointAt(0) ?? 0) ? c : "?")).join("");
}

/** As much of `text` as fits in `width` points, with an ellipsis when cut. */
function fitted(font: PDFFont, text: string, size: number, width: number): string {
  if (font.widthOfTextAtSize(text, size) <= width) return text;
  let kept = text;
  while (kept.length > 0 && font.widthOfTextAtSize(`${kept}...`, size) > width) kept = kept.slice(0, -1);
  return `${kept}...`;
}

async function code(bcid: string, text: string): Promise<Buffer | undefined> {
  try {
    return await bwipjs.toBuffer({ bcid, text, scale: 3 });
  } catch {
    // A tag the symbology cannot hold (Code 39 has no lower case): the label goes without it.
    return undefined;
  }
}

interface Drawing {
  pdf: PDFDocument;
  page: PDFPage;
  regular: PDFFont;
  bold: PDFFont;
  codes: { oneD?: string; twoD?: string };
  title: string | null;
}

/** One label whose top-left corner is at (x, y) mm from the page's top-left. */
async function drawLabel(drawing: Drawing, template: LabelTemplate, asset: LabelAsset, x: number, y: number) {
  const { page, regular, bold, codes } = drawing;
  const pageHeight = template.page.height * POINTS_PER_MM;
  const left = (x + PADDING) * POINTS_PER_MM;
  const top = pageHeight - (y + PADDING) * POINTS_PER_MM;
  const height = (template.label.height - 2 * PADDING) * POINTS_PER_MM;
  let textLeft = left;
  const twoD = codes.twoD ? await code(codes.twoD, asset.url) : undefined;
  if (twoD) {
    const image = await drawing.pdf.embedPng(twoD);
    const side = height;
    const scale = Math.min(side / image.width, side / image.height);
    page.drawImage(image, {
      x: left,
      y: top - image.height * scale,
      width: image.width * scale,
      height: image.height * scale,
    });
    textLeft = left + side + PADDING * POINTS_PER_MM;
  }
  const width = (x + template.label.width - PADDING) * POINTS_PER_MM - textLeft;
  const size = Math.max(5, Math.min(10, height / 5));
  const lines: [PDFFont, string][] = [];
  if (drawing.title) lines.push([regular, drawing.title]);
  lines.push([bold, asset.asset_tag]);
  if (asset.name) lines.push([regular, asset.name]);
  let baseline = top - size;
  for (const [font, text] of lines) {
    page.drawText(fitted(font, drawable(font, text), size, width), { x: textLeft, y: baseline, size, font });
    baseline -= size * 1.25;
  }
  const oneD = codes.oneD ? await code(codes.oneD, asset.asset_tag) : undefined;
  const room = baseline + size - (top - height);
  if (oneD && room > 4) {
    const image = await drawing.pdf.embedPng(oneD);
    const scale = Math.min(width / image.width, room / image.height);
    page.drawImage(image, {
      x: textLeft,
      y: top - height,
      width: image.width * scale,
      height: image.height * scale,
    });
  }
}

/** The labels of `assets`, in order, on as many pages of the template as they take. */
export async function renderLabels(
  template: LabelTemplate,
  settings: SettingsRow,
  assets: readonly LabelAsset[],
): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle("Asset labels");
  pdf.setProducer("anvil inventory");
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const perPage = template.columns * template.rows;
  const codes = labelCodes(settings);
  let page: PDFPage | undefined;
  for (const [index, asset] of assets.entries()) {
    const slot = index % perPage;
    if (slot === 0)
      page = pdf.addPage([template.page.width * POINTS_PER_MM, template.page.height * POINTS_PER_MM]);
    if (!page) continue;
    const column = slot % template.columns;
    const row = Math.floor(slot / template.columns);
    const x = template.margin.left + column * (template.label.width + template.spacing.column);
    const y = template.margin.top + row * (template.label.height + template.spacing.row);
    await drawLabel(
      { pdf, page, regular, bold, codes, title: settings.label2_title ?? null },
      template,
      asset,
      x,
      y,
    );
  }
  return pdf.save();
}
