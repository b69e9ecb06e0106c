// The market as SVG: the 5×5 grid, its 20 entrances with their customers, and what the player may click.

import { type CustomerTile, type Entrance, type MercadoView, Side, type Square } from "@mercado/client";
import { s, type Child } from "./dom.js";
import {
  COLUMNS,
  customerHeads,
  entranceName,
  goodIcon,
  goodName,
  possessive,
  restaurantIcon,
  restaurantName,
  seatColour,
  squareName,
  tileName,
} from "./labels.js";

const CELL = 84;
const DEPTH = 64; // an entrance's depth, away from the grid
const GAP = 8; // between the grid and its entrances
const LABEL = 22; // the band of column letters and row numbers
const MARGIN = LABEL + DEPTH + GAP;
const GRID = 5 * CELL;
export const BOARD_SIZE = 2 * MARGIN + GRID;

/** A square of the grid or an entrance. */
export type Place = { square: Square } | { entrance: Entrance };

/** A part of a badge: its text, in a seat's colour when it is about that seat. */
export interface BadgePart {
  text: string;
  colour?: string;
}

/** Where the player may click on the board now, and what happens then. */
export interface Target {
  place: Place;
  /** A short hint drawn on the target, e.g. what a stand there costs and pays. */
  badge?: readonly BadgePart[];
  title: string;
  onClick: () => void;
}

/** A square or entrance of the last move, and the seat that made it. */
export interface Recent {
  place: Place;
  seat: number;
}

export interface BoardInput {
  view: MercadoView;
  targets: readonly Target[];
  recent: readonly Recent[];
  name: (seat: number) => string;
}

const entranceKey = (side: Side, line: number): string => `${side},${line}`;

const cellX = (column: number): number => MARGIN + (column - 1) * CELL;
const cellY = (row: number): number => MARGIN + (row - 1) * CELL;

/** The box of an entrance: x, y, width, height. */
function entranceBox(side: Side, line: number): [number, number, number, number] {
  const along = MARGIN + (line - 1) * CELL + 6;
  switch (side) {
    case Side.TOP:
      return [along, MARGIN - GAP - DEPTH, CELL - 12, DEPTH];
    case Side.BOTTOM:
      return [along, MARGIN + GRID + GAP, CELL - 12, DEPTH];
    case Side.LEFT:
      return [MARGIN - GAP - DEPTH, along, DEPTH, CELL - 12];
    default:
      return [MARGIN + GRID + GAP, along, DEPTH, CELL - 12];
  }
}

/** The box of a place, shrunk on every side by a square's or an entrance's inset (grown when negative). */
function placeBox(place: Place, squareInset: number, entranceInset: number): [number, number, number, number] {
  let box: [number, number, number, number];
  let inset: number;
  if ("square" in place) {
    box = [cellX(place.square.column), cellY(place.square.row), CELL, CELL];
    inset = squareInset;
  } else {
    box = entranceBox(place.entrance.side, place.entrance.line);
    inset = entranceInset;
  }
  const [x, y, w, h] = box;
  return [x + inset, y + inset, w - 2 * inset, h - 2 * inset];
}

const SIDES = [Side.TOP, Side.BOTTOM, Side.LEFT, Side.RIGHT] as const;

/** A customer tile drawn in a box: its people on top, the two goods it wants below. */
export function customerTile(tile: CustomerTile, x: number, y: number, w: number, h: number): SVGElement {
  const [first, second] = tile.goods;
  const icon = Math.min(w * 0.36, h * 0.4);
  return s(
    "g",
    { class: "customer" },
    s("rect", { x: x + 2, y: y + 2, width: w - 4, height: h - 4, rx: 8, class: "customer-card" }),
    s("rect", {
      x: x + 2,
      y: y + 2,
      width: w - 4,
      height: h * 0.42,
      rx: 8,
      class: `customer-band level-${tile.level}`,
    }),
    customerHeads(tile.level, x + w / 2, y + h * 0.24, Math.min(12, (w - 16) / Math.max(tile.level, 1) / 0.95)),
    first === undefined ? null : goodIcon(first, x + w / 2 - icon * 0.58, y + h * 0.7, icon),
    second === undefined ? null : goodIcon(second, x + w / 2 + icon * 0.58, y + h * 0.7, icon),
  );
}

/**
 * A badge centred on x with its top at y, no wider than `room`: one pill per part, in the colour
 * of the seat it is about (dark when none), shrunk to fit.
 */
export function badge(parts: readonly BadgePart[], x: number, y: number, room: number): SVGElement {
  const GAP = 3;
  const widths = parts.map((part) => part.text.length * 7.6 + 10);
  const total = widths.reduce((sum, width) => sum + width, 0) + GAP * (parts.length - 1);
  const scale = Math.min(1, room / total);
  let left = -total / 2;
  const pills = parts.map((part, i) => {
    const width = widths[i] ?? 0;
    const pill = s(
      "g",
      {},
      s("rect", { x: left, y: 0, width, height: 20, rx: 10, fill: part.colour ?? "#3b2f25" }),
      s("text", { x: left + width / 2, y: 14.5 }, part.text),
    );
    left += width + GAP;
    return pill;
  });
  return s("g", { class: "badge", transform: `translate(${x} ${y}) scale(${scale})` }, pills);
}

export function renderBoard(input: BoardInput): SVGElement {
  const { view, targets, recent } = input;
  const layers: Child[] = [];

  // The market floor and its grid.
  layers.push(
    s("rect", { x: MARGIN - 4, y: MARGIN - 4, width: GRID + 8, height: GRID + 8, rx: 10, class: "floor-edge" }),
  );
  for (let row = 1; row <= 5; row++) {
    for (let column = 1; column <= 5; column++) {
      layers.push(
        s("rect", {
          x: cellX(column),
          y: cellY(row),
          width: CELL,
          height: CELL,
          class: (row + column) % 2 === 0 ? "cell" : "cell cell-alt",
        }),
      );
    }
  }

  // Column letters and row numbers, outside the entrances.
  for (let i = 1; i <= 5; i++) {
    const letter = COLUMNS[i - 1] ?? "";
    const mid = MARGIN + (i - 0.5) * CELL;
    layers.push(
      s("text", { x: mid, y: LABEL / 2 + 5, class: "coord" }, letter),
      s("text", { x: mid, y: BOARD_SIZE - LABEL / 2 + 5, class: "coord" }, letter),
      s("text", { x: LABEL / 2, y: mid + 5, class: "coord" }, i),
      s("text", { x: BOARD_SIZE - LABEL / 2, y: mid + 5, class: "coord" }, i),
    );
  }

  // What stands on the squares.
  for (const content of view.market) {
    const square = content.square;
    if (!square) continue;
    const x = cellX(square.column);
    const y = cellY(square.row);
    const c = content.content;
    const title = `${squareName(square)}: `;
    if (c.case === "stand") {
      const colour = seatColour(c.value.owner);
      layers.push(
        s(
          "g",
          { class: "stand" },
          s("title", {}, `${title}${possessive(input.name(c.value.owner))} ${goodName(c.value.good)} stand`),
          s("rect", { x: x + 5, y: y + 5, width: CELL - 10, height: CELL - 10, rx: 10, fill: colour }),
          s("rect", { x: x + 5, y: y + 5, width: CELL - 10, height: CELL - 10, rx: 10, class: "stand-shine" }),
          s("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 25, fill: "#fffdf8" }),
          goodIcon(c.value.good, x + CELL / 2, y + CELL / 2, 34),
        ),
      );
    } else if (c.case === "restaurant") {
      layers.push(
        s(
          "g",
          { class: "restaurant" },
          s("title", {}, `${title}${restaurantName(c.value)} (face up)`),
          restaurantIcon(c.value, x + CELL / 2, y + CELL / 2, CELL - 12),
        ),
      );
    } else if (c.case === "faceDown") {
      layers.push(
        s(
          "g",
          { class: "face-down" },
          s("title", {}, `${title}a face-down restaurant`),
          s("rect", { x: x + 7, y: y + 7, width: CELL - 14, height: CELL - 14, rx: 8 }),
          s("text", { x: x + CELL / 2, y: y + CELL / 2 + 11 }, "?"),
        ),
      );
    }
  }

  // The entrances and their customers.
  const waiting = new Map(
    view.entrances.flatMap((e) =>
      e.entrance && e.tile ? [[entranceKey(e.entrance.side, e.entrance.line), e.tile]] : [],
    ),
  );
  for (const side of SIDES) {
    for (let line = 1; line <= 5; line++) {
      const key = entranceKey(side, line);
      const [x, y, w, h] = entranceBox(side, line);
      const tile = waiting.get(key);
      const name = entranceName({ side, line });
      layers.push(
        s("rect", { x, y, width: w, height: h, rx: 9, class: "entrance" }, s("title", {}, `entrance ${name}`)),
      );
      if (tile) {
        layers.push(s("g", {}, s("title", {}, `${name}: ${tileName(tile)}`), customerTile(tile, x, y, w, h)));
      }
    }
  }

  // The last move's square or entrance.
  for (const { place, seat } of recent) {
    const [x, y, w, h] = placeBox(place, 1.5, -3);
    layers.push(s("rect", { x, y, width: w, height: h, rx: 12, class: "recent", stroke: seatColour(seat) }));
  }

  // Legal targets, on top of everything.
  for (const target of targets) {
    const { place } = target;
    const [x, y, w, h] = placeBox(place, 3, -1);
    const testId =
      "square" in place ? `square-${squareName(place.square)}` : `entrance-${entranceName(place.entrance)}`;
    layers.push(
      s(
        "g",
        {
          class: "target",
          role: "button",
          tabindex: 0,
          "data-testid": testId,
          onclick: () => target.onClick(),
          onkeydown: (event: Event) => {
            if ((event as KeyboardEvent).key === "Enter" || (event as KeyboardEvent).key === " ") target.onClick();
          },
        },
        s("title", {}, target.title),
        s("rect", { x, y, width: w, height: h, rx: 10, class: "target-area" }),
        target.badge?.length ? badge(target.badge, x + w / 2, y + 4, w - 4) : null,
      ),
    );
  }

  return s(
    "svg",
    {
      viewBox: `0 0 ${BOARD_SIZE} ${BOARD_SIZE}`,
      class: "board",
      role: "img",
      "aria-label": "the market",
      "data-testid": "board",
    },
    layers,
  );
}
