// Oregano's component facts the page shows (docs/oregano.md, server/games/oregano/components.py):
// names, build costs, level-up surcharges, sale prices and the goals of the cards. The server
// decides what is legal; these only say what a legal action costs and pays.

export const RESOURCES = ["wood", "stone", "metal"] as const;
export type Resource = (typeof RESOURCES)[number];

interface Kind {
  name: string;
  group: "resource" | "general" | "special";
  cost: Partial<Record<Resource | "gold", number>>;
  /** Sale prices by level (index 0: level 1). */
  sale: number[];
  produces?: Resource;
  /** The base dividend at level 1 (general shops). */
  dividend?: number;
}

const general = (base: number): number[] => [base, base + 3, base + 5, base + 8];

export const SHOPS: Readonly<Record<string, Kind>> = {
  lumber_merchant: { name: "Lumber merchant", group: "resource", cost: { gold: 5 }, sale: general(5), produces: "wood" },
  stone_merchant: { name: "Stone merchant", group: "resource", cost: { gold: 5 }, sale: general(5), produces: "stone" },
  metal_merchant: { name: "Metal merchant", group: "resource", cost: { gold: 5 }, sale: general(5), produces: "metal" },
  cafe: { name: "Café", group: "general", cost: { wood: 1 }, sale: general(1), dividend: 1 },
  general_store: { name: "General store", group: "general", cost: { stone: 1 }, sale: general(1), dividend: 1 },
  clothing_store: { name: "Clothing store", group: "general", cost: { wood: 1, stone: 1 }, sale: general(2), dividend: 2 },
  restaurant: { name: "Restaurant", group: "general", cost: { wood: 1, stone: 1, metal: 1 }, sale: general(3), dividend: 3 },
  fountain: { name: "Fountain", group: "special", cost: { stone: 3, metal: 3 }, sale: [8] },
  jeweler: { name: "Jeweler", group: "special", cost: { stone: 1, metal: 5 }, sale: [8] },
  casino: { name: "Casino", group: "special", cost: { metal: 6 }, sale: [8] },
  builder: { name: "Builder", group: "special", cost: { wood: 2, stone: 2 }, sale: [5] },
};

/** Gold added to the build cost to move a shop up from level 1, 2, 3. */
export const LEVEL_UP_GOLD: Readonly<Record<number, number>> = { 1: 3, 2: 5, 3: 7 };
export const JEWELER_BONUS = 3;
export const OTHERS_SHOP_FEE = 2;
export const SHOP_POINTS = [2, 5, 8, 10];
export const BONUS_VALUE = 5;

export const ACTION_KINDS: Readonly<Record<string, string>> = {
  attract: "attract (build or level up a shop)",
  resource: "resource (take a merchant's cards)",
  sell: "sell (a shop to the boulevard)",
  acquire: "acquire (a shop from the boulevard)",
};

export const STRATEGIES: Readonly<Record<string, string>> = {
  chain_store: "Chain store: build two shops of the same kind",
  strategic_retreat: "Strategic retreat: sell twice",
  aggressive_merger: "Aggressive merger: acquire twice",
  step_by_step: "Step by step: level up two different shops",
  savvy_shopper: "Savvy shopper: take two different resources from others' merchants",
};

export const BONUSES: Readonly<Record<string, string>> = {
  first_level4: "a shop at level 4",
  first_strategy: "a strategy card achieved",
  first_diagonal: "a full diagonal",
  first_column: "a full column",
  first_row: "a full row",
};

export const shopName = (kind: string): string => SHOPS[kind]?.name ?? kind;

/** A cost in words: "1 wood, 1 stone", "5 gold", "free". */
export function costText(cost: Partial<Record<string, number>>): string {
  const parts = Object.entries(cost)
    .filter(([, amount]) => amount)
    .map(([what, amount]) => `${amount} ${what}`);
  return parts.length ? parts.join(", ") : "free";
}

/** What a level-up from `level` costs: the build cost again plus gold. */
export function levelUpCost(kind: string, level: number): Partial<Record<string, number>> {
  const cost: Partial<Record<string, number>> = { ...SHOPS[kind]?.cost };
  cost.gold = (cost.gold ?? 0) + (LEVEL_UP_GOLD[level] ?? 0);
  return cost;
}

/** The table sale price of a shop at `level` (special shops are level 1). */
export function salePrice(kind: string, level: number): number {
  const prices = SHOPS[kind]?.sale ?? [];
  return prices[Math.min(level, prices.length) - 1] ?? 0;
}
