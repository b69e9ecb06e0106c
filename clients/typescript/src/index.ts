// The mercado TypeScript client: generated messages and service, and the typed wrapper.
// Transport-agnostic (browser-safe); the Node transport helper is in "./node.js".
export { Code, ConnectError } from "@connectrpc/connect";
// What a program needs of protobuf-es for the messages: building, comparing, and their JSON form.
export { create, equals, fromJson, fromJsonString, toJson, toJsonString } from "@bufbuild/protobuf";
export * from "./client.js";
export * from "./state.js";
export * from "./random-player.js";
export { VERSION } from "./version.js";
export * from "./gen/mercado/v1/match_pb.js";
export * from "./gen/mercado/v1/mercado_pb.js";
export * from "./gen/mercado/v1/oregano_pb.js";
export * from "./gen/mercado/v1/leilao_pb.js";
export * from "./gen/mercado/v1/players_pb.js";
export * from "./gen/mercado/v1/score_pb.js";
