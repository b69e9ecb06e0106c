// Oregano Market on screen, from the rules' "oregano-view/1" JSON (docs/oregano.md): every
// seat's area (levels 1-4 by rows a-d), gold, resource cards, bonus and strategy cards, the
// stock, supply and boulevard, and your legal actions as buttons grouped by what they do, each
// saying what it costs or pays.

import type { JsonObject } from "@bufbuild/protobuf";
import type { OreganoAction } from "@mercado/client";
import { h } from "./dom.js";
import { seatColour, sentence } from "./labels.js";
import {
  ACTION_KINDS,
  BONUS_VALUE,
  BONUSES,
  costText,
  JEWELER_BONUS,
  levelUpCost,
  OTHERS_SHOP_FEE,
  RESOURCES,
  type Resource,
  SHOP_POINTS,
  SHOPS,
  STRATEGIES,
  salePrice,
  shopName,
} from "./oregano-words.js";
import { actionButton, actionGroup, num, overText, type Result, resultCard, type Screen, type Table } from "./table.js";
import { countdown, seatRole } from "./ui.js";

type Area = Record<string, { shop: string; id: number }>;

/** The fields of "oregano-view/1" the page reads. */
interface OreganoView {
  phase: "start_shop" | "keep_strategy" | "declare" | "action" | "casino" | "over";
  round: number;
  to_move: number[];
  gold: number[];
  resources: Record<Resource, number>[];
  areas: Area[];
  boulevard: { shop: string; level: number; seller: number; id: number }[];
  stock: Record<string, number>;
  supply: Record<Resource, number>;
  strategies: { card?: string; progress?: number; goal?: number; count?: number }[];
  bonus_available: string[];
  bonuses: string[][];
  declared: string[] | null;
  step: number;
  end_triggered: boolean;
  result: Result | null;
  options: { round_limit: number };
}

const LEVELS = [1, 2, 3, 4];
const ROWS = ["a", "b", "c", "d"];

type Move = OreganoAction["action"];

export function oreganoScreen(table: Table, json: JsonObject): Screen {
  const view = json as unknown as OreganoView;
  return {
    status: statusText(table, view),
    main: [
      view.result ? resultCard(table, view.result, { Gold: (seat) => String(view.gold[seat] ?? 0), Bonuses: (seat) => String(view.bonuses[seat]?.length ?? 0) }) : null,
      table.legal.length ? actionsCard(table, view) : null,
      areasCard(table, view),
    ],
    side: [playersCard(table, view), marketCard(table, view)],
  };
}

function statusText(table: Table, view: OreganoView): string {
  if (view.phase === "over") return overText(table, view.result);
  const mover = view.to_move[0];
  const mine = mover !== undefined && mover === table.you && table.legal.length > 0;
  const who = mover === undefined ? "Someone" : table.name(mover);
  const declared = view.declared?.[view.step];
  switch (view.phase) {
    case "start_shop":
      return mine ? "Set-up: choose a merchant to start with and its cell in column 1." : `${who} is choosing a starting merchant…`;
    case "keep_strategy":
      return mine ? "Keep one of the strategy cards you drew." : `${who} is choosing a strategy card…`;
    case "declare":
      return mine ? `Your turn (round ${view.round}): declare your two actions, in order.` : `${who} is declaring two actions (round ${view.round})…`;
    case "action":
      return mine
        ? `Your ${view.step === 0 ? "first" : "second"} action: ${ACTION_KINDS[declared ?? ""] ?? declared}, or skip it.`
        : `${who}: ${view.step === 0 ? "first" : "second"} action, ${declared}…`;
    case "casino":
      return mine ? "Go to the casino? 1–4: pay 5 gold; 5–6: take up to 7 gold from each other player." : `${who} may go to the casino…`;
  }
}

/** The legal actions as buttons, grouped: one group per shop, starting cell, first action… */
function actionsCard(table: Table, view: OreganoView): HTMLElement {
  const you = table.you ?? 0;
  const groups = new Map<string, HTMLElement[]>();
  const add = (label: string, button: HTMLElement): void => void groups.set(label, [...(groups.get(label) ?? []), button]);
  const jeweler = Object.values(view.areas[you] ?? {}).some((cell) => cell.shop === "jeweler");
  for (const action of table.legal) {
    if (action.game.case !== "oregano") continue;
    const move: Move = action.game.value.action;
    const button = (label: string, testId: string): HTMLElement => actionButton(table, action, label, { "data-testid": testId });
    switch (move.case) {
      case "chooseStartShop":
        add(`${shopName(move.value.shop)}:`, button(move.value.cell, `act-start-${move.value.shop}-${move.value.cell}`));
        break;
      case "keepStrategy":
        add("Keep:", button(STRATEGIES[move.value.card] ?? move.value.card, `act-keep-${move.value.card}`));
        break;
      case "declare":
        add(`First ${move.value.first}, then:`, button(move.value.second, `act-declare-${move.value.first}-${move.value.second}`));
        break;
      case "build":
        add(`Build a ${shopName(move.value.shop)} (${costText(SHOPS[move.value.shop]?.cost ?? {})}) on`, button(move.value.cell, `act-build-${move.value.shop}-${move.value.cell}`));
        break;
      case "levelUp": {
        const kind = view.areas[you]?.[move.value.from]?.shop ?? "";
        const level = Number(move.value.from[0]);
        add(`Level up the ${shopName(kind)} at ${move.value.from} (${costText(levelUpCost(kind, level))}) to`, button(move.value.to, `act-level-${move.value.from}-${move.value.to}`));
        break;
      }
      case "takeResources": {
        const { owner, cell } = move.value;
        const kind = view.areas[owner]?.[cell]?.shop ?? "";
        const resource = SHOPS[kind]?.produces ?? "wood";
        const count = Math.min(Number(cell[0]), view.supply[resource] ?? 0);
        const fee = owner === you ? "free" : `pay ${table.name(owner)} ${OTHERS_SHOP_FEE} gold`;
        add("Take resources:", button(`${count} ${resource} from ${owner === you ? "your" : `${table.name(owner)}'s`} ${cell} (${fee})`, `act-take-${owner}-${cell}`));
        break;
      }
      case "sell": {
        const kind = view.areas[you]?.[move.value.cell]?.shop ?? "";
        const price = salePrice(kind, Number(move.value.cell[0])) + (jeweler && kind !== "jeweler" ? JEWELER_BONUS : 0);
        add("Sell for gold:", button(`${shopName(kind)} at ${move.value.cell}: +${price}`, `act-sell-${move.value.cell}`));
        break;
      }
      case "acquire": {
        const { shop, level, seller, cell } = move.value;
        const price = Math.max(0, salePrice(shop, level) - 1);
        add(`Acquire ${table.name(seller)}'s ${shopName(shop)} (level ${level}, ${price} gold) to`, button(cell, `act-acquire-${shop}-${level}-${seller}-${cell}`));
        break;
      }
      case "skip":
        add("Or:", button("Skip this action", "act-skip"));
        break;
      case "casino":
        add("Casino:", button(move.value.go ? "Go to the casino" : "Stay away", `act-casino-${move.value.go}`));
        break;
    }
  }
  return h(
    "section",
    { class: "card choices attention", "data-testid": "actions" },
    h("h2", {}, "Your move"),
    [...groups].map(([label, buttons]) => actionGroup(label, buttons)),
  );
}

/** Every seat's area: levels 1-4 across, rows a-d down. */
function areasCard(table: Table, view: OreganoView): HTMLElement {
  const areas = view.areas.map((area, seat) =>
    h(
      "div",
      { class: "area", style: `--seat:${seatColour(seat)}`, "data-testid": `area-${seat}` },
      h("h3", {}, h("span", { class: "chip" }), table.name(seat)),
      h(
        "table",
        { class: "area-grid" },
        h("tr", {}, h("th", {}, ""), LEVELS.map((level) => h("th", {}, `L${level}`))),
        ROWS.map((row) =>
          h(
            "tr",
            {},
            h("th", {}, row),
            LEVELS.map((level) => {
              const cell = `${level}${row}`;
              const shop = area[cell]?.shop;
              const kind = shop ? SHOPS[shop] : undefined;
              return h("td", { class: `cell-${kind?.group ?? "empty"}`, "data-cell": cell, title: shop ? `${shopName(shop)} at ${cell}` : cell }, shop ? shopName(shop) : "");
            }),
          ),
        ),
      ),
    ),
  );
  return h("section", { class: "card areas" }, h("h2", {}, "Areas", h("span", { class: "muted small" }, " · a shop's level is its column")), h("div", { class: "area-list" }, areas));
}

/** Every seat: gold, cards, bonuses, strategy card and, for the seat to move, its declaration. */
function playersCard(table: Table, view: OreganoView): HTMLElement {
  const match = table.state.match;
  const rows = view.gold.map((gold, seat) => {
    const info = match?.seats[seat];
    const moving = view.to_move.includes(seat) && view.phase !== "over";
    const strategy = view.strategies[seat];
    const resources = view.resources[seat];
    return h(
      "li",
      { class: `player ${moving ? "to-move" : ""}`, style: `--seat:${seatColour(seat)}`, "data-testid": `seat-${seat}` },
      h(
        "div",
        { class: "player-head" },
        h("span", { class: "chip" }),
        h("strong", { class: "player-name" }, table.name(seat)),
        seatRole(match, seat) ? h("span", { class: "role" }, seatRole(match, seat)) : null,
        h("span", { class: "coins", title: "gold" }, `${gold} gold`),
      ),
      h(
        "div",
        { class: "player-body" },
        moving ? h("span", { class: "turn-tag" }, "to move") : null,
        moving && info?.deadlineUnixMs !== undefined ? countdown(Number(info.deadlineUnixMs), Number(info.reserveMs), { title: "time left for this turn" }) : null,
        h("span", { class: "small" }, RESOURCES.map((resource) => `${resources?.[resource] ?? 0} ${resource}`).join(" · ")),
      ),
      moving && view.declared ? h("div", { class: "small" }, `declared: ${view.declared.join(", then ")}`) : null,
      h(
        "div",
        { class: "small muted" },
        strategy?.card
          ? `strategy: ${STRATEGIES[strategy.card] ?? strategy.card} (${strategy.progress ?? 0}/${strategy.goal ?? 2})`
          : `strategy: ${strategy?.count ? "a hidden card" : "none"}`,
      ),
      view.bonuses[seat]?.length ? h("div", { class: "small" }, `bonus: ${view.bonuses[seat].map((bonus) => BONUSES[bonus] ?? bonus).join(", ")}`) : null,
    );
  });
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Players", h("span", { class: "muted small" }, ` · ${view.round ? `round ${view.round} of ${view.options.round_limit}` : "set-up"}${view.end_triggered ? " · the end is triggered" : ""}`)),
    h("ul", { class: "players" }, rows),
  );
}

/** The stock with build costs, the supply, the boulevard with acquire prices, bonus cards and scoring. */
function marketCard(table: Table, view: OreganoView): HTMLElement {
  const stock = Object.entries(SHOPS).map(([id, kind]) =>
    h(
      "tr",
      { class: `cell-${kind.group}` },
      h("td", {}, kind.name),
      h("td", {}, String(num(view.stock[id]))),
      h("td", {}, costText(kind.cost)),
      h("td", {}, kind.sale.join("/")),
    ),
  );
  const boulevard = view.boulevard.map((entry) =>
    h("li", {}, `${shopName(entry.shop)} level ${entry.level}, sold by ${table.name(entry.seller)}: ${Math.max(0, salePrice(entry.shop, entry.level) - 1)} gold`),
  );
  return h(
    "section",
    { class: "card market", "data-testid": "market" },
    h("h2", {}, "Market"),
    h(
      "table",
      { class: "costs" },
      h("tr", {}, h("th", {}, "Shop"), h("th", {}, "Stock"), h("th", {}, "Build"), h("th", {}, "Sells for (L1/2/3/4)")),
      stock,
    ),
    h("p", { class: "small muted" }, "Level up: the build cost again + 3 / 5 / 7 gold from level 1 / 2 / 3 (needs a builder). Acquire: the sale price − 1."),
    h("p", { class: "small" }, `Supply: ${RESOURCES.map((resource) => `${view.supply[resource] ?? 0} ${resource}`).join(" · ")}`),
    h("h3", {}, "Boulevard"),
    boulevard.length ? h("ul", { class: "small boulevard" }, boulevard) : h("p", { class: "small muted" }, "empty"),
    h("p", { class: "small" }, `Bonus cards left (${BONUS_VALUE} points each): ${view.bonus_available.map((bonus) => BONUSES[bonus] ?? bonus).join(", ") || "none"}`),
    h("p", { class: "small muted" }, `Score: gold + ${SHOP_POINTS.join(" / ")} per shop at level 1 / 2 / 3 / 4 + ${BONUS_VALUE} per bonus card.`),
  );
}

/** The log's line for a move's events ("" when they say nothing worth a line). */
export function oreganoLog(events: readonly JsonObject[], name: (seat: number) => string): string {
  const lines = events.map((event): string | null => {
    const who = name(num(event.seat));
    switch (event.type) {
      case "start_shop":
        return `${who} started with a ${shopName(String(event.shop))} at ${String(event.cell)}`;
      case "strategy_kept":
        return `${who} kept a strategy card`;
      case "income":
        return num(event.gold) ? `${who} earned ${num(event.gold)} gold` : null;
      case "declared":
        return `${who} declared ${String(event.first)}, then ${String(event.second)}`;
      case "built":
        return `${who} built a ${shopName(String(event.shop))} at ${String(event.cell)}`;
      case "levelled_up":
        return `${who} moved the ${shopName(String(event.shop))} up to ${String(event.to)}`;
      case "took_resources":
        return `${who} took ${num(event.count)} ${String(event.resource)}${num(event.fee) ? `, paying ${name(num(event.owner)).replace(/^You$/, "you")} ${num(event.fee)}` : ""}`;
      case "sold":
        return `${who} sold a ${shopName(String(event.shop))} for ${num(event.gold)}`;
      case "acquired":
        return `${who} acquired a ${shopName(String(event.shop))} for ${num(event.gold)}`;
      case "skipped":
        return `${who} skipped ${String(event.kind)}`;
      case "strategy_achieved":
        return `${who} achieved ${STRATEGIES[String(event.card)]?.split(":")[0] ?? String(event.card)} (+${num(event.gold)})`;
      case "bonus_taken":
        return `${who} took the bonus for ${BONUSES[String(event.bonus)] ?? String(event.bonus)}`;
      case "die":
        return `${who} rolled ${num(event.roll)}`;
      case "end_triggered":
        return "the end is triggered";
      case "game_over":
        return "the game is over";
      default:
        return null;
    }
  });
  return sentence(lines.filter((line): line is string => Boolean(line)));
}

