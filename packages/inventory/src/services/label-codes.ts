import bwipjs from "bwip-js";
import QRCode from "qrcode";

// The codes on asset labels, as rectangles (one unit per module, y downwards) that the PDF fills
// directly: QR codes from `qrcode`, Data Matrix and the 1D symbologies from bwip-js. Vector codes
// stay sharp at any printer resolution and cost no image encoding per label.

export const TWO_D_TYPES = ["QRCODE", "DATAMATRIX"] as const;
export const ONE_D_TYPES = ["C128", "C39"] as const;

const BWIP_NAMES: Readonly<Record<string, string>> = {
  DATAMATRIX: "datamatrix",
  C128: "code128",
  C39: "code39",
};

/** A dark area, in modules from the code's top-left corner. */
export interface Module {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A code: its size in modules and its dark areas. */
export interface Code {
  width: number;
  height: number;
  dark: Module[];
}

/** The dark runs of each row, one rectangle per run rather than per module. */
function runs(width: number, height: number, dark: (x: number, y: number) => boolean): Module[] {
  const found: Module[] = [];
  for (let y = 0; y < height; y++) {
    let x = 0;
    while (x < width) {
      if (!dark(x, y)) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && dark(x, y)) x++;
      found.push({ x: start, y, width: x - start, height: 1 });
    }
  }
  return found;
}

/** The 2D code of `text`, or undefined when the symbology cannot hold it. */
export function matrixCode(type: string, text: string): Code | undefined {
  try {
    if (type === "QRCODE") {
      const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
      return {
        width: modules.size,
        height: modules.size,
        dark: runs(modules.size, modules.size, (x, y) => Boolean(modules.get(y, x))),
      };
    }
    const [symbol] = bwipjs.raw(BWIP_NAMES[type], text, "") as {
      pixs: number[];
      pixx: number;
      pixy: number;
    }[];
    return {
      width: symbol.pixx,
      height: symbol.pixy,
      dark: runs(symbol.pixx, symbol.pixy, (x, y) => symbol.pixs[y * symbol.pixx + x] === 1),
    };
  } catch {
    return undefined;
  }
}

/** The barcode of `text`, one module high, or undefined when the symbology cannot hold it (Code 39 has no lower case). */
export function barCode(type: string, text: string): Code | undefined {
  try {
    const [symbol] = bwipjs.raw(BWIP_NAMES[type], text, "") as { sbs: number[] }[];
    const dark: Module[] = [];
    let x = 0;
    symbol.sbs.forEach((width, index) => {
      // Bars and spaces alternate, a bar first.
      if (index % 2 === 0) dark.push({ x, y: 0, width, height: 1 });
      x += width;
    });
    return { width: x, height: 1, dark };
  } catch {
    return undefined;
  }
}
