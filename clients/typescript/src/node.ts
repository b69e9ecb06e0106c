/**
 * Node-only helpers: a gRPC (HTTP/2) transport to a mercado server, in plain text or TLS.
 * Browsers use `createGrpcWebTransport` from `@connectrpc/connect-web` with MercadoClient instead.
 */

import { readFileSync } from "node:fs";
import type { SecureClientSessionOptions } from "node:http2";

import type { Interceptor, Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager, type Http2SessionOptions } from "@connectrpc/connect-node";
import { MercadoClient, type RetryPolicy } from "./client.js";

export interface ConnectNodeOptions {
  /** Retries of transient failures (the server restarting) and of fair-use refusals; see RetryPolicy. */
  retry?: Partial<RetryPolicy>;
  /** HTTP/2 keep-alive: PING interval and timeout, idle connection timeout. */
  http2?: Http2SessionOptions;
  /**
   * Connect with TLS (as an "https://" target does). Without `ca` or `caFile` the server's
   * certificate is checked against Node's default roots (and NODE_EXTRA_CA_CERTS).
   */
  tls?: boolean;
  /** A CA certificate file (PEM) to trust instead of the default roots; implies TLS. */
  caFile?: string;
  /** CA certificates (PEM text) to trust instead of the default roots; implies TLS. */
  ca?: string | Buffer | readonly (string | Buffer)[];
  /** Connect interceptors around every call (each attempt of a retried one), e.g. for logging. */
  interceptors?: Interceptor[];
}

/**
 * "host:port" or a URL as a base URL: "http://" is plain text, "https://" is TLS, and a bare
 * "host:port" is TLS when `tls` says so.
 */
function baseUrlOf(target: string, tls: boolean): string {
  if (!/^https?:\/\//.test(target)) return `${tls ? "https" : "http"}://${target}`;
  if (tls && target.startsWith("http://")) throw new Error(`TLS options given for the plain-text target ${target}`);
  return target;
}

/** The node:http2 connect options for TLS with the CA of `options` (none: the default roots). */
function tlsOptions(options: ConnectNodeOptions): SecureClientSessionOptions | undefined {
  const ca: (string | Buffer)[] = [];
  if (options.caFile !== undefined) ca.push(readFileSync(options.caFile));
  if (options.ca !== undefined) ca.push(...(Array.isArray(options.ca) ? options.ca : [options.ca as string | Buffer]));
  return ca.length > 0 ? { ca } : undefined;
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

/**
 * Connect to a mercado server at `target` over gRPC: "127.0.0.1:50051" or "http://127.0.0.1:50051"
 * in plain text, "https://host:50051" (or `{ tls: true }`) with TLS, trusting `ca`/`caFile` when
 * given and Node's default roots otherwise. A server whose certificate is not trusted fails
 * every call with Code.Internal, the TLS error (e.g. UNABLE_TO_GET_ISSUER_CERT_LOCALLY) as its
 * cause; it is not retried.
 */
export function connectNode(target: string, options: ConnectNodeOptions = {}): NodeMercadoClient {
  const secure = options.tls === true || options.ca !== undefined || options.caFile !== undefined;
  const baseUrl = baseUrlOf(target, secure);
  const session = new Http2SessionManager(baseUrl, options.http2, baseUrl.startsWith("https:") ? tlsOptions(options) : undefined);
  const transport = createGrpcTransport({ baseUrl, sessionManager: session, interceptors: options.interceptors ?? [] });
  return new NodeMercadoClient(transport, session, options.retry);
}
