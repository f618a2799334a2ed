//! Whether a span is worth making: the sampler `OTEL_TRACES_SAMPLER` (and its
//! `OTEL_TRACES_SAMPLER_ARG`) names, read as the SDK reads it, asked before any span exists.
//! Only a certain no is acted on (never sampled: `always_off`, a ratio of 0, a parent-based
//! sampler under an unsampled parent); anything else makes the span, and the SDK's own
//! sampler decides at its end, as it always does.

/// The sampler, as far as deciding ahead needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Sampling {
    /// Every root; with `parent_based`, a child follows its parent's flag.
    Root { never: bool, parent_based: bool },
}

impl Sampling {
    /// The sampler the variables name (the SDK's default, `parentbased_always_on`, when
    /// unset or unknown).
    pub(super) fn from_env(var: impl Fn(&str) -> Option<String>) -> Sampling {
        // Exactly as the SDK matches them: no trimming, no case folding (anything else is
        // its default, which samples).
        let name = var("OTEL_TRACES_SAMPLER");
        // A missing or bad ratio is 1.0 to the SDK.
        let ratio = var("OTEL_TRACES_SAMPLER_ARG")
            .and_then(|arg| arg.parse::<f64>().ok())
            .filter(|r| (0.0..=1.0).contains(r))
            .unwrap_or(1.0);
        let (never, parent_based) = match name.as_deref() {
            Some("always_on") => (false, false),
            Some("always_off") => (true, false),
            Some("traceidratio") => (ratio <= 0.0, false),
            Some("parentbased_always_off") => (true, true),
            Some("parentbased_traceidratio") => (ratio <= 0.0, true),
            _ => (false, true),
        };
        Sampling::Root {
            never,
            parent_based,
        }
    }

    /// Whether a span under a parent whose sampled flag is `parent` (`None`: no parent) may
    /// be sampled.
    pub(super) fn wants(self, parent: Option<bool>) -> bool {
        let Sampling::Root {
            never,
            parent_based,
        } = self;
        match parent {
            Some(sampled) if parent_based => sampled,
            _ => !never,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sampling;

    fn of(sampler: Option<&str>, arg: Option<&str>) -> Sampling {
        Sampling::from_env(|name| match name {
            "OTEL_TRACES_SAMPLER" => sampler.map(str::to_owned),
            "OTEL_TRACES_SAMPLER_ARG" => arg.map(str::to_owned),
            _ => None,
        })
    }

    #[test]
    fn a_ratio_of_zero_makes_no_root_span_and_follows_a_sampled_parent() {
        let zero = of(Some("parentbased_traceidratio"), Some("0"));
        assert!(!zero.wants(None));
        assert!(zero.wants(Some(true)));
        assert!(!zero.wants(Some(false)));
        // Not parent-based: a parent changes nothing.
        let bare = of(Some("traceidratio"), Some("0.0"));
        assert!(!bare.wants(None) && !bare.wants(Some(true)));
    }

    #[test]
    fn anything_but_a_certain_no_makes_the_span() {
        // The SDK's default: parent-based, always on.
        let default = of(None, None);
        assert!(default.wants(None) && default.wants(Some(true)) && !default.wants(Some(false)));
        assert!(of(Some("always_on"), None).wants(Some(false)));
        assert!(!of(Some("always_off"), None).wants(Some(true)));
        assert!(of(Some("traceidratio"), Some("0.25")).wants(None));
        // A bad or missing ratio is 1.0, as the SDK reads it.
        assert!(of(Some("traceidratio"), Some("lots")).wants(None));
        assert!(of(Some("parentbased_traceidratio"), None).wants(None));
        // Read as the SDK reads them: a name in another case, or a ratio with spaces, is not
        // what it acts on, so it samples and so do we.
        assert!(of(Some("TraceIdRatio"), Some("0")).wants(None));
        assert!(of(Some("traceidratio"), Some(" 0")).wants(None));
        assert!(of(Some("jaeger_remote"), None).wants(None));
    }
}
