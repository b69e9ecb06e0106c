// The market as SVG: the 5×5 grid, its 20 entrances with their customers, and what the player may click.

import { type CustomerTile, type MercadoView, Side } from "@mercado/client";
import { s, type Child } from "./dom.js";
import {
  COLUMNS,
  customerHeads,
  entranceName,
  goodIcon,
  goodName,
  restaurantIcon,
  restaurantName,
  seatColour,
  squareName,
  tileName,
} from "./labels.js";

export const CELL = 84;
const DEPTH = 64; // an entrance's depth, away from the grid
const GAP = 8; // between the grid and its entrances
const LABEL = 22; // the band of column letters and row numbers
const MARGIN = LABEL + DEPTH + GAP;
const GRID = 5 * CELL;
export const BOARD_SIZE = 2 * MARGIN + GRID;

/** Where the player may click on the board now, and what happens then. */
export interface Target {
  /** A short hint drawn on the target, e.g. the cost of a stand there. */
  badge?: string;
  title: string;
  onClick: () => void;
}

export interface BoardInput {
  view: MercadoView;
  /** Keyed by squareKey / entranceKey. */
  targets: ReadonlyMap<string, Target>;
  /** The squares and entrances of the last move, keyed the same way, with the seat that made it. */
  recent: ReadonlyMap<string, number>;
  name: (seat: number) => string;
}

export const squareKey = (column: number, row: number): string => `sq:${column},${row}`;
export const entranceKey = (side: Side, line: number): string => `en:${side},${line}`;

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
          s("title", {}, `${title}${input.name(c.value.owner)}'s ${goodName(c.value.good)} stand`),
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
      const mover = recent.get(key);
      if (mover !== undefined) {
        layers.push(
          s("rect", {
            x: x - 3,
            y: y - 3,
            width: w + 6,
            height: h + 6,
            rx: 12,
            class: "recent",
            stroke: seatColour(mover),
          }),
        );
      }
    }
  }

  // The last move's squares.
  for (let row = 1; row <= 5; row++) {
    for (let column = 1; column <= 5; column++) {
      const mover = recent.get(squareKey(column, row));
      if (mover !== undefined) {
        layers.push(
          s("rect", {
            x: cellX(column) + 1.5,
            y: cellY(row) + 1.5,
            width: CELL - 3,
            height: CELL - 3,
            rx: 12,
            class: "recent",
            stroke: seatColour(mover),
          }),
        );
      }
    }
  }

  // Legal targets, on top of everything.
  for (const [key, target] of targets) {
    let box: [number, number, number, number];
    let testId: string;
    if (key.startsWith("sq:")) {
      const [column = 0, row = 0] = key.slice(3).split(",").map(Number);
      box = [cellX(column) + 3, cellY(row) + 3, CELL - 6, CELL - 6];
      testId = `square-${squareName({ column, row })}`;
    } else {
      const [side = 0, line = 0] = key.slice(3).split(",").map(Number);
      const [x, y, w, h] = entranceBox(side as Side, line);
      box = [x - 1, y - 1, w + 2, h + 2];
      testId = `entrance-${entranceName({ side, line })}`;
    }
    const [x, y, w, h] = box;
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
        target.badge
          ? s(
              "g",
              { class: "badge" },
              s("rect", { x: x + w - 34, y: y + 4, width: 30, height: 18, rx: 9 }),
              s("text", { x: x + w - 19, y: y + 17 }, target.badge),
            )
          : null,
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
