// The result of a finished match, the same for every game: each seat's score explained from the
// server's score parts (MatchState.score_parts: named parts that add up to it), the ranks, and
// the tie-breaks that decided between equal scores. The page adds nothing up itself.

import type { MatchState } from "@mercado/client";
import { type Child, h } from "./dom.js";
import { seatColour } from "./labels.js";
import { ordinal } from "./ui.js";

type Score = MatchState["scoreParts"][number];

/** A number of points as a score sheet writes it: "−12" with a minus sign. */
const signed = (points: bigint | number): string => (Number(points) < 0 ? `−${-Number(points)}` : String(points));

/** The final ranks by seat: the match's (forfeited seats last). */
const ranksOf = (state: MatchState): readonly number[] => state.match?.ranks ?? [];

/** The status line of a finished match, for a player or a spectator. */
export function overText(state: MatchState, you: number | undefined): string {
  const rank = you === undefined ? undefined : ranksOf(state)[you];
  if (rank === undefined) return "The match is over.";
  const total = state.scoreParts.find((score) => score.seat === you)?.total;
  return `The match is over: you finished ${ordinal(rank)}${total === undefined ? "" : ` with ${total} point${Math.abs(Number(total)) === 1 ? "" : "s"}`}.`;
}

/** "You win!", "Ana wins", "You and Ana share first place". */
function title(winners: readonly number[], name: (seat: number) => string, you: number | undefined): string {
  if (winners.length > 1) return `${winners.map(name).join(" and ")} share first place`;
  const winner = winners[0] ?? 0;
  return winner === you ? "You win!" : `${name(winner)} wins`;
}

/**
 * Seats of equal total next to each other in rank order, and the tie-break that ordered them:
 * "Ana and Bea both scored 41: more gold put Ana first (12 to 9)". The first value that differs
 * decides; equal in all of them, they share the rank.
 */
function tieNotes(order: readonly number[], scores: ReadonlyMap<number, Score>, name: (seat: number) => string): string[] {
  const notes: string[] = [];
  for (const [i, seat] of order.entries()) {
    const next = order[i + 1];
    const a = scores.get(seat);
    const b = next === undefined ? undefined : scores.get(next);
    if (next === undefined || !a || !b || a.total !== b.total) continue;
    const both = `${name(seat)} and ${name(next)} both scored ${a.total}`;
    const decider = a.tieBreaks.findIndex((tie, j) => tie.value !== b.tieBreaks[j]?.value);
    const tie = a.tieBreaks[decider];
    notes.push(
      tie
        ? `${both}: ${tie.label.toLowerCase()} put ${name(seat)} first (${tie.value} to ${b.tieBreaks[decider]?.value}).`
        : `${both} and are equal in every tie-break: they share the place.`,
    );
  }
  return notes;
}

/**
 * The result card: who won, then a column per seat in rank order with each part of its score
 * (and how many things it counts), the total, and the tie-breaks. `buttons` go below it.
 */
export function resultCard(state: MatchState, name: (seat: number) => string, you: number | undefined, buttons: Child = null): HTMLElement | null {
  const scores = new Map(state.scoreParts.map((score) => [score.seat, score]));
  const ranks = ranksOf(state);
  if (!scores.size || !ranks.length) return null;
  const order = [...scores.keys()].sort((a, b) => (ranks[a] ?? 9) - (ranks[b] ?? 9) || a - b);
  const seats = state.match?.seats ?? [];
  const first = order[0] === undefined ? undefined : scores.get(order[0]);
  const cell = (seat: number, content: Child, attrs: Record<string, string> = {}): HTMLElement =>
    h("td", { style: `--seat:${seatColour(seat)}`, ...attrs }, content);
  const rows = (first?.parts ?? []).map((part, i) =>
    h(
      "tr",
      { "data-testid": `part-${part.name}` },
      h("th", { scope: "row" }, part.label),
      order.map((seat) => {
        const mine = scores.get(seat)?.parts[i];
        const nothing = !mine || (Number(mine.points) === 0 && !mine.count);
        return cell(seat, [mine ? signed(mine.points) : "", mine?.count === undefined ? null : h("small", { class: "count" }, ` ×${mine.count}`)], nothing ? { class: "nothing" } : {});
      }),
    ),
  );
  const ties = (first?.tieBreaks ?? []).map((tie, i) =>
    h(
      "tr",
      { class: "tie-break" },
      h("th", { scope: "row" }, tie.label),
      order.map((seat) => cell(seat, String(scores.get(seat)?.tieBreaks[i]?.value ?? ""))),
    ),
  );
  const winners = order.filter((seat) => ranks[seat] === 1);
  const tieLabels = (first?.tieBreaks ?? []).map((tie) => tie.label.toLowerCase());
  const forfeited = order.filter((seat) => seats[seat]?.forfeited);
  return h(
    "section",
    { class: "result card", "data-testid": "result" },
    h("h2", {}, title(winners, name, you)),
    h(
      "div",
      { class: "score-table-frame" },
      h(
        "table",
        { class: "score-table", "data-testid": "score-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, h("span", { class: "sr-only" }, "Score")),
            order.map((seat) =>
              h(
                "th",
                { style: `--seat:${seatColour(seat)}`, class: ranks[seat] === 1 ? "winner" : "", "data-testid": `rank-${seat}` },
                h("span", { class: "rank" }, ordinal(ranks[seat] ?? 0)),
                h("span", { class: "who" }, h("span", { class: "chip" }), name(seat)),
                seats[seat]?.forfeited ? h("small", { class: "muted" }, "forfeited") : null,
              ),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          rows,
          h(
            "tr",
            { class: "total" },
            h("th", { scope: "row" }, "Total"),
            order.map((seat) => {
              const total = scores.get(seat)?.total;
              return cell(seat, total === undefined ? "" : signed(total), { "data-testid": `score-${seat}` });
            }),
          ),
          ties.length ? h("tr", { class: "tie-head" }, h("th", { colspan: order.length + 1 }, "Tie-breaks")) : null,
          ties,
        ),
      ),
    ),
    h(
      "p",
      { class: "muted small", "data-testid": "tie-notes" },
      [
        ...tieNotes(order, scores, name),
        tieLabels.length ? `Equal totals are ranked by ${tieLabels.join(", then ")}.` : "",
        forfeited.length ? `A seat that forfeited ranks last, whatever its score.` : "",
      ]
        .filter(Boolean)
        .join(" "),
    ),
    buttons,
  );
}
