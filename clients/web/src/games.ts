// The games drawn by screens of their own (Oregano, Leilão): each one's screen from its typed view.

import { leilaoScreen } from "./leilao.js";
import { oreganoScreen } from "./oregano.js";
import type { Screen, Table, TableView } from "./table.js";

export function tableScreen(table: Table, view: TableView): Screen {
  return view.game === "oregano" ? oreganoScreen(table, view.view) : leilaoScreen(table, view.view);
}
