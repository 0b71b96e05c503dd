/**
 * Screenshots are scaled down to what the model takes in; the model's coordinates are mapped back to the screen.
 * Each model pixel stands for a block of screen pixels: a model coordinate goes to the middle of its block, and
 * every screen pixel of that block maps back to it, so a round trip is exact. Integer arithmetic only.
 */

export interface Size {
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** Claude's image limits: a long edge of at most 1568 px and about 1.15 megapixels (larger images are shrunk by the API). */
export const MODEL_IMAGE_LIMIT = { longEdge: 1568, pixels: 1_150_000 } as const;

/** The size the model sees the screen at: the screen itself when it fits, else shrunk keeping its aspect. */
export function modelSize(screen: Size, limit: { longEdge: number; pixels: number } = MODEL_IMAGE_LIMIT): Size {
  const factor = Math.min(1, limit.longEdge / Math.max(screen.width, screen.height), Math.sqrt(limit.pixels / (screen.width * screen.height)));
  if (factor >= 1) return { ...screen };
  return { width: Math.max(1, Math.floor(screen.width * factor)), height: Math.max(1, Math.floor(screen.height * factor)) };
}

function toScreenAxis(value: number, model: number, screen: number): number {
  return Math.floor(((2 * value + 1) * screen) / (2 * model));
}

// A screen pixel belongs to the model pixel whose block holds its centre.
function toModelAxis(value: number, model: number, screen: number): number {
  return Math.min(model - 1, Math.floor(((2 * value + 1) * model) / (2 * screen)));
}

/** The first screen pixel of model pixel `value`'s block (`value` = model: the screen's edge). */
function blockStart(value: number, model: number, screen: number): number {
  return Math.max(0, Math.ceil((2 * value * screen - model) / (2 * model)));
}

/** A model coordinate (inside the model's size) as a screen coordinate. */
export function toScreen(point: Point, screen: Size, model: Size): Point {
  return { x: toScreenAxis(point.x, model.width, screen.width), y: toScreenAxis(point.y, model.height, screen.height) };
}

/** A screen coordinate as the model's coordinate of the same place. */
export function toModel(point: Point, screen: Size, model: Size): Point {
  return { x: toModelAxis(point.x, model.width, screen.width), y: toModelAxis(point.y, model.height, screen.height) };
}

/** The screen rectangle a model rectangle [x0, y0, x1, y1] covers (both corners included). */
export function regionToScreen(region: readonly [number, number, number, number], screen: Size, model: Size): { x: number; y: number; width: number; height: number } {
  const x0 = blockStart(region[0], model.width, screen.width);
  const y0 = blockStart(region[1], model.height, screen.height);
  const x1 = Math.min(screen.width, blockStart(region[2] + 1, model.width, screen.width));
  const y1 = Math.min(screen.height, blockStart(region[3] + 1, model.height, screen.height));
  return { x: x0, y: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0) };
}
