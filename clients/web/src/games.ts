// The games drawn from their rules' JSON view (Oregano, Leilão): each one's screen and log lines.

import type { JsonObject } from "@bufbuild/protobuf";
import { leilaoLog, leilaoScreen } from "./leilao.js";
import { oreganoLog, oreganoScreen } from "./oregano.js";
import type { JsonGame, Screen, Table } from "./table.js";

interface JsonGameUi {
  screen(table: Table, view: JsonObject): Screen;
  /** A move's events in words ("" when they say nothing worth a line). */
  log(events: readonly JsonObject[], name: (seat: number) => string): string;
}

export const JSON_GAMES: Readonly<Record<JsonGame, JsonGameUi>> = {
  oregano: { screen: oreganoScreen, log: oreganoLog },
  leilao: { screen: leilaoScreen, log: leilaoLog },
};
