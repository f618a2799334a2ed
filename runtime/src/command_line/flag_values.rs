//! What a flag's value may be, for the flags of several files: a boolean as an environment
//! variable spells it.

/// A boolean flag's value from its environment variable: the usual spellings, in any case;
/// empty is false (as if unset).
pub(super) fn boolish(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "0" | "false" | "no" | "off" => Ok(false),
        "1" | "true" | "yes" | "on" => Ok(true),
        _ => Err("expected a boolean: 1/0, true/false, yes/no, on/off".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::boolish;

    #[test]
    fn booleans_take_the_usual_spellings() {
        for yes in ["1", "true", "TRUE", "yes", "Yes", "on", " on "] {
            assert_eq!(boolish(yes), Ok(true), "{yes:?}");
        }
        for no in ["", "0", "false", "False", "no", "off", "OFF"] {
            assert_eq!(boolish(no), Ok(false), "{no:?}");
        }
        for bad in ["2", "maybe", "y es", "truee"] {
            let err = boolish(bad).unwrap_err();
            assert!(err.contains("1/0, true/false, yes/no, on/off"), "{err}");
        }
    }
}
