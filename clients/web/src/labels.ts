// Names, colours and icons of the game's pieces, and one-line descriptions of events.

import {
  type CustomerTile,
  type Entrance,
  Good,
  type MatchUpdate,
  type MercadoEvent,
  Restaurant,
  Side,
  type Square,
} from "@mercado/client";
import { s, type Child } from "./dom.js";

/** Each seat's colour: its stands on the market and its name everywhere. */
const SEAT_COLOURS = ["#d1495b", "#2e7fb8", "#3a9d5d", "#e0962a"] as const;
export const seatColour = (seat: number): string => SEAT_COLOURS[seat % SEAT_COLOURS.length] ?? "#888";

const GOOD_NAMES: Record<Good, string> = {
  [Good.UNSPECIFIED]: "?",
  [Good.FISH]: "fish",
  [Good.FLOWERS]: "flowers",
  [Good.TOMATOES]: "tomatoes",
  [Good.MEAT]: "meat",
  [Good.GRAPES]: "grapes",
};
export const goodName = (good: Good): string => GOOD_NAMES[good] ?? "?";

export const GOOD_COLOURS: Record<Good, string> = {
  [Good.UNSPECIFIED]: "#999",
  [Good.FISH]: "#3178c6",
  [Good.FLOWERS]: "#d24d9a",
  [Good.TOMATOES]: "#e0442c",
  [Good.MEAT]: "#9b4a2f",
  [Good.GRAPES]: "#7444b0",
};

const RESTAURANT_NAMES: Record<Restaurant, string> = {
  [Restaurant.UNSPECIFIED]: "restaurant",
  [Restaurant.SUSHI_BAR]: "sushi bar",
  [Restaurant.TEA_HOUSE]: "tea house",
  [Restaurant.PIZZERIA]: "pizzeria",
  [Restaurant.BURGER_BAR]: "burger bar",
  [Restaurant.WINE_BAR]: "wine bar",
  [Restaurant.PUB]: "pub",
};
export const restaurantName = (restaurant: Restaurant): string => RESTAURANT_NAMES[restaurant] ?? "restaurant";

/** The good a restaurant improves; undefined for the pub, which improves every good. */
export const RESTAURANT_GOOD: Partial<Record<Restaurant, Good>> = {
  [Restaurant.SUSHI_BAR]: Good.FISH,
  [Restaurant.TEA_HOUSE]: Good.FLOWERS,
  [Restaurant.PIZZERIA]: Good.TOMATOES,
  [Restaurant.BURGER_BAR]: Good.MEAT,
  [Restaurant.WINE_BAR]: Good.GRAPES,
};

export const COLUMNS = "abcde";
export const squareName = (square: Pick<Square, "column" | "row"> | undefined): string =>
  square ? `${COLUMNS[square.column - 1] ?? "?"}${square.row}` : "?";

const SIDE_NAMES: Record<Side, string> = {
  [Side.UNSPECIFIED]: "?",
  [Side.TOP]: "top",
  [Side.BOTTOM]: "bottom",
  [Side.LEFT]: "left",
  [Side.RIGHT]: "right",
};
export function entranceName(entrance: Pick<Entrance, "side" | "line"> | undefined): string {
  if (!entrance) return "?";
  const vertical = entrance.side === Side.TOP || entrance.side === Side.BOTTOM;
  const line = vertical ? (COLUMNS[entrance.line - 1] ?? "?") : String(entrance.line);
  return `${SIDE_NAMES[entrance.side]}-${line}`;
}

export const tileName = (tile: CustomerTile | undefined): string =>
  tile ? `level-${tile.level} ${tile.goods.map(goodName).join("/")} customer` : "customer";

/** A good's icon, drawn in a box of `size` centred on (x, y). */
export function goodIcon(good: Good, x: number, y: number, size: number): SVGElement {
  const colour = GOOD_COLOURS[good];
  const k = size / 20;
  const shapes: Child[] = [];
  switch (good) {
    case Good.FISH:
      shapes.push(
        s("path", { d: "M-9 0 Q-3 -7 5 -2 L9 -6 L9 6 L5 2 Q-3 7 -9 0 Z", fill: colour }),
        s("circle", { cx: -4.5, cy: -1, r: 1.2, fill: "#fff" }),
      );
      break;
    case Good.FLOWERS:
      for (let i = 0; i < 5; i++) {
        const angle = (i * 2 * Math.PI) / 5 - Math.PI / 2;
        shapes.push(s("circle", { cx: 5 * Math.cos(angle), cy: 5 * Math.sin(angle), r: 4, fill: colour }));
      }
      shapes.push(s("circle", { cx: 0, cy: 0, r: 3, fill: "#f6c945" }));
      break;
    case Good.TOMATOES:
      shapes.push(
        s("circle", { cx: 0, cy: 1.5, r: 8, fill: colour }),
        s("path", { d: "M0 -6 L-4 -8 L-1.5 -5.5 L-5 -4 L0 -4.5 L5 -4 L1.5 -5.5 L4 -8 Z", fill: "#3d8b3d" }),
        s("ellipse", { cx: -3, cy: -1, rx: 1.6, ry: 2.4, fill: "#fff", opacity: 0.45 }),
      );
      break;
    case Good.MEAT:
      shapes.push(
        s("rect", { x: 2, y: -1.6, width: 7, height: 3.2, rx: 1.4, fill: "#f3e9dc", transform: "rotate(35)" }),
        s("circle", { cx: 8, cy: 3.5, r: 2.2, fill: "#f3e9dc" }),
        s("circle", { cx: 6, cy: 7, r: 2.2, fill: "#f3e9dc" }),
        s("ellipse", { cx: -2.5, cy: -2, rx: 7.5, ry: 6, fill: colour, transform: "rotate(35 -2.5 -2)" }),
        s("ellipse", { cx: -4, cy: -3.5, rx: 2.5, ry: 1.5, fill: "#fff", opacity: 0.3 }),
      );
      break;
    case Good.GRAPES:
      for (const [cx, cy] of [
        [-4.5, -3],
        [0, -3],
        [4.5, -3],
        [-2.25, 1],
        [2.25, 1],
        [0, 5],
      ] as const) {
        shapes.push(s("circle", { cx, cy, r: 2.6, fill: colour }));
      }
      shapes.push(s("path", { d: "M0 -6 L1 -9", stroke: "#5b7a2e", "stroke-width": 1.5, fill: "none" }));
      break;
    default:
      shapes.push(s("text", { x: 0, y: 4, "text-anchor": "middle", "font-size": 12 }, "?"));
  }
  return s("g", { transform: `translate(${x} ${y}) scale(${k})`, class: "good-icon" }, shapes);
}

/** A restaurant tile's face, in a box of `size` centred on (x, y). */
export function restaurantIcon(
  restaurant: Restaurant,
  x: number,
  y: number,
  size: number,
  compact = false,
): SVGElement {
  const good = RESTAURANT_GOOD[restaurant];
  const colour = good === undefined ? "#b8860b" : GOOD_COLOURS[good];
  const k = size / 40;
  const label = restaurantName(restaurant);
  const [first, second] = label.includes(" ") ? label.split(" ") : [label, ""];
  return s(
    "g",
    { transform: `translate(${x} ${y}) scale(${k})`, class: "restaurant-icon" },
    s("rect", { x: -19, y: -19, width: 38, height: 38, rx: 5, fill: "#fbf3e2", stroke: colour, "stroke-width": 2.5 }),
    s("path", { d: "M-19 -10 L-19 -14 Q-19 -19 -14 -19 L14 -19 Q19 -19 19 -14 L19 -10 Z", fill: colour }),
    good === undefined
      ? s("path", {
          d: "M0 -9 L2.4 -3.3 L8.5 -3.3 L3.6 0.4 L5.3 6.2 L0 2.8 L-5.3 6.2 L-3.6 0.4 L-8.5 -3.3 L-2.4 -3.3 Z",
          fill: colour,
          transform: compact ? "translate(0 4) scale(1.6)" : "",
        })
      : goodIcon(good, 0, compact ? 3 : -1, compact ? 26 : 15),
    compact
      ? null
      : s(
          "text",
          { x: 0, y: 11, "text-anchor": "middle", "font-size": 6.6, "font-weight": 700, fill: "#4a3b2a" },
          first,
        ),
    compact || !second
      ? null
      : s("text", { x: 0, y: 17, "text-anchor": "middle", "font-size": 5.6, fill: "#4a3b2a" }, second),
  );
}

/** The people on a customer tile, drawn as `level` heads in a row centred on (x, y). */
export function customerHeads(level: number, x: number, y: number, size: number): SVGElement {
  const gap = size * 0.95;
  const heads: Child[] = [];
  for (let i = 0; i < level; i++) {
    const cx = x + (i - (level - 1) / 2) * gap;
    heads.push(
      s("circle", { cx, cy: y - size * 0.28, r: size * 0.26, fill: "#4a3b2a" }),
      s("path", {
        d: `M${cx - size * 0.42} ${y + size * 0.45} Q${cx} ${y - size * 0.25} ${cx + size * 0.42} ${y + size * 0.45} Z`,
        fill: "#4a3b2a",
      }),
    );
  }
  return s("g", { class: "heads" }, heads);
}

/** "Your" for "You", "Ana's" for "Ana". */
export const possessive = (name: string): string => (name === "You" ? "Your" : `${name}'s`);

const coins = (amount: number): string => `${amount} coin${amount === 1 ? "" : "s"}`;

/** One line for an event, as the viewer may see it. `name` gives a seat's display name. */
export function describeEvent(event: MercadoEvent, name: (seat: number) => string): string | undefined {
  const e = event.event;
  switch (e.case) {
    case "handRedrawn": {
      const who = name(e.value.player);
      return `${who} redrew ${who === "You" ? "your" : "their"} hand (${e.value.drawn.map(goodName).join(", ")})`;
    }
    case "standOpened":
      return `${name(e.value.player)} opened a ${goodName(e.value.good)} stand on ${squareName(e.value.square)} for ${coins(e.value.cost)}`;
    case "restaurantTaken":
      return `${name(e.value.player)} found a ${restaurantName(e.value.restaurant)} under ${squareName(e.value.square)}`;
    case "income":
      return e.value.amount === undefined
        ? `${name(e.value.player)} earned coins`
        : `${name(e.value.player)} earned ${coins(e.value.amount)}`;
    case "offerRefreshed":
      return `the offer was refreshed (${e.value.drawn.map(goodName).join(", ")})`;
    case "offerTaken":
      return `${name(e.value.player)} took ${goodName(e.value.good)} from the offer`;
    case "customerBrought":
      return `${name(e.value.player)} brought a ${tileName(e.value.tile)} to ${entranceName(e.value.entrance)}`;
    case "restaurantOpened":
      return `${name(e.value.player)} opened a ${restaurantName(e.value.restaurant)} on ${squareName(e.value.square)}`;
    case "coinTaken":
      return `${name(e.value.player)} took a coin`;
    case "endTriggered":
      return `the end is near: ${e.value.finalTurns} final turn${e.value.finalTurns === 1 ? "" : "s"}`;
    case "gameEnded":
      return "the game is over";
    case "offerRefilled":
    case "displayRefilled":
    case undefined:
      return undefined; // visible on the board; not worth a line
  }
}

/** The lines of one move as one sentence: "You opened…; you earned…". */
export function sentence(lines: readonly string[]): string {
  const text = lines.map((line, i) => (i > 0 && line.startsWith("You ") ? `you ${line.slice(4)}` : line)).join("; ");
  return text.startsWith("the ") ? `The ${text.slice(4)}` : text; // names keep their case
}

/** One move by `seat` in words, from its events: "You opened…; you earned…", or "Ana moved". */
export function describeMove(events: MatchUpdate["events"], seat: number, name: (seat: number) => string): string {
  const lines = events.flatMap((event) => {
    const line = event.game.case === "mercado" ? describeEvent(event.game.value, name) : undefined;
    return line ? [line] : [];
  });
  return lines.length ? sentence(lines) : `${name(seat)} moved`;
}
