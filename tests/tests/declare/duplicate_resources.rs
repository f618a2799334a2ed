//! Two resources with one URI in different modules (the macro catches them in one module)
//! stop startup with an error naming both definitions.

mod first {
    /// The first.
    #[toolsmith::resource(uri = "twin://one")]
    pub fn first_twin() -> String {
        "1".to_owned()
    }
}

mod second {
    /// The second.
    #[toolsmith::resource(uri = "twin://one")]
    pub fn second_twin() -> String {
        "2".to_owned()
    }
}

#[test]
fn duplicate_uris_are_an_error_naming_both_definitions() {
    let err = toolsmith::Registry::from_module(module_path!())
        .err()
        .expect("duplicates are refused");
    let message = err.to_string();
    assert!(
        message.contains("two resources have the URI 'twin://one'"),
        "{message}"
    );
    assert!(
        message.contains("first::first_twin` at tests/tests/declare/duplicate_resources.rs:7"),
        "{message}"
    );
    assert!(
        message.contains("second::second_twin` at tests/tests/declare/duplicate_resources.rs:15"),
        "{message}"
    );
    assert_eq!(first::first_twin() + &second::second_twin(), "12");
}
