use opentelemetry::trace::TraceContextExt;

use super::{configured, parent_of, parent_of_meta};

fn vars<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        set.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[test]
fn traces_are_on_with_an_otlp_endpoint_unless_turned_off() {
    assert!(!configured(vars(&[])));
    assert!(configured(vars(&[(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "http://127.0.0.1:4318"
    )])));
    assert!(configured(vars(&[(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "http://127.0.0.1:4318/v1/traces"
    )])));
    assert!(configured(vars(&[("OTEL_TRACES_EXPORTER", "otlp")])));
    let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
    assert!(!configured(vars(&[
        endpoint,
        ("OTEL_SDK_DISABLED", "TRUE")
    ])));
    assert!(!configured(vars(&[
        endpoint,
        ("OTEL_TRACES_EXPORTER", "none")
    ])));
}

#[test]
fn a_traceparent_is_read_from_meta_and_a_bad_one_is_none() {
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let meta = serde_json::json!({
        "traceparent": format!("00-{trace}-00f067aa0ba902b7-01"),
        "tracestate": "vendor=value",
        "progressToken": 1,
    });
    let context = parent_of_meta(meta.as_object()).expect("a valid traceparent");
    let span = context.span();
    let parent = span.span_context();
    assert_eq!(parent.trace_id().to_string(), trace);
    assert_eq!(parent.span_id().to_string(), "00f067aa0ba902b7");
    assert!(parent.is_sampled() && parent.is_remote());
    assert_eq!(parent.trace_state().get("vendor"), Some("value"));
    for bad in [
        "",
        "00-zz-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    ] {
        assert!(
            parent_of(|key| (key == "traceparent").then_some(bad)).is_none(),
            "{bad:?}"
        );
    }
    assert!(parent_of_meta(serde_json::json!({"traceparent": 7}).as_object()).is_none());
    assert!(parent_of_meta(None).is_none());
}
