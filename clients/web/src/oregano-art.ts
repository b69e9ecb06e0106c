// Oregano drawn in SVG: resource cards and gold as icons, shop tiles (their kind's colour and
// glyph, their level, their owner's colour), and a player's area, a 4×4 grid whose cells the
// player clicks to build, level up, sell, take resources or place an acquired shop.

import { OreganoResource, OreganoShop } from "@mercado/client";
import { type BadgePart, badge } from "./board.js";
import { type Child, icon, s } from "./dom.js";
import { LEVELS, levelOf, ROWS, SHOPS, shopName } from "./oregano-words.js";

const RESOURCE_COLOURS: Readonly<Record<OreganoResource, string>> = {
  [OreganoResource.UNSPECIFIED]: "#999",
  [OreganoResource.WOOD]: "#9a6432",
  [OreganoResource.STONE]: "#8c959e",
  [OreganoResource.METAL]: "#5d86a8",
};

/** A resource card's icon in a box of `size` centred on (x, y): a log, a rock or an ingot. */
export function resourceIcon(resource: OreganoResource, x: number, y: number, size: number): SVGElement {
  const colour = RESOURCE_COLOURS[resource];
  const shapes: Child[] = [];
  switch (resource) {
    case OreganoResource.WOOD:
      shapes.push(
        s("rect", { x: -9, y: -5, width: 16, height: 10, rx: 3, fill: colour }),
        s("ellipse", { cx: 7, cy: 0, rx: 3, ry: 5, fill: "#d9a66b", stroke: colour, "stroke-width": 1 }),
        s("path", { d: "M-6 -2 L3 -2 M-4 2 L4 2", stroke: "#6e4320", "stroke-width": 1, fill: "none" }),
      );
      break;
    case OreganoResource.STONE:
      shapes.push(
        s("path", { d: "M-9 5 L-7 -3 L-2 -7 L5 -6 L9 0 L7 6 Z", fill: colour }),
        s("path", { d: "M-2 -7 L0 -1 L7 6 M0 -1 L-7 -3", stroke: "#6a737b", "stroke-width": 1, fill: "none" }),
      );
      break;
    case OreganoResource.METAL:
      shapes.push(
        s("path", { d: "M-9 5 L-5 -4 L5 -4 L9 5 Z", fill: colour }),
        s("path", { d: "M-5 -4 L-3 -1 L3 -1 L5 -4", fill: "#a9c4da" }),
      );
      break;
    default:
      shapes.push(s("circle", { r: 7, fill: colour }));
  }
  return s("g", { transform: `translate(${x} ${y}) scale(${size / 20})`, class: "resource-icon" }, shapes);
}

/** A gold coin in a box of `size` centred on (x, y). */
export function goldIcon(x: number, y: number, size: number): SVGElement {
  return s(
    "g",
    { transform: `translate(${x} ${y}) scale(${size / 20})`, class: "gold-icon" },
    s("circle", { r: 9, fill: "#e9b308", stroke: "#a87c06", "stroke-width": 1.2 }),
    s("circle", { r: 5.8, fill: "none", stroke: "#fbe08a", "stroke-width": 1.2 }),
  );
}

/** Standalone icons for HTML: a resource's or gold's, `size` px. */
export const resourceBadge = (resource: OreganoResource, size = 18): SVGElement => icon(size, resourceIcon(resource, 0, 0, size));
export const goldBadge = (size = 18): SVGElement => icon(size, goldIcon(0, 0, size));

/** A shop kind's glyph, white, in a box of 20 centred on (0, 0). */
function glyph(kind: OreganoShop): Child[] {
  const ink = { fill: "#fff" };
  const line = { stroke: "#fff", "stroke-width": 2, fill: "none", "stroke-linecap": "round" as const };
  switch (kind) {
    case OreganoShop.LUMBER_MERCHANT:
      return [s("circle", { r: 9.5, ...ink }), resourceIcon(OreganoResource.WOOD, 0, 0, 17)];
    case OreganoShop.STONE_MERCHANT:
      return [s("circle", { r: 9.5, ...ink }), resourceIcon(OreganoResource.STONE, 0, 0, 17)];
    case OreganoShop.METAL_MERCHANT:
      return [s("circle", { r: 9.5, ...ink }), resourceIcon(OreganoResource.METAL, 0, 0, 17)];
    case OreganoShop.CAFE: // a cup
      return [s("path", { d: "M-7 -3 L5 -3 L4 6 Q-1 9 -6 6 Z", ...ink }), s("path", { d: "M5 -1 Q10 0 5 4", ...line }), s("path", { d: "M-3 -9 Q-1 -7 -3 -5 M1 -9 Q3 -7 1 -5", ...line, "stroke-width": 1.3 })];
    case OreganoShop.GENERAL_STORE: // a basket
      return [s("path", { d: "M-9 -2 L9 -2 L6 8 L-6 8 Z", ...ink }), s("path", { d: "M-5 -2 Q0 -11 5 -2", ...line })];
    case OreganoShop.CLOTHING_STORE: // a shirt
      return [s("path", { d: "M-4 -8 L-9 -5 L-7 0 L-5 -1 L-5 8 L5 8 L5 -1 L7 0 L9 -5 L4 -8 Q0 -4 -4 -8 Z", ...ink })];
    case OreganoShop.RESTAURANT: // a fork and a knife
      return [s("path", { d: "M-5 -8 L-5 8 M-8 -8 L-8 -3 Q-5 0 -2 -3 L-2 -8", ...line }), s("path", { d: "M5 8 L5 -8 Q9 -4 7 2 L5 2", ...line })];
    case OreganoShop.FOUNTAIN: // a basin and its jet
      return [s("path", { d: "M-9 3 L9 3 L6 8 L-6 8 Z", ...ink }), s("path", { d: "M0 3 L0 -6 M0 -6 Q-5 -8 -7 0 M0 -6 Q5 -8 7 0", ...line, "stroke-width": 1.6 })];
    case OreganoShop.JEWELER: // a gem
      return [s("path", { d: "M-8 -3 L-4 -8 L4 -8 L8 -3 L0 8 Z", ...ink }), s("path", { d: "M-8 -3 L8 -3 M-4 -8 L0 8 L4 -8", stroke: kindColour(kind), "stroke-width": 1, fill: "none" })];
    case OreganoShop.CASINO: // a die
      return [
        s("rect", { x: -8, y: -8, width: 16, height: 16, rx: 3, ...ink }),
        ...[
          [-4, -4],
          [4, 4],
          [0, 0],
          [4, -4],
          [-4, 4],
        ].map(([cx, cy]) => s("circle", { cx, cy, r: 1.6, fill: kindColour(kind) })),
      ];
    case OreganoShop.BUILDER: // a hammer
      return [s("path", { d: "M-6 8 L3 -1", ...line, "stroke-width": 3 }), s("path", { d: "M-1 -5 L5 -9 L9 -5 L5 -1 Z", ...ink })];
    default:
      return [s("circle", { r: 6, ...ink })];
  }
}

const kindColour = (kind: OreganoShop): string => SHOPS[kind]?.colour ?? "#888";

/**
 * A shop tile in a box of `size` at (x, y): its kind's colour and glyph, its short name, its level
 * as pips, and the owner's colour as its frame.
 */
export function shopTile(kind: OreganoShop, level: number, owner: string | undefined, x: number, y: number, size: number): SVGElement {
  const info = SHOPS[kind];
  const k = size / 64;
  const pips = info?.group === "special" ? [] : Array.from({ length: level }, (_, i) => s("circle", { cx: 32 + (i - (level - 1) / 2) * 9, cy: 55, r: 3, fill: "#fff" }));
  return s(
    "g",
    { transform: `translate(${x} ${y}) scale(${k})`, class: `shop-tile group-${info?.group ?? "none"}` },
    s("title", {}, `${shopName(kind)}${info?.group === "special" ? "" : `, level ${level}`}`),
    s("rect", { x: 2, y: 2, width: 60, height: 60, rx: info?.group === "special" ? 16 : 9, fill: kindColour(kind), stroke: owner ?? "rgb(0 0 0 / 0.25)", "stroke-width": owner ? 4 : 1.5 }),
    s("rect", { x: 5, y: 5, width: 54, height: 22, rx: 7, fill: "#fff", opacity: 0.14 }),
    s("g", { transform: "translate(32 22) scale(1.1)" }, glyph(kind)),
    s("text", { x: 32, y: 45, class: "tile-name" }, info?.short ?? "?"),
    pips,
  );
}

// --- A player's area ---------------------------------------------------------------------------

const CELL = 72;
const GAP = 6;
const LABEL = 20;
export const AREA_SIZE = LABEL + 4 * (CELL + GAP);

/** What a cell offers: a place to put a shop (target), a shop to pick or act on, or the picked shop. */
export interface CellMark {
  kind: "target" | "pick" | "selected";
  badge?: readonly BadgePart[];
  title: string;
  onClick: () => void;
}

export interface AreaInput {
  seat: number;
  colour: string;
  shops: readonly { cell: string; shop: OreganoShop }[];
  marks: ReadonlyMap<string, CellMark>;
  /** The cells of the last move, in its mover's colour. */
  recent: ReadonlyMap<string, string>;
  label: string;
}

const cellBox = (cell: string): [number, number] => [LABEL + (levelOf(cell) - 1) * (CELL + GAP) + GAP / 2, LABEL + ROWS.indexOf(cell[1] as (typeof ROWS)[number]) * (CELL + GAP) + GAP / 2];

/** A player's area: levels 1-4 across, rows a-d down, its shops, and what may be clicked. */
export function areaBoard(input: AreaInput): SVGElement {
  const layers: Child[] = [];
  for (const level of LEVELS) {
    const mid = LABEL + (level - 1) * (CELL + GAP) + (CELL + GAP) / 2;
    layers.push(s("text", { x: mid, y: 14, class: "coord" }, `Level ${level}`));
  }
  for (const [i, row] of ROWS.entries()) {
    layers.push(s("text", { x: 8, y: LABEL + i * (CELL + GAP) + (CELL + GAP) / 2 + 5, class: "coord" }, row));
  }
  const shops = new Map(input.shops.map((placed) => [placed.cell, placed.shop]));
  for (const level of LEVELS) {
    for (const row of ROWS) {
      const cell = `${level}${row}`;
      const [x, y] = cellBox(cell);
      const shop = shops.get(cell);
      layers.push(s("rect", { x, y, width: CELL, height: CELL, rx: 10, class: `area-cell level-${level}` }, s("title", {}, cell)));
      if (shop === undefined) layers.push(s("text", { x: x + CELL / 2, y: y + CELL / 2 + 5, class: "cell-name" }, cell));
      else layers.push(shopTile(shop, level, input.colour, x + 2, y + 2, CELL - 4));
      const recent = input.recent.get(cell);
      if (recent) layers.push(s("rect", { x: x - 2, y: y - 2, width: CELL + 4, height: CELL + 4, rx: 12, class: "recent", stroke: recent }));
    }
  }
  for (const [cell, mark] of input.marks) {
    const [x, y] = cellBox(cell);
    const click = (): void => mark.onClick();
    layers.push(
      s(
        "g",
        {
          class: `target mark-${mark.kind}`,
          role: "button",
          tabindex: 0,
          "data-testid": `cell-${input.seat}-${cell}`,
          onclick: click,
          onkeydown: (event: Event) => {
            if ((event as KeyboardEvent).key === "Enter" || (event as KeyboardEvent).key === " ") click();
          },
        },
        s("title", {}, mark.title),
        s("rect", { x: x - 1, y: y - 1, width: CELL + 2, height: CELL + 2, rx: 11, class: "target-area" }),
        mark.badge?.length ? badge(mark.badge, x + CELL / 2, y + CELL - 19, CELL + 4) : null,
      ),
    );
  }
  return s(
    "svg",
    { viewBox: `0 0 ${AREA_SIZE} ${AREA_SIZE}`, class: "area-board", role: "img", "aria-label": input.label, "data-testid": `area-board-${input.seat}` },
    layers,
  );
}
