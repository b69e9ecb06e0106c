/**
 * Node-only helpers: a gRPC (HTTP/2) transport to a mercado server.
 * Browsers use `createGrpcWebTransport` from `@connectrpc/connect-web` with MercadoClient instead.
 */

import type { Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager, type Http2SessionOptions } from "@connectrpc/connect-node";
import { MercadoClient, type RetryPolicy } from "./client.js";

export interface ConnectNodeOptions {
  /** Retries of transient failures (the server restarting); see RetryPolicy. */
  retry?: Partial<RetryPolicy>;
  /** HTTP/2 keep-alive: PING interval and timeout, idle connection timeout. */
  http2?: Http2SessionOptions;
}

/** "host:port" or a URL ("http://host:port") as a base URL; plain text (no TLS) unless https. */
function baseUrlOf(target: string): string {
  return /^https?:\/\//.test(target) ? target : `http://${target}`;
}

/** A MercadoClient over one HTTP/2 connection; close() ends the connection and every call on it. */
export class NodeMercadoClient extends MercadoClient {
  constructor(
    transport: Transport,
    private readonly session: Http2SessionManager,
    retry: Partial<RetryPolicy> = {},
  ) {
    super(transport, retry);
  }

  close(): void {
    this.session.abort();
  }
}

/** Connect to a mercado server at `target` ("127.0.0.1:50051" or "http://127.0.0.1:50051") over gRPC. */
export function connectNode(target: string, options: ConnectNodeOptions = {}): NodeMercadoClient {
  const baseUrl = baseUrlOf(target);
  const session = new Http2SessionManager(baseUrl, options.http2);
  const transport = createGrpcTransport({ baseUrl, sessionManager: session });
  return new NodeMercadoClient(transport, session, options.retry);
}
