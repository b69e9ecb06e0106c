// The mercado TypeScript client: generated messages and service, and the typed wrapper.
// Transport-agnostic (browser-safe); the Node transport helper is in "./node.js".
export * from "./client.js";
export * from "./random-player.js";
export { VERSION } from "./version.js";
export * from "./gen/mercado/v1/match_pb.js";
export * from "./gen/mercado/v1/mercado_pb.js";
export * from "./gen/mercado/v1/oregano_pb.js";
export * from "./gen/mercado/v1/leilao_pb.js";
export * from "./gen/mercado/v1/players_pb.js";
