//! Traces (feature `otel`): a span per HTTP request to the endpoint and one per tool call,
//! through `tracing` and `tracing-opentelemetry`, exported over OTLP (HTTP/protobuf) by
//! OpenTelemetry's batch processor, all configured by OpenTelemetry's own variables
//! (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, ...).
//!
//! A span's parent is the trace context its request carries: `traceparent`/`tracestate` in
//! the request's `_meta` (SEP-414) for a call, the HTTP headers for a request; a call on HTTP
//! without its own is the child of its request's span. Attributes follow OpenTelemetry's
//! conventions for MCP and GenAI tools (`mcp.method.name`, `gen_ai.tool.name`,
//! `jsonrpc.request.id`, `mcp.session.id`, `mcp.protocol.version`, `error.type`) plus
//! toolsmith's own (`toolsmith.hints.*`, `toolsmith.scope`, `toolsmith.category`,
//! `toolsmith.outcome`, `enduser.id`). Arguments and results are never attributes.
//!
//! Whether a span is made is decided first, from the sampler the variables name and the
//! parent's sampled flag (`sampling.rs`): at a ratio of 0 an unsampled request makes no span
//! at all, rather than one the SDK drops at its end.

mod sampling;
mod spans;

use std::sync::OnceLock;

use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::registry::LookupSpan;

use sampling::Sampling;
pub(crate) use spans::{CallSpan, Handoff, call_span, finish_call, read_of, tool_known};
#[cfg(feature = "http")]
pub(crate) use spans::{request_read, request_span, responded};

/// The target of every span toolsmith exports (and the only one the exporter takes).
pub(crate) const TARGET: &str = "toolsmith::otel";

/// The exporter, once set up.
struct Active {
    provider: SdkTracerProvider,
    sampling: Sampling,
}

static ACTIVE: OnceLock<Active> = OnceLock::new();

/// Whether the variables ask for traces: an OTLP endpoint, or `OTEL_TRACES_EXPORTER=otlp`;
/// never with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
fn configured(var: impl Fn(&str) -> Option<String>) -> bool {
    let disabled = var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let exporter = var("OTEL_TRACES_EXPORTER").map(|v| v.trim().to_ascii_lowercase());
    if disabled || exporter.as_deref() == Some("none") {
        return false;
    }
    exporter.as_deref() == Some("otlp")
        || var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
        || var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some()
}

/// The layer that exports toolsmith's spans, when the variables ask for traces, and what
/// makes it active once the subscriber holding it is installed (`activate`).
/// (An error says why traces stay off, for the log once it is installed.)
pub(crate) fn layer<S>() -> Result<Option<(impl Layer<S>, Activation)>, String>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    if !configured(|name| std::env::var(name).ok()) {
        return Ok(None);
    }
    // Off any async runtime: the exporter's HTTP client is a blocking one, for the batch
    // processor's own thread.
    let built = std::thread::spawn(build).join();
    let provider = match built {
        Ok(Ok(provider)) => provider,
        Ok(Err(why)) => return Err(format!("the OTLP exporter could not be made: {why}")),
        Err(_) => return Err("making the OTLP exporter panicked".to_owned()),
    };
    let tracer = provider.tracer("toolsmith");
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_level(false)
        .with_tracked_inactivity(false)
        .with_filter(Targets::new().with_target(TARGET, LevelFilter::TRACE));
    let activation = Activation(Active {
        provider,
        sampling: Sampling::from_env(|name| std::env::var(name).ok()),
    });
    Ok(Some((layer, activation)))
}

/// What turns traces on once the layer's subscriber is installed.
pub(crate) struct Activation(Active);

impl Activation {
    pub(crate) fn activate(self) {
        let _ = ACTIVE.set(self.0);
    }
}

fn build() -> Result<SdkTracerProvider, String> {
    // The exporter's reqwest client panics without a rustls provider.
    crate::tls::install_crypto_provider();
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|err| err.to_string())?;
    let mut resource = opentelemetry_sdk::Resource::builder();
    let named = std::env::var_os("OTEL_SERVICE_NAME").is_some()
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|a| a.contains("service.name="));
    if !named && let Some(program) = program_name() {
        resource = resource.with_service_name(program);
    }
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build())
}

/// The name of the running program, the default `service.name`.
fn program_name() -> Option<String> {
    let path = std::env::current_exe().ok()?;
    Some(path.file_stem()?.to_string_lossy().into_owned())
}

/// Sends every span that ended and waits for the export (at the end of serving), on a
/// blocking thread: the exporter blocks (at most the SDK's flush timeout, 5 s).
pub(crate) async fn flush() {
    if let Some(active) = ACTIVE.get() {
        let provider = active.provider.clone();
        let _ = tokio::task::spawn_blocking(move || provider.force_flush()).await;
    }
}

/// Whether a span is wanted under `parent` (a trace context a request carried).
fn wanted(parent: Option<&Context>) -> bool {
    let Some(active) = ACTIVE.get() else {
        return false;
    };
    let sampled = parent.and_then(|cx| {
        let span = cx.span();
        let context = span.span_context();
        context.is_valid().then(|| context.is_sampled())
    });
    active.sampling.wants(sampled)
}

/// Whether traces are exported at all.
pub(crate) fn active() -> bool {
    ACTIVE.get().is_some()
}

/// A request's `traceparent` and `tracestate`.
struct Carrier<'a> {
    traceparent: Option<&'a str>,
    tracestate: Option<&'a str>,
}

impl Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent,
            "tracestate" => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

/// The W3C trace context `get` finds (`None` without a valid `traceparent`).
fn parent_of<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Option<Context> {
    let carrier = Carrier {
        traceparent: Some(get("traceparent")?),
        tracestate: get("tracestate"),
    };
    let context = TraceContextPropagator::new().extract(&carrier);
    context.span().span_context().is_valid().then_some(context)
}

/// The trace context of a request's `_meta` (SEP-414: `traceparent`, `tracestate`).
fn parent_of_meta(meta: Option<&serde_json::Map<String, serde_json::Value>>) -> Option<Context> {
    let meta = meta?;
    parent_of(|key| meta.get(key).and_then(|value| value.as_str()))
}

#[cfg(test)]
mod tests;
