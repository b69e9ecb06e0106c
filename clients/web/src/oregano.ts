// Oregano Market on screen, from the typed OreganoView (docs/oregano.md): every seat's area drawn
// as a 4×4 grid of shop tiles, the market as cards (the stock, the supply, the boulevard's tokens,
// the bonus cards), each player's gold, resources, bonus and strategy cards, and the seat to move's
// declaration. Your move is played on the drawings: a shop kind, one of your shops or a boulevard
// token, then a highlighted cell; a merchant to take its cards, a shop to sell. Declaring the
// turn's two actions, a guide says what each does and what it would give now. What an action
// costs and pays comes from the server's previews, the guide from the view's declare outlook.

import {
  type Action,
  type OreganoAction,
  OreganoActionKind,
  OreganoBonus,
  type OreganoBoulevardEntry,
  type OreganoDeclareOutlook,
  OreganoPhase,
  type OreganoPlayer,
  type OreganoPreview,
  OreganoShop,
  type OreganoStrategy,
  OreganoStrategyCard,
  OreganoStrategyCards,
  type OreganoView,
} from "@mercado/client";
import type { BadgePart } from "./board.js";
import { type Child, h, icon } from "./dom.js";
import { seatColour } from "./labels.js";
import { areaBoard, type CellMark, goldBadge, resourceBadge, shopTile } from "./oregano-art.js";
import {
  ACTION_KINDS,
  BONUSES,
  bonusName,
  costText,
  kindName,
  kindNamed,
  RESOURCES,
  resourceCount,
  resourceName,
  SHOPS,
  SPECIAL_POWERS,
  shopName,
  shopNamed,
  STRATEGIES,
  strategyNamed,
} from "./oregano-words.js";
import { moveButton, optionGroup, points, ruleName, type Screen, scoreNow, type Table } from "./table.js";
import { countdown, seatRole } from "./ui.js";

type Move = OreganoAction["action"];

/** A legal Oregano action with its move and preview. */
interface OMove {
  action: Action;
  move: Move;
  preview: OreganoPreview | undefined;
}

function movesOf(table: Table): OMove[] {
  return table.moves.flatMap(({ action, preview }) =>
    action.game.case === "oregano" ? [{ action, move: action.game.value.action, preview: preview.case === "oregano" ? preview.value : undefined }] : [],
  );
}

/** What the player picked towards a move: a shop kind to build (or start with), one of its shops to level up, a boulevard token, the declared kinds. */
type Pick =
  | { kind: "shop"; shop: OreganoShop }
  | { kind: "cell"; cell: string }
  | { kind: "entry"; key: string }
  | { kind: "declare"; kinds: OreganoActionKind[] }
  | undefined;

function pickOf(draft: readonly string[]): Pick {
  const [kind, ...rest] = draft;
  switch (kind) {
    case "shop":
      return { kind, shop: Number(rest[0]) };
    case "cell":
      return { kind, cell: rest[0] ?? "" };
    case "entry":
      return { kind, key: rest[0] ?? "" };
    case "declare":
      return { kind, kinds: rest.map(Number) };
    default:
      return undefined;
  }
}

const entryKey = (shop: OreganoShop, level: number, seller: number): string => `${shop}-${level}-${seller}`;

/** Everything the screen derives from the legal moves and the pick, once per drawing. */
interface Context {
  table: Table;
  view: OreganoView;
  you: number;
  moves: OMove[];
  pick: Pick;
  /** The declared kind being performed, in the action phase. */
  doing: OreganoActionKind | undefined;
}

export function oreganoScreen(table: Table, view: OreganoView): Screen {
  const moves = movesOf(table);
  const context: Context = {
    table,
    view,
    you: table.you ?? -1,
    moves,
    pick: pickOf(table.draft),
    doing: view.phase === OreganoPhase.ACTION ? view.declared[view.step] : undefined,
  };
  return {
    status: statusText(context),
    main: [moves.length ? moveCard(context) : null, areasCard(context), marketCard(context)],
    side: [playersCard(context)],
  };
}

// ---------------------------------------------------------------------------------------------
// The status line

function statusText(context: Context): string {
  const { table, view, moves } = context;
  const mover = view.currentPlayer;
  const mine = moves.length > 0;
  const who = table.name(mover);
  const round = view.round ? `round ${view.round} of ${view.options?.roundLimit ?? "?"}` : "set-up";
  switch (view.phase) {
    case OreganoPhase.START_SHOP:
      return mine ? "Set-up: choose your starting merchant, then its cell in column 1." : `Set-up: ${who} is choosing a starting merchant…`;
    case OreganoPhase.KEEP_STRATEGY:
      return mine ? "Keep one of the strategy cards you drew." : `${who} is choosing a strategy card…`;
    case OreganoPhase.DECLARE:
      return mine ? `Your turn (${round}): declare your two actions, in order.` : `${who} is declaring two actions (${round})…`;
    case OreganoPhase.ACTION: {
      const nth = view.step === 0 ? "first" : "second";
      const kind = kindName(context.doing ?? OreganoActionKind.UNSPECIFIED);
      return mine ? `Your ${nth} action: ${kind}, or skip it.` : `${who}: ${nth} action, ${kind}…`;
    }
    case OreganoPhase.CASINO:
      return mine ? "Go to the casino, or end your turn." : `${who} may go to the casino…`;
    default:
      return "The match is over.";
  }
}

// ---------------------------------------------------------------------------------------------
// What a move costs and pays, in words and as a badge

function payText(context: Context, preview: OreganoPreview | undefined): string {
  if (!preview) return "";
  const { table, you } = context;
  const parts: string[] = [];
  const cost = costText(preview.cost);
  if (cost !== "free") parts.push(`costs ${cost}`);
  for (const earning of preview.earnings) {
    parts.push(earning.seat === you ? `+${earning.amount ?? 0} gold` : `+${earning.amount ?? 0} gold to ${table.name(earning.seat)}`);
  }
  const taken = RESOURCES.flatMap((resource) => {
    const count = resourceCount(preview.resources, resource);
    return count ? [`+${count} ${resourceName(resource)}`] : [];
  });
  parts.push(...taken);
  const change = Number(preview.scoreChange);
  parts.push(`score ${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change)}`);
  if (preview.achievesStrategy) parts.push("achieves your strategy card");
  for (const bonus of preview.bonuses) parts.push(`takes the bonus card ${bonusName(bonus)}`);
  return parts.join(" · ");
}

const GOLD = "#a87c06";
const GREEN = "#2f7d46";

/** A badge for a shop to act on: what it pays you, the cards it gives, what it costs. */
function pickBadge(context: Context, preview: OreganoPreview | undefined): BadgePart[] {
  if (!preview) return [];
  const parts: BadgePart[] = [];
  const gold = preview.earnings.find((earning) => earning.seat === context.you)?.amount;
  if (gold) parts.push({ text: `+${gold} gold`, colour: GOLD });
  for (const resource of RESOURCES) {
    const count = resourceCount(preview.resources, resource);
    if (count) parts.push({ text: `+${count} ${resourceName(resource)}`, colour: GREEN });
  }
  const cost = costText(preview.cost);
  if (cost !== "free") parts.push({ text: `−${cost.replaceAll(", ", " ")}` });
  return [...parts, ...starBadge(preview)];
}

/** A star on a place that achieves the strategy card or takes a bonus card. */
const starBadge = (preview: OreganoPreview | undefined): BadgePart[] =>
  preview && (preview.achievesStrategy || preview.bonuses.length) ? [{ text: "★", colour: "#c2410c" }] : [];

// ---------------------------------------------------------------------------------------------
// Where each move goes: the cells of the areas

/** The shop at a cell of a seat's area. */
const shopAt = (player: OreganoPlayer | undefined, cell: string): OreganoShop | undefined => player?.area.find((placed) => placed.cell === cell)?.shop;

/** The places the current pick may go, by cell of your area. */
function targets(context: Context): Map<string, OMove> {
  const { moves, pick } = context;
  const out = new Map<string, OMove>();
  for (const item of moves) {
    const { move } = item;
    if (pick?.kind === "shop" && (move.case === "build" || move.case === "chooseStartShop") && shopNamed(move.value.shop) === pick.shop) out.set(move.value.cell, item);
    if (pick?.kind === "cell" && move.case === "levelUp" && move.value.from === pick.cell) out.set(move.value.to, item);
    if (pick?.kind === "entry" && move.case === "acquire" && entryKey(shopNamed(move.value.shop), move.value.level, move.value.seller) === pick.key) out.set(move.value.cell, item);
  }
  return out;
}

/** What each cell of `seat`'s area offers now. */
function marksOf(context: Context, seat: number): Map<string, CellMark> {
  const { table, view, moves, pick, you } = context;
  const marks = new Map<string, CellMark>();
  const setPick = (draft: string[]): void => table.setDraft(draft);
  for (const item of moves) {
    const { move, preview, action } = item;
    if (move.case === "takeResources" && move.value.owner === seat) {
      const text = payText(context, preview);
      marks.set(move.value.cell, { kind: "pick", badge: pickBadge(context, preview), title: `Take the cards of this merchant: ${text}`, onClick: () => table.submit(action) });
    }
    if (seat !== you) continue;
    if (move.case === "sell") {
      marks.set(move.value.cell, { kind: "pick", badge: pickBadge(context, preview), title: `Sell this ${shopName(shopAt(view.players[you], move.value.cell) ?? 0)}: ${payText(context, preview)}`, onClick: () => table.submit(action) });
    } else if (move.case === "levelUp" && !(pick?.kind === "cell" && pick.cell === move.value.from)) {
      const from = move.value.from;
      marks.set(from, { kind: "pick", badge: [{ text: `↑ ${costText(preview?.cost).replaceAll(", ", " ")}` }], title: `Level this shop up: ${payText(context, preview)}`, onClick: () => setPick(["cell", from]) });
    }
  }
  if (seat !== you) return marks;
  if (pick?.kind === "cell") {
    const cell = pick.cell;
    marks.set(cell, { kind: "selected", title: "The shop to level up (click again to put it back)", onClick: () => setPick([]) });
  }
  for (const [cell, item] of targets(context)) {
    marks.set(cell, { kind: "target", badge: starBadge(item.preview), title: `${moveText(context, item)}: ${payText(context, item.preview)}`, onClick: () => table.submit(item.action) });
  }
  return marks;
}

/** The cells the last move went to, in its mover's colour. */
function recentCells(table: Table, seat: number): Map<string, string> {
  const last = table.last;
  const move = last?.action?.game.case === "oregano" ? last.action.game.value.action : undefined;
  if (!last || last.seat !== seat || !move) return new Map();
  const cell = move.case === "build" || move.case === "chooseStartShop" || move.case === "acquire" ? move.value.cell : move.case === "levelUp" ? move.value.to : undefined;
  return cell ? new Map([[cell, seatColour(seat)]]) : new Map();
}

/** A move in words: "build a Café at 1b", "sell the Café at 2a". */
function moveText(context: Context, item: { move: Move; preview: OreganoPreview | undefined }): string {
  const { view, table, you } = context;
  const { move, preview } = item;
  const mine = view.players[you];
  switch (move.case) {
    case "chooseStartShop":
      return `start with a ${shopName(shopNamed(move.value.shop))} at ${move.value.cell}`;
    case "build":
      return `build a ${shopName(shopNamed(move.value.shop))} at ${move.value.cell}`;
    case "levelUp":
      return `level the ${shopName(shopAt(mine, move.value.from) ?? 0)} at ${move.value.from} up to ${move.value.to}`;
    case "takeResources": {
      const owner = move.value.owner;
      const taken = RESOURCES.flatMap((resource) => {
        const count = resourceCount(preview?.resources, resource);
        return count ? [`${count} ${resourceName(resource)}`] : [];
      });
      return `take ${taken.join(", ") || "the cards"} from ${owner === you ? "your" : `${table.name(owner)}'s`} merchant at ${move.value.cell}`;
    }
    case "sell":
      return `sell the ${shopName(shopAt(mine, move.value.cell) ?? 0)} at ${move.value.cell}`;
    case "acquire":
      return `acquire ${table.name(move.value.seller)}'s ${shopName(shopNamed(move.value.shop))} (level ${move.value.level}) into ${move.value.cell}`;
    default:
      return "act";
  }
}

// ---------------------------------------------------------------------------------------------
// Your move

function moveCard(context: Context): HTMLElement {
  const { view } = context;
  const body: Child[] = (() => {
    switch (view.phase) {
      case OreganoPhase.START_SHOP:
        return startShopBody(context);
      case OreganoPhase.KEEP_STRATEGY:
        return keepBody(context);
      case OreganoPhase.DECLARE:
        return declareBody(context);
      case OreganoPhase.ACTION:
        return actionBody(context);
      case OreganoPhase.CASINO:
        return casinoBody(context);
      default:
        return [];
    }
  })();
  const doing = context.doing === undefined ? {} : { "data-doing": ruleName(OreganoActionKind, context.doing) };
  return h("section", { class: "card choices attention oregano-move", "data-testid": "actions", ...doing }, body);
}

/** The shop kinds of legal builds (or starting merchants), as small cards to pick. */
function kindPicker(context: Context, cases: readonly Move["case"][]): HTMLElement | null {
  const { table, pick } = context;
  const kinds = new Map<OreganoShop, OMove>();
  for (const item of context.moves) {
    const { move } = item;
    if ((move.case === "build" || move.case === "chooseStartShop") && cases.includes(move.case)) {
      const shop = shopNamed(move.value.shop);
      if (!kinds.has(shop)) kinds.set(shop, item);
    }
  }
  if (!kinds.size) return null;
  return h(
    "div",
    { class: "kind-picker" },
    [...kinds].map(([shop, item]) => {
      const selected = pick?.kind === "shop" && pick.shop === shop;
      return h(
        "button",
        {
          type: "button",
          class: `shop-pick choice ${selected ? "selected" : ""}`,
          "aria-pressed": selected,
          "data-testid": `pick-shop-${ruleName(OreganoShop, shop)}`,
          title: `${shopName(shop)}: ${payText(context, item.preview)}`,
          onclick: () => table.setDraft(selected ? [] : ["shop", String(shop)]),
        },
        icon(40, shopTile(shop, 1, undefined, -20, -20, 40)),
        h("span", { class: "shop-pick-name" }, shopName(shop)),
        h("span", { class: "muted small" }, costText(item.preview?.cost)),
      );
    }),
  );
}

/** The places of the current pick as a list of buttons, grouped by what they cost and pay. */
function placesList(context: Context, label: string): HTMLElement | null {
  const places = targets(context);
  if (!places.size) return null;
  const groups = new Map<string, [string, OMove][]>();
  for (const [cell, item] of places) {
    const pays = payText(context, item.preview);
    groups.set(pays, [...(groups.get(pays) ?? []), [cell, item]]);
  }
  return h(
    "div",
    { class: "places", "data-testid": "choices" },
    [...groups].map(([pays, cells]) =>
      optionGroup(
        label,
        cells.map(([cell, item]) => moveButton(context.table, item.action, cell, { "data-testid": `option-${cell}`, title: `${moveText(context, item)}: ${pays}` })),
        pays,
      ),
    ),
  );
}

function startShopBody(context: Context): Child[] {
  const shop = context.pick?.kind === "shop" ? shopName(context.pick.shop) : undefined;
  return [
    h("h2", {}, "Your starting merchant"),
    h("p", { class: "guide" }, "A merchant gives the cards of its resource to whoever takes them. Pick one, then a highlighted cell in column 1 of your area."),
    kindPicker(context, ["chooseStartShop"]),
    shop ? placesList(context, `${shop} at`) : null,
  ];
}

function strategyCard(card: OreganoStrategyCard, strategy: Partial<OreganoStrategy> = {}, attrs: Record<string, string> = {}): HTMLElement {
  const words = STRATEGIES[card];
  const goal = strategy.goal ?? 0;
  return h(
    "div",
    { class: "strategy-card", ...attrs },
    h("span", { class: "strategy-kind" }, "Strategy"),
    h("strong", {}, words?.name ?? "?"),
    h("span", { class: "strategy-goal" }, words?.what ?? ""),
    goal
      ? h(
          "span",
          { class: "progress", title: `${strategy.progress ?? 0} of ${goal} done` },
          Array.from({ length: goal }, (_, i) => h("span", { class: `pip ${i < (strategy.progress ?? 0) ? "done" : ""}` })),
          ` ${strategy.progress ?? 0}/${goal}`,
        )
      : h("span", { class: "muted small" }, "achieved: +5 gold"),
  );
}

function keepBody(context: Context): Child[] {
  const { table } = context;
  const keeps = context.moves.flatMap((item) => (item.move.case === "keepStrategy" ? [{ item, card: strategyNamed(item.move.value.card) }] : []));
  return [
    h("h2", {}, "Keep a strategy card"),
    h("p", { class: "guide" }, "Its goal, met from now on, pays 5 gold, and the first to achieve one takes a bonus card. The others go back into the deck."),
    h(
      "div",
      { class: "strategy-choices" },
      keeps.map(({ item, card }) =>
        h(
          "button",
          { type: "button", class: "strategy-pick choice", "data-testid": `keep-${ruleName(OreganoStrategyCard, card)}`, onclick: () => table.submit(item.action) },
          strategyCard(card),
          h("span", { class: "keep-label" }, "Keep this one"),
        ),
      ),
    ),
  ];
}

/** The guide to the declaration: each action kind, what it does and what it would give now. */
function declareBody(context: Context): Child[] {
  const { table, view, pick } = context;
  const chosen = pick?.kind === "declare" ? pick.kinds : [];
  const declares = context.moves.flatMap((item) => (item.move.case === "declare" ? [{ item, first: kindNamed(item.move.value.first), second: kindNamed(item.move.value.second) }] : []));
  const legalPair = (first: OreganoActionKind, second: OreganoActionKind): boolean => declares.some((d) => d.first === first && d.second === second);
  const click = (kind: OreganoActionKind): void => {
    const [first, second] = chosen;
    if (first === undefined || second !== undefined) table.setDraft(["declare", String(kind)]);
    else if (legalPair(first, kind)) table.setDraft(["declare", String(first), String(kind)]);
    else if (first === kind) table.setDraft([]);
    else table.setDraft(["declare", String(kind)]);
  };
  // A card for each kind that may be declared first, with what it would give now.
  const kinds = [...new Set(declares.map((d) => d.first))].sort((a, b) => a - b);
  const [first, second] = chosen;
  const declare = first !== undefined && second !== undefined ? declares.find((d) => d.first === first && d.second === second) : undefined;
  return [
    h("h2", {}, "Declare your two actions"),
    h("p", { class: "guide" }, "Pick the action you do first, then the one you do second. Each may be skipped when its turn comes."),
    h(
      "div",
      { class: "kind-cards" },
      kinds.map((kind) => {
        const order = chosen.indexOf(kind);
        const words = ACTION_KINDS[kind];
        const outlook = view.declareOutlook.find((item) => item.kind === kind);
        return h(
          "button",
          {
            type: "button",
            class: `kind-card choice ${order >= 0 ? "selected" : ""} ${outlook?.operations === 0 ? "idle" : ""}`,
            "aria-pressed": order >= 0,
            "data-testid": `kind-${ruleName(OreganoActionKind, kind)}`,
            onclick: () => click(kind),
          },
          h("span", { class: "kind-head" }, h("strong", {}, words?.name ?? "?"), order >= 0 ? h("span", { class: "kind-order" }, order === 0 ? "1st" : "2nd") : null),
          h("span", { class: "kind-what" }, words?.what ?? ""),
          outlook ? h("span", { class: "kind-now", "data-testid": `now-${ruleName(OreganoActionKind, kind)}` }, nowText(context, outlook)) : null,
        );
      }),
    ),
    h(
      "div",
      { class: "bid-confirm" },
      declare
        ? moveButton(table, declare.item.action, `Declare ${kindName(declare.first)}, then ${kindName(declare.second)}`, { class: "primary", "data-testid": "confirm-declare" })
        : h("span", { class: "muted small" }, first === undefined ? "Pick your first action." : `First ${kindName(first)}: now pick your second action.`),
      chosen.length ? h("button", { type: "button", class: "secondary", onclick: () => table.setDraft([]) }, "Clear") : null,
    ),
  ];
}

/** What an action kind would give now, from the view's declare outlook. */
function nowText(context: Context, outlook: OreganoDeclareOutlook): string {
  if (!outlook.operations) return "Now: nothing to do (you would skip it).";
  const best = outlook.best?.action;
  const choices = `${outlook.operations} choice${outlook.operations === 1 ? "" : "s"}`;
  if (!best || best.case === undefined) return `Now: ${choices}.`;
  const item = { move: best, preview: outlook.bestPreview };
  return `Now: ${choices}; best for your score: ${moveText(context, item)} (${payText(context, outlook.bestPreview)}).`;
}

function actionBody(context: Context): Child[] {
  const { table, view, doing, pick } = context;
  const nth = view.step === 0 ? "First" : "Second";
  const words = ACTION_KINDS[doing ?? OreganoActionKind.UNSPECIFIED];
  const skip = context.moves.find((item) => item.move.case === "skip");
  const plan = view.declared.map((kind, i) =>
    h("span", { class: `plan-step ${i < view.step ? "done" : i === view.step ? "now" : ""}` }, kindName(kind)),
  );
  const body: Child[] = [
    h("h2", { class: "with-button" }, h("span", {}, `${nth} action: ${words?.name ?? "?"}`), h("span", { class: "plan" }, plan)),
    h("p", { class: "guide" }, words?.what ?? ""),
  ];
  const operations = context.moves.filter((item) => item.move.case !== "skip");
  if (!operations.length) body.push(h("p", { class: "guide" }, "There is nothing you can do now: skip it."));
  switch (doing) {
    case OreganoActionKind.ATTRACT: {
      const levelling = operations.some((item) => item.move.case === "levelUp");
      const building = operations.some((item) => item.move.case === "build");
      if (building || levelling) {
        body.push(
          h(
            "p",
            { class: "guide" },
            [building ? "Pick a shop to build, then a highlighted cell in column 1" : "", levelling ? "pick one of your highlighted shops (↑) to level it up, then a cell of the next column" : ""]
              .filter(Boolean)
              .join("; or ") + ".",
          ),
        );
      }
      body.push(kindPicker(context, ["build"]));
      if (pick?.kind === "shop") body.push(placesList(context, `Build a ${shopName(pick.shop)} on`));
      if (pick?.kind === "cell") body.push(placesList(context, `Level the ${shopName(shopAt(view.players[context.you], pick.cell) ?? 0)} at ${pick.cell} up to`));
      break;
    }
    case OreganoActionKind.RESOURCE:
    case OreganoActionKind.SELL:
      if (operations.length) {
        body.push(
          h("p", { class: "guide" }, doing === OreganoActionKind.SELL ? "Click one of your highlighted shops to sell it, or here:" : "Click a highlighted merchant, or here:"),
          h(
            "div",
            { class: "places", "data-testid": "choices" },
            operations.map((item) =>
              h(
                "div",
                { class: "option-row" },
                moveButton(table, item.action, capitalise(moveText(context, item)), { "data-testid": `option-${optionId(item.move)}` }),
                h("span", { class: "muted small", "data-testid": "pays" }, payText(context, item.preview)),
              ),
            ),
          ),
        );
      }
      break;
    case OreganoActionKind.ACQUIRE:
      if (operations.length) {
        body.push(h("p", { class: "guide" }, "Pick a shop of the boulevard, then a highlighted cell of its level's column."), boulevardRow(context, true));
        if (pick?.kind === "entry") body.push(placesList(context, "Place it on"));
      }
      break;
    default:
      break;
  }
  if (skip) body.push(h("div", { class: "skip-row" }, moveButton(table, skip.action, "Skip this action", { class: "secondary", "data-testid": "act-skip" })));
  return body;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const optionId = (move: Move): string => (move.case === "takeResources" ? `take-${move.value.owner}-${move.value.cell}` : move.case === "sell" ? `sell-${move.value.cell}` : "move");

function casinoBody(context: Context): Child[] {
  const { table } = context;
  const go = context.moves.find((item) => item.move.case === "casino" && item.move.value.go);
  const stay = context.moves.find((item) => item.move.case === "casino" && !item.move.value.go);
  const odds = go?.preview?.casino;
  const takes = (odds?.winTakes ?? []).flatMap((gold, seat) => (gold ? [`${gold} from ${table.name(seat)}`] : []));
  return [
    h("h2", {}, "The casino"),
    odds
      ? h(
          "p",
          { class: "guide", "data-testid": "casino-odds" },
          `Roll the die: on 5 or 6 (one chance in three) you take ${takes.join(", ") || "nothing"}; on 1 to 4 you pay ${odds.loss} gold.`,
        )
      : null,
    h(
      "div",
      { class: "bid-confirm" },
      go ? moveButton(table, go.action, "Go to the casino", { class: "primary", "data-testid": "casino-go" }) : null,
      stay ? moveButton(table, stay.action, "End my turn", { class: "secondary", "data-testid": "casino-stay" }) : null,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// The areas

function areasCard(context: Context): HTMLElement {
  const { table, view, you } = context;
  const seats = view.players.map((player) => player.seat).sort((a, b) => (a === you ? -1 : b === you ? 1 : a - b));
  return h(
    "section",
    { class: "card areas" },
    h("h2", {}, "Areas", h("span", { class: "muted small" }, " · a shop's level is its column")),
    h(
      "div",
      { class: "area-list" },
      seats.map((seat) => {
        const player = view.players[seat];
        const score = scoreNow(table.state, seat);
        return h(
          "div",
          { class: `area ${seat === view.currentPlayer && view.phase !== OreganoPhase.OVER ? "to-move" : ""}`, style: `--seat:${seatColour(seat)}`, "data-testid": `area-${seat}` },
          h(
            "h3",
            {},
            h("span", { class: "chip" }),
            h("span", { class: "area-name" }, seat === you ? "Your area" : `${table.name(seat)}'s area`),
            score === undefined ? null : h("span", { class: "area-score", title: "score if the game ended now" }, points(score)),
          ),
          areaBoard({
            seat,
            colour: seatColour(seat),
            shops: player?.area ?? [],
            marks: marksOf(context, seat),
            recent: recentCells(table, seat),
            label: `${table.name(seat)}'s area`,
          }),
        );
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// The market: the stock as cards, the supply, the boulevard, the bonus cards

function marketCard(context: Context): HTMLElement {
  const { view, table, pick } = context;
  const buildable = new Set(
    context.moves.flatMap((item) => (item.move.case === "build" || item.move.case === "chooseStartShop" ? [shopNamed(item.move.value.shop)] : [])),
  );
  const cards = view.stock.map((stock) => {
    const info = SHOPS[stock.shop];
    const pickable = buildable.has(stock.shop);
    const selected = pick?.kind === "shop" && pick.shop === stock.shop;
    const content: Child[] = [
      h(
        "span",
        { class: "shop-card-head", style: `--kind:${info?.colour ?? "#888"}` },
        icon(30, shopTile(stock.shop, 1, undefined, -15, -15, 30)),
        h("strong", {}, info?.name ?? "?"),
        h("span", { class: `stock-count ${stock.count ? "" : "empty"}`, title: "left in the stock" }, stock.count ? `×${stock.count}` : "none"),
      ),
      h("span", { class: "shop-line" }, h("span", { class: "muted" }, "Build "), costIcons(info?.printed.cost ?? {})),
      h("span", { class: "shop-line" }, h("span", { class: "muted" }, "Sells "), (info?.printed.sale ?? []).join(" · ")),
      info?.printed.dividend
        ? h("span", { class: "shop-line" }, h("span", { class: "muted" }, "Pays "), `${info.printed.dividend} a turn, +1 a level`)
        : info?.produces
          ? h("span", { class: "shop-line" }, h("span", { class: "muted" }, "Gives "), resourceBadge(info.produces, 14), ` ${resourceName(info.produces)} × level`)
          : h("span", { class: "shop-line power" }, SPECIAL_POWERS[stock.shop] ?? ""),
    ];
    const attrs = { class: `shop-card group-${info?.group ?? "none"} ${pickable ? "choice" : ""} ${selected ? "selected" : ""}`, "data-testid": `market-${ruleName(OreganoShop, stock.shop)}` };
    return pickable
      ? h("button", { type: "button", ...attrs, "aria-pressed": selected, onclick: () => table.setDraft(selected ? [] : ["shop", String(stock.shop)]) }, content)
      : h("div", attrs, content);
  });
  const supply = view.supply;
  return h(
    "section",
    { class: "card market", "data-testid": "market" },
    h("h2", {}, "Market", h("span", { class: "muted small" }, " · the shops in stock")),
    h("div", { class: "shop-cards" }, cards),
    h(
      "div",
      { class: "market-row" },
      h("h3", {}, "Supply"),
      h(
        "span",
        { class: "resource-counts", "data-testid": "supply" },
        RESOURCES.map((resource) => h("span", { class: "resource-count", title: `${resourceName(resource)} cards left` }, resourceBadge(resource, 20), String(resourceCount(supply, resource)))),
      ),
    ),
    h("div", { class: "market-row" }, h("h3", {}, "Boulevard"), boulevardRow(context, false)),
    h(
      "div",
      { class: "market-row" },
      h("h3", {}, "Bonus cards"),
      h(
        "span",
        { class: "bonus-cards" },
        view.bonusAvailable.length
          ? view.bonusAvailable.map((bonus) => bonusCard(bonus))
          : h("span", { class: "muted small" }, "all taken"),
      ),
    ),
  );
}

function costIcons(cost: Partial<Record<"gold" | "wood" | "stone" | "metal", number>>): Child[] {
  const parts: Child[] = [];
  if (cost.gold) parts.push(h("span", { class: "cost-part" }, goldBadge(14), String(cost.gold)));
  for (const resource of RESOURCES) {
    const count = resourceCount(cost, resource);
    if (count) parts.push(h("span", { class: "cost-part" }, resourceBadge(resource, 14), String(count)));
  }
  return parts;
}

function bonusCard(bonus: OreganoBonus): HTMLElement {
  const words = BONUSES[bonus];
  return h("span", { class: "bonus-card", title: `5 points to ${words?.what ?? ""}` }, h("strong", {}, words?.name ?? "?"), h("small", {}, "5 pts"));
}

/** The boulevard's tokens: each sold shop at its level, in its seller's colour; with `picking`, those you may acquire are buttons. */
function boulevardRow(context: Context, picking: boolean): HTMLElement {
  const { view, table, pick } = context;
  const acquirable = new Map<string, OMove>();
  for (const item of context.moves) {
    if (item.move.case === "acquire") {
      const key = entryKey(shopNamed(item.move.value.shop), item.move.value.level, item.move.value.seller);
      if (!acquirable.has(key)) acquirable.set(key, item);
    }
  }
  const token = (entry: OreganoBoulevardEntry): HTMLElement => {
    const key = entryKey(entry.shop, entry.level, entry.seller);
    const item = acquirable.get(key);
    const selected = pick?.kind === "entry" && pick.key === key;
    const title = `${shopName(entry.shop)}, level ${entry.level}, sold by ${table.name(entry.seller)}${item ? `: acquire it for ${costText(item.preview?.cost)}` : ""}`;
    const content = [icon(44, shopTile(entry.shop, entry.level, seatColour(entry.seller), -22, -22, 44)), item ? h("small", { class: "token-price" }, costText(item.preview?.cost)) : null];
    return item
      ? h(
          "button",
          { type: "button", class: `token choice ${selected ? "selected" : ""}`, title, "aria-pressed": selected, "data-testid": `${picking ? "pick" : "boulevard"}-${entry.id}`, onclick: () => table.setDraft(selected ? [] : ["entry", key]) },
          content,
        )
      : h("span", { class: "token", title }, content);
  };
  return h(
    "span",
    { class: "boulevard-row", "data-testid": picking ? "boulevard-pick" : "boulevard" },
    view.boulevard.length ? view.boulevard.map(token) : h("span", { class: "muted small" }, "no shop sold yet"),
  );
}

// ---------------------------------------------------------------------------------------------
// The players

function playersCard(context: Context): HTMLElement {
  const { table, view, you } = context;
  const match = table.state.match;
  const over = view.phase === OreganoPhase.OVER;
  const open = view.options?.strategyCardsRule === OreganoStrategyCards.OPEN;
  const rows = view.players.map((player) => {
    const seat = player.seat;
    const info = match?.seats[seat];
    const moving = seat === view.currentPlayer && !over && table.state.seatsToMove.includes(seat);
    const score = scoreNow(table.state, seat);
    const strategy = player.strategy;
    return h(
      "li",
      { class: `player ${moving ? "to-move" : ""}`, style: `--seat:${seatColour(seat)}`, "data-testid": `seat-${seat}` },
      h(
        "div",
        { class: "player-head" },
        h("span", { class: "chip" }),
        h("strong", { class: "player-name" }, table.name(seat)),
        seatRole(match, seat) ? h("span", { class: "role" }, seatRole(match, seat)) : null,
        score === undefined ? null : h("span", { class: "coins", title: "score if the game ended now", "data-testid": `score-now-${seat}` }, points(score)),
      ),
      h(
        "div",
        { class: "player-body" },
        moving ? h("span", { class: "turn-tag" }, "to move") : null,
        moving && info?.deadlineUnixMs !== undefined ? countdown(Number(info.deadlineUnixMs), Number(info.reserveMs), { title: "time left for this turn" }) : null,
        h("span", { class: "resource-count gold", title: "gold" }, goldBadge(18), String(player.gold)),
        RESOURCES.map((resource) => h("span", { class: "resource-count", title: `${resourceName(resource)} cards` }, resourceBadge(resource, 18), String(resourceCount(player.resources, resource)))),
      ),
      moving && view.declared.length
        ? h(
            "div",
            { class: "small declared" },
            "Declared: ",
            view.declared.map((kind, i) => h("span", { class: `plan-step ${i < view.step ? "done" : i === view.step && view.phase === OreganoPhase.ACTION ? "now" : ""}` }, kindName(kind))),
          )
        : null,
      h(
        "div",
        { class: "player-cards" },
        strategy?.card
          ? strategyCard(strategy.card, strategy, { "data-testid": `strategy-${seat}` })
          : h(
              "div",
              { class: "strategy-card back", "data-testid": `strategy-${seat}`, title: strategy?.count ? (seat === you || open ? "" : "hidden until achieved") : "none held" },
              h("span", { class: "strategy-kind" }, "Strategy"),
              h("strong", {}, strategy?.count ? "?" : "—"),
              h("span", { class: "strategy-goal" }, strategy?.count ? "hidden" : player.drawn?.count ? "choosing" : "none"),
            ),
        player.bonuses.map((bonus) => bonusCard(bonus)),
      ),
    );
  });
  const round = view.round ? `round ${view.round} of ${view.options?.roundLimit ?? "?"}` : "set-up";
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Players", h("span", { class: "muted small" }, ` · ${round}${view.endTriggered ? " · the last round" : ""}`)),
    h("ul", { class: "players" }, rows),
  );
}
