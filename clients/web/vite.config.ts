// Builds the page into dist/, which `mercado serve` serves on its web port.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const typescriptClient = fileURLToPath(new URL("../typescript/src/index.ts", import.meta.url));

export default defineConfig({
  resolve: {
    // The TypeScript client's source, compiled into the page (it is transport-agnostic).
    alias: { "@mercado/client": typescriptClient },
    // One copy of the runtime, this package's, also for the client's source outside this folder.
    dedupe: ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web"],
  },
  build: { target: "es2022", outDir: "dist", emptyOutDir: true },
  // `npm run dev`: the page with hot reload; calls go to a `mercado serve` on the default web port.
  server: {
    fs: { allow: [".."] },
    proxy: { "/mercado.v1.MatchService": process.env.MERCADO_WEB_URL ?? "http://127.0.0.1:8080" },
  },
});
