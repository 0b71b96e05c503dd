import { describe, expect, it } from "vitest";
import { MODEL_IMAGE_LIMIT, modelSize, regionToScreen, toModel, toScreen } from "../../src/computer/scaling.js";

const SIZES = [
  [640, 480], [800, 600], [1024, 768], [1280, 800], [1366, 768], [1440, 900], [1568, 700], [1600, 1200], [1920, 1080],
  [2560, 1440], [2560, 1600], [3000, 2000], [3440, 1440], [3840, 2160], [5120, 2880], [1080, 1920], [333, 4001], [7, 9000],
] as const;

describe("screen scaling", () => {
  it("keeps screens that fit and shrinks the others within the limits, keeping the aspect", () => {
    expect(modelSize({ width: 1280, height: 800 })).toEqual({ width: 1280, height: 800 });
    for (const [width, height] of SIZES) {
      const model = modelSize({ width, height });
      expect(Math.max(model.width, model.height)).toBeLessThanOrEqual(MODEL_IMAGE_LIMIT.longEdge);
      expect(model.width * model.height).toBeLessThanOrEqual(MODEL_IMAGE_LIMIT.pixels);
      expect(model.width).toBeLessThanOrEqual(width);
      expect(Math.abs(model.width / model.height - width / height)).toBeLessThan(0.02 * (width / height) + 1 / model.height);
    }
  });

  it("maps every model coordinate to the screen and back exactly, inside the screen", () => {
    for (const [width, height] of [...SIZES, ...Array.from({ length: 40 }, (_, i) => [320 + i * 137, 200 + ((i * 89) % 2900)] as const)]) {
      const screen = { width, height };
      const model = modelSize(screen);
      for (let x = 0; x < model.width; x++) {
        const s = toScreen({ x, y: 0 }, screen, model);
        expect(s.x).toBeGreaterThanOrEqual(0);
        expect(s.x).toBeLessThan(width);
        expect(toModel(s, screen, model).x).toBe(x);
      }
      for (let y = 0; y < model.height; y++) {
        const s = toScreen({ x: 0, y }, screen, model);
        expect(s.y).toBeLessThan(height);
        expect(toModel(s, screen, model).y).toBe(y);
      }
    }
  });

  it("maps every screen pixel to the model pixel whose block holds it", () => {
    const screen = { width: 2560, height: 1600 };
    const model = modelSize(screen);
    for (let x = 0; x < screen.width; x++) {
      const m = toModel({ x, y: 0 }, screen, model).x;
      const back = toScreen({ x: m, y: 0 }, screen, model).x;
      expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.ceil(screen.width / model.width));
    }
  });

  it("turns a model region into the screen rectangle it covers", () => {
    const screen = { width: 2560, height: 1600 };
    const model = modelSize(screen);
    const whole = regionToScreen([0, 0, model.width - 1, model.height - 1], screen, model);
    expect(whole).toEqual({ x: 0, y: 0, width: 2560, height: 1600 });
    const small = regionToScreen([10, 10, 10, 10], screen, model);
    expect(small.width).toBeGreaterThanOrEqual(1);
    expect(toModel(small, screen, model)).toEqual({ x: 10, y: 10 });
  });
});
