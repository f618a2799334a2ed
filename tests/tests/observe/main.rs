//! What an operator observes: Prometheus metrics and OpenTelemetry traces of a running
//! server, and tasks kept in Redis across replicas (Debian's redis-server, on loopback).
//! Built with the `observe` feature (the exporters and the Redis store).

mod approvals;
mod approvals_redis;
mod conventions;
mod metrics;
mod store_state_redis;
mod task_store_redis;
mod traces;
