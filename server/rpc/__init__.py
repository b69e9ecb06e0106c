"""The gRPC transport: servicer, conversions, error mapping, server factory."""
