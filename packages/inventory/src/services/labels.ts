import { deflateSync } from "node:zlib";
import { type AnyKysely, publicUrl } from "@anvil/core";
import { PDFDocument, type PDFFont, type PDFPage, StandardFonts } from "pdf-lib";
import type { SettingsRow } from "../repositories/settings.ts";
import { inCallersCompany } from "./companies.ts";
import { barCode, type Code, matrixCode, ONE_D_TYPES, TWO_D_TYPES } from "./label-codes.ts";
import type { Caller } from "./permissions.ts";

// Asset labels (Snipe-IT 7's label engine, spec §7.1): a PDF with one label per asset, laid out on
// a template's sheet or tape, each with the asset's tag, its name and the codes the settings ask
// for (services/label-codes.ts). The PDF comes from pdf-lib.

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
  return {
    oneD: (ONE_D_TYPES as readonly string[]).includes(oneD) ? oneD : undefined,
    twoD: (TWO_D_TYPES as readonly string[]).includes(twoD) ? twoD : undefined,
  };
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

/** A number as a content stream writes it: two decimals are finer than any printer. */
const n = (value: number) => (Math.round(value * 100) / 100).toString();

/**
 * A code's dark modules as rectangles of a content stream ("x y w h re"), its top-left corner at
 * (left, top), a module `width` × `height` points. Written as text: thousands of rectangles a page
 * are too many for pdf-lib's operator objects.
 */
function codeRectangles(
  code: Code,
  at: { left: number; top: number; width: number; height: number },
): string {
  return code.dark
    .map(
      (module) =>
        `${n(at.left + module.x * at.width)} ${n(at.top - (module.y + module.height) * at.height)} ${n(module.width * at.width)} ${n(module.height * at.height)} re\n`,
    )
    .join("");
}

/** Adds the page's codes as one black-filled, deflated content stream. */
function drawCodes(pdf: PDFDocument, page: PDFPage, rectangles: string[]) {
  if (rectangles.length === 0) return;
  const content = deflateSync(`q 0 0 0 rg\n${rectangles.join("")}f Q\n`);
  page.node.addContentStream(pdf.context.register(pdf.context.stream(content, { Filter: "FlateDecode" })));
}

interface Drawing {
  page: PDFPage;
  /** The page's code rectangles so far. */
  codes: string[];
  regular: PDFFont;
  bold: PDFFont;
  symbologies: { oneD?: string; twoD?: string };
  title: string | null;
}

/** One label whose top-left corner is at (x, y) mm from the page's top-left. */
function drawLabel(drawing: Drawing, template: LabelTemplate, asset: LabelAsset, x: number, y: number) {
  const { page, regular, bold, symbologies, codes } = drawing;
  const pageHeight = template.page.height * POINTS_PER_MM;
  const left = (x + PADDING) * POINTS_PER_MM;
  const top = pageHeight - (y + PADDING) * POINTS_PER_MM;
  const height = (template.label.height - 2 * PADDING) * POINTS_PER_MM;
  let textLeft = left;
  const twoD = symbologies.twoD ? matrixCode(symbologies.twoD, asset.url) : undefined;
  if (twoD) {
    const side = height / Math.max(twoD.width, twoD.height);
    codes.push(codeRectangles(twoD, { left, top, width: side, height: side }));
    textLeft = left + height + PADDING * POINTS_PER_MM;
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
  const oneD = symbologies.oneD ? barCode(symbologies.oneD, asset.asset_tag) : undefined;
  const room = baseline + size - (top - height);
  if (oneD && room > 4) {
    // As wide as the text, as high as the room left below it.
    codes.push(
      codeRectangles(oneD, {
        left: textLeft,
        top: top - height + room,
        width: width / oneD.width,
        height: room,
      }),
    );
  }
}

/** The labels of `assets` on the template the settings choose (POST /hardware/labels, the asset page). */
export function labelsPdf(settings: SettingsRow, assets: readonly LabelAsset[]): Promise<Uint8Array> {
  return renderLabels(findTemplate(settings.label2_template) ?? LABEL_TEMPLATES[0], settings, assets);
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
  const symbologies = labelCodes(settings);
  const title = settings.label2_title ?? null;
  let drawing: Drawing | undefined;
  for (const [index, asset] of assets.entries()) {
    const slot = index % perPage;
    if (slot === 0 || !drawing) {
      if (drawing) drawCodes(pdf, drawing.page, drawing.codes);
      const page = pdf.addPage([template.page.width * POINTS_PER_MM, template.page.height * POINTS_PER_MM]);
      drawing = { page, codes: [], regular, bold, symbologies, title };
    }
    const column = slot % template.columns;
    const row = Math.floor(slot / template.columns);
    const x = template.margin.left + column * (template.label.width + template.spacing.column);
    const y = template.margin.top + row * (template.label.height + template.spacing.row);
    // A long run of labels lets other requests in now and then.
    if (index > 0 && index % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
    drawLabel(drawing, template, asset, x, y);
  }
  if (drawing) drawCodes(pdf, drawing.page, drawing.codes);
  return pdf.save({ objectsPerTick: 20 });
}
