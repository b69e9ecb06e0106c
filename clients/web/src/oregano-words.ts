// Oregano's components as the page names and draws them (docs/oregano.md, "Components"): each
// shop kind's name, colour and what its market card prints (build cost, sale prices, dividend);
// the strategy and bonus cards, the resources and the four action kinds. What an action costs and
// pays is never worked out from these: it comes from the server's previews.

import {
  OreganoActionKind,
  OreganoBonus,
  type OreganoCost,
  OreganoResource,
  OreganoShop,
  OreganoStrategyCard,
} from "@mercado/client";

export type Group = "resource" | "general" | "special";

export interface ShopKind {
  name: string;
  /** A short name for a tile: "Café", "Lumber". */
  short: string;
  group: Group;
  colour: string;
  /** What the market card prints: the build cost, the sale price by level, the dividend at level 1. */
  printed: { cost: Partial<OreganoCost>; sale: readonly number[]; dividend?: number };
  produces?: OreganoResource;
}

const general = (base: number): number[] => [base, base + 3, base + 5, base + 8];

export const SHOPS: Readonly<Partial<Record<OreganoShop, ShopKind>>> = {
  [OreganoShop.LUMBER_MERCHANT]: {
    name: "Lumber merchant",
    short: "Lumber",
    group: "resource",
    colour: "#8a5a2b",
    printed: { cost: { gold: 5 }, sale: general(5) },
    produces: OreganoResource.WOOD,
  },
  [OreganoShop.STONE_MERCHANT]: {
    name: "Stone merchant",
    short: "Stone",
    group: "resource",
    colour: "#6f7b86",
    printed: { cost: { gold: 5 }, sale: general(5) },
    produces: OreganoResource.STONE,
  },
  [OreganoShop.METAL_MERCHANT]: {
    name: "Metal merchant",
    short: "Metal",
    group: "resource",
    colour: "#3d6b8e",
    printed: { cost: { gold: 5 }, sale: general(5) },
    produces: OreganoResource.METAL,
  },
  [OreganoShop.CAFE]: { name: "Café", short: "Café", group: "general", colour: "#d9822b", printed: { cost: { wood: 1 }, sale: general(1), dividend: 1 } },
  [OreganoShop.GENERAL_STORE]: {
    name: "General store",
    short: "Store",
    group: "general",
    colour: "#4f9a45",
    printed: { cost: { stone: 1 }, sale: general(1), dividend: 1 },
  },
  [OreganoShop.CLOTHING_STORE]: {
    name: "Clothing store",
    short: "Clothes",
    group: "general",
    colour: "#b0478b",
    printed: { cost: { wood: 1, stone: 1 }, sale: general(2), dividend: 2 },
  },
  [OreganoShop.RESTAURANT]: {
    name: "Restaurant",
    short: "Restaurant",
    group: "general",
    colour: "#c2352b",
    printed: { cost: { wood: 1, stone: 1, metal: 1 }, sale: general(3), dividend: 3 },
  },
  [OreganoShop.FOUNTAIN]: { name: "Fountain", short: "Fountain", group: "special", colour: "#1f9bb0", printed: { cost: { stone: 3, metal: 3 }, sale: [8] } },
  [OreganoShop.JEWELER]: { name: "Jeweler", short: "Jeweler", group: "special", colour: "#7446c2", printed: { cost: { stone: 1, metal: 5 }, sale: [8] } },
  [OreganoShop.CASINO]: { name: "Casino", short: "Casino", group: "special", colour: "#2d2b3a", printed: { cost: { metal: 6 }, sale: [8] } },
  [OreganoShop.BUILDER]: { name: "Builder", short: "Builder", group: "special", colour: "#b8901c", printed: { cost: { wood: 2, stone: 2 }, sale: [5] } },
};

/** What a special shop does, as its card says. */
export const SPECIAL_POWERS: Readonly<Partial<Record<OreganoShop, string>>> = {
  [OreganoShop.FOUNTAIN]: "+1 dividend for each of your general shops",
  [OreganoShop.JEWELER]: "+3 gold for each of your other sales",
  [OreganoShop.CASINO]: "after your turn, roll: 5–6 takes 7 gold from each player, 1–4 pays 5",
  [OreganoShop.BUILDER]: "lets you level up your shops",
};

export const shopName = (shop: OreganoShop): string => SHOPS[shop]?.name ?? "shop";

export const RESOURCES = [OreganoResource.WOOD, OreganoResource.STONE, OreganoResource.METAL] as const;

const RESOURCE_NAMES: Readonly<Record<OreganoResource, string>> = {
  [OreganoResource.UNSPECIFIED]: "?",
  [OreganoResource.WOOD]: "wood",
  [OreganoResource.STONE]: "stone",
  [OreganoResource.METAL]: "metal",
};
export const resourceName = (resource: OreganoResource): string => RESOURCE_NAMES[resource];

/** Resource cards by kind: a count, a cost. */
type Counts = { readonly [K in "wood" | "stone" | "metal"]?: number | undefined };

/** The cards of one resource in a count of resources. */
export function resourceCount(counts: Counts | undefined, resource: OreganoResource): number {
  switch (resource) {
    case OreganoResource.WOOD:
      return counts?.wood ?? 0;
    case OreganoResource.STONE:
      return counts?.stone ?? 0;
    case OreganoResource.METAL:
      return counts?.metal ?? 0;
    default:
      return 0;
  }
}

/** A cost in words: "1 wood, 1 stone", "5 gold"; "free" when it is nothing. */
export function costText(cost: Partial<OreganoCost> | undefined): string {
  const parts = [
    cost?.gold ? `${cost.gold} gold` : "",
    ...RESOURCES.map((resource) => {
      const count = resourceCount(cost, resource);
      return count ? `${count} ${resourceName(resource)}` : "";
    }),
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "free";
}

export interface Words {
  name: string;
  what: string;
}

export const ACTION_KINDS: Readonly<Partial<Record<OreganoActionKind, Words>>> = {
  [OreganoActionKind.ATTRACT]: { name: "Attract", what: "Build a shop in column 1, or level one up a column (with a builder)." },
  [OreganoActionKind.RESOURCE]: { name: "Resource", what: "Take a merchant's cards: as many as its level (another player's: pay them 2 gold)." },
  [OreganoActionKind.SELL]: { name: "Sell", what: "Sell one of your shops to the boulevard for its price in gold." },
  [OreganoActionKind.ACQUIRE]: { name: "Acquire", what: "Buy a shop another player sold, for its price − 1, into its level's column." },
};
export const kindName = (kind: OreganoActionKind): string => ACTION_KINDS[kind]?.name ?? "?";

export const STRATEGIES: Readonly<Partial<Record<OreganoStrategyCard, Words>>> = {
  [OreganoStrategyCard.CHAIN_STORE]: { name: "Chain store", what: "Build two shops of the same kind." },
  [OreganoStrategyCard.STRATEGIC_RETREAT]: { name: "Strategic retreat", what: "Sell twice." },
  [OreganoStrategyCard.AGGRESSIVE_MERGER]: { name: "Aggressive merger", what: "Acquire twice." },
  [OreganoStrategyCard.STEP_BY_STEP]: { name: "Step by step", what: "Level up two different shops." },
  [OreganoStrategyCard.SAVVY_SHOPPER]: { name: "Savvy shopper", what: "Take two different resources from other players' merchants." },
};
export const strategyName = (card: OreganoStrategyCard): string => STRATEGIES[card]?.name ?? "a strategy card";

export const BONUSES: Readonly<Partial<Record<OreganoBonus, Words>>> = {
  [OreganoBonus.FIRST_LEVEL4]: { name: "Level 4", what: "the first shop at level 4" },
  [OreganoBonus.FIRST_STRATEGY]: { name: "Strategist", what: "the first strategy card achieved" },
  [OreganoBonus.FIRST_DIAGONAL]: { name: "Diagonal", what: "the first full diagonal" },
  [OreganoBonus.FIRST_COLUMN]: { name: "Column", what: "the first full column" },
  [OreganoBonus.FIRST_ROW]: { name: "Row", what: "the first full row" },
};
export const bonusName = (bonus: OreganoBonus): string => BONUSES[bonus]?.name ?? "bonus";

/** The cells of an area: levels 1-4 across (its columns), rows a-d down. */
export const LEVELS = [1, 2, 3, 4] as const;
export const ROWS = ["a", "b", "c", "d"] as const;
export const levelOf = (cell: string): number => Number(cell[0]);

/** The enum value of one of the rules' names in an action ("cafe", "attract", "chain_store"). */
function named<E extends Record<string, string | number>>(values: E, name: string): E[keyof E] | undefined {
  const value = values[name.toUpperCase() as keyof E];
  return typeof value === "number" ? value : undefined;
}
export const shopNamed = (name: string): OreganoShop => named(OreganoShop, name) ?? OreganoShop.UNSPECIFIED;
export const kindNamed = (name: string): OreganoActionKind => named(OreganoActionKind, name) ?? OreganoActionKind.UNSPECIFIED;
export const strategyNamed = (name: string): OreganoStrategyCard => named(OreganoStrategyCard, name) ?? OreganoStrategyCard.UNSPECIFIED;
