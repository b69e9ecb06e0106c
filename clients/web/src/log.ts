// Every game's events in words, one line each, for the log and the replay: each line in the colour
// of the seat it is about (the one that earned, for income), or none for the table's own events.

import {
  type Event,
  type LeilaoChoice,
  LeilaoColour,
  LeilaoPhase,
  type LeilaoStall,
  type MercadoEvent,
  type OreganoEvent,
  type MatchUpdate,
} from "@mercado/client";
import { describeEvent } from "./labels.js";
import { bonusName, costText, kindName, resourceName, shopName, strategyName } from "./oregano-words.js";

export interface LogLine {
  /** The seat the line is about; undefined for the table's own events (a deal, a reveal). */
  seat: number | undefined;
  text: string;
}

/** The lines of one update's events; `name` gives a seat's display name ("You", "Ana"). */
export function eventLines(events: readonly Event[], name: (seat: number) => string): LogLine[] {
  return events.flatMap((event): LogLine[] => {
    const game = event.game;
    const line = game.case === "mercado" ? mercadoLine(game.value, name) : game.case === "oregano" ? oreganoLine(game.value, name) : game.case === "leilao" ? leilaoLine(game.value.kind, name) : undefined;
    return line ? [{ ...line, text: capital(line.text) }] : [];
  });
}

/** The lines of an action's update, or "Ana moved" when its events say nothing worth a line. */
export function moveLines(update: MatchUpdate, name: (seat: number) => string): LogLine[] {
  const lines = eventLines(update.events, name);
  const seat = update.seat ?? 0;
  return lines.length ? lines : [{ seat, text: `${name(seat)} moved` }];
}

const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** "your" for "You", "Ana's" otherwise. */
const whose = (name: string): string => (name === "You" ? "your" : `${name}'s`);

function mercadoLine(event: MercadoEvent, name: (seat: number) => string): LogLine | undefined {
  const text = describeEvent(event, name);
  if (!text) return undefined;
  const value = event.event.value;
  return { seat: value && "player" in value ? value.player : undefined, text };
}

function oreganoLine(event: OreganoEvent, name: (seat: number) => string): LogLine | undefined {
  const e = event.kind;
  if (e.case === undefined) return undefined;
  const seat = "seat" in e.value ? e.value.seat : undefined;
  const who = seat === undefined ? "" : name(seat);
  const text = ((): string | undefined => {
    switch (e.case) {
      case "startShop":
        return `${who} started with a ${shopName(e.value.shop)} at ${e.value.cell}`;
      case "strategyKept":
        return e.value.card ? `${who} kept the strategy card ${strategyName(e.value.card)}` : `${who} kept a strategy card`;
      case "turn":
        return `round ${e.value.round}: ${whose(who)} turn`;
      case "income":
        return e.value.gold ? `${who} earned ${e.value.gold} gold from ${who === "You" ? "your" : "their"} shops` : undefined;
      case "declared":
        return `${who} declared ${kindName(e.value.first)}, then ${kindName(e.value.second)}`;
      case "built":
        return `${who} built a ${shopName(e.value.shop)} at ${e.value.cell} (${costText(e.value.paid)})`;
      case "levelledUp":
        return `${who} levelled the ${shopName(e.value.shop)} up from ${e.value.from} to ${e.value.to} (${costText(e.value.paid)})`;
      case "tookResources": {
        const owner = name(e.value.owner);
        const from = e.value.owner === seat ? `${who === "You" ? "your" : "their"} merchant` : `${whose(owner)} merchant`;
        const fee = e.value.fee ? `, paying ${owner === "You" ? "you" : owner} ${e.value.fee} gold` : "";
        return `${who} took ${e.value.count} ${resourceName(e.value.resource)} from ${from} at ${e.value.cell}${fee}`;
      }
      case "sold":
        return `${who} sold a ${shopName(e.value.shop)} (level ${e.value.level}) for ${e.value.gold} gold`;
      case "acquired":
        return `${who} acquired ${whose(name(e.value.seller))} ${shopName(e.value.shop)} (level ${e.value.level}) for ${e.value.gold} gold, into ${e.value.cell}`;
      case "skipped":
        return `${who} skipped ${kindName(e.value.kind)}`;
      case "strategyAchieved":
        return `${who} achieved ${strategyName(e.value.card)}: +${e.value.gold} gold`;
      case "bonusTaken":
        return `${who} took the bonus card ${bonusName(e.value.bonus)} (5 points)`;
      case "casino":
        return e.value.go ? `${who} went to the casino` : undefined;
      case "die":
        return `${who} rolled a ${e.value.roll}`;
      case "casinoLost":
        return `${who} lost ${e.value.gold} gold at the casino`;
      case "casinoWon": {
        const took = e.value.took.flatMap((gold, other) => (gold ? [`${gold} from ${name(other)}`] : []));
        return `${who} won at the casino: ${took.join(", ") || "nothing to take"}`;
      }
      case "endTriggered":
        return `two kinds of shop ran out: the game ends after this round`;
      case "gameOver":
        return "the game is over";
      default: // strategy drawn, deck shuffled: nothing worth a line
        return undefined;
    }
  })();
  return text ? { seat: e.case === "turn" || e.case === "endTriggered" ? undefined : seat, text } : undefined;
}

const COLOUR_NAMES: Readonly<Record<LeilaoColour, string>> = {
  [LeilaoColour.UNSPECIFIED]: "?",
  [LeilaoColour.RED]: "red",
  [LeilaoColour.BLUE]: "blue",
  [LeilaoColour.GREEN]: "green",
  [LeilaoColour.YELLOW]: "yellow",
};
export const colourName = (colour: LeilaoColour): string => COLOUR_NAMES[colour];
export const stallName = (stall: LeilaoStall | undefined): string => (stall ? `${colourName(stall.colour)} ${stall.number}` : "a stall");
const choiceText = (choice: LeilaoChoice): string => `${choice.card}${choice.extra ? ` + ${choice.extra}` : ""}`;

function leilaoLine(e: LeilaoEventKind, name: (seat: number) => string): LogLine | undefined {
  switch (e.case) {
    case "sealed": {
      const verb = e.value.step === LeilaoPhase.TIEBREAK ? "re-bid" : "bid";
      const { choice } = e.value;
      return { seat: e.value.seat, text: `${name(e.value.seat)} ${verb}${choice ? ` ${choiceText(choice)}` : ""} (sealed)` };
    }
    case "reveal": {
      const what = e.value.step === LeilaoPhase.TIEBREAK ? "re-bids" : "bids";
      return { seat: undefined, text: `${what} revealed: ${e.value.choices.map((choice) => `${name(choice.seat)} ${choiceText(choice)}`).join(", ")}` };
    }
    case "tiebreak":
      return { seat: undefined, text: `tie at ${e.value.card}: ${e.value.pending.map(name).join(" and ")} re-bid` };
    case "tieSettled":
      return { seat: undefined, text: `tie settled: ${e.value.order.map((slot) => name(slot.seat)).join(" before ")}` };
    case "ranking":
      return { seat: undefined, text: `pick order: ${e.value.pickSequence.map(name).join(", ")}` };
    case "pick":
      return { seat: e.value.seat, text: `${name(e.value.seat)} took ${stallName(e.value.stall)}` };
    case "leftover":
      return { seat: undefined, text: `left over, out of the game: ${e.value.stalls.map(stallName).join(", ")}` };
    case "deal":
      return { seat: undefined, text: `round ${e.value.round}: ${e.value.display.map(stallName).join(", ")} (deck ${e.value.deckCount})` };
    case "gameOver":
      return { seat: undefined, text: "the game is over" };
    default:
      return undefined;
  }
}

type LeilaoEventKind = Extract<Event["game"], { case: "leilao" }>["value"]["kind"];
