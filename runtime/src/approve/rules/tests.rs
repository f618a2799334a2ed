use super::*;
use crate::Hints;

#[test]
fn a_wrong_rule_says_which_and_why() {
    let err = |text: &str| Rules::from_toml(text).unwrap_err().to_string();
    assert!(err("[[rule]]\ndecision = \"maybe\"\n").contains("rule 1: `decision = \"maybe\"`"));
    assert!(
        err("[[rule]]\ndecision = \"deny\"\nremember_secs = 5\n").contains("for an `allow` rule")
    );
    assert!(err("[[rule]]\ndecision = \"allow\"\nhints = \"scary\"\n").contains("not a class"));
    assert!(
        err("[[rule]]\ndecision = \"allow\"\nremember = \"forever\"\n")
            .contains("give \"session\"")
    );
    assert!(
        err("[[rule]]\ndecision = \"deny\"\nremember = \"session\"\n")
            .contains("for an `allow` rule")
    );
    assert!(err("[[rule]]\ndecision = \"allow\"\ntools = [\"[\"]\n").contains("tools pattern"));
    assert!(err("[[rule]]\ndecision = \"allow\"\ntool = [\"x\"]\n").contains("tool"));
}

#[test]
fn the_first_matching_rule_decides_by_class_tag_and_caller() {
    let rules = Rules::from_toml(
        "[[rule]]\nhints = \"additive\"\ndecision = \"allow\"\n\
         [[rule]]\ntags = [\"admin\"]\ndecision = \"ask\"\n\
         [[rule]]\nhints = \"destructive\"\ncallers = [\"ops-*\"]\ndecision = \"allow\"\nremember_secs = 60\n\
         [[rule]]\nhints = \"write\"\ndecision = \"deny\"\n",
    )
    .unwrap();
    let create = Approval::new("create", Hints::ADDITIVE);
    assert_eq!(rules.decision(&create), Decision::approve());
    let purge = Approval::new("purge", Hints::DESTRUCTIVE).with_tags(["admin"]);
    assert_eq!(rules.decision(&purge), Decision::Pass);
    let ops = Approval::new("drop", Hints::DESTRUCTIVE)
        .with_caller(crate::context::Caller::new("ops-1", ["x"]));
    assert_eq!(
        rules.decision(&ops),
        Decision::Approve(Remember::For(Duration::from_secs(60)))
    );
    let anyone = Approval::new("drop", Hints::DESTRUCTIVE);
    assert_eq!(rules.decision(&anyone), Decision::deny("a rule denies it"));
    assert_eq!(
        rules.decision(&Approval::new("read", Hints::READ_ONLY)),
        Decision::Pass
    );
    assert_eq!(rules.len(), 4);
}

fn args(value: serde_json::Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

#[test]
fn an_argument_is_matched_as_the_tool_reads_it() {
    let rules = Rules::from_toml(
        "[[rule]]\narguments = { note_id = \"1\" }\ndecision = \"deny\"\nreason = \"kept\"\n\
         [[rule]]\ndecision = \"allow\"\n",
    )
    .unwrap();
    let call = |value: &str| {
        let arguments: serde_json::Value =
            serde_json::from_str(&format!("{{\"note_id\": {value}}}")).unwrap();
        Approval::new("delete_note", Hints::DESTRUCTIVE)
            .with_arguments(arguments.as_object().unwrap().clone())
    };
    for written in ["1", "1.0", "1e0", "1.000", "\"1\""] {
        assert_eq!(
            rules.decision(&call(written)),
            Decision::deny("kept"),
            "{written}"
        );
    }
    // A string is what it says: "1.0" is not "1" (a tool that takes a string reads it so).
    for other in ["\"1.0\"", "\"1e0\"", "1.5", "2", "\"01\""] {
        assert_eq!(rules.decision(&call(other)), Decision::approve(), "{other}");
    }
}

#[test]
fn a_subject_named_anonymous_is_not_the_local_user() {
    let rules = Rules::from_toml(
        "[[rule]]\ncallers = [\"anonymous\"]\ndecision = \"allow\"\n\
         [[rule]]\ncallers = [\"*\"]\ndecision = \"deny\"\nreason = \"token\"\n",
    )
    .unwrap();
    let of = |caller: crate::context::Caller| {
        rules.decision(&Approval::new("t", Hints::DESTRUCTIVE).with_caller(caller))
    };
    assert_eq!(of(crate::context::Caller::anonymous()), Decision::approve());
    let remote = crate::context::Caller::new("anonymous", ["s"]);
    assert_eq!(of(remote), Decision::deny("token"));
    let no_subject = crate::context::Caller::new("", ["s"]);
    assert_eq!(of(no_subject), Decision::deny("token"));
    let bound = Rules::from_toml(
        "[[rule]]\narguments = { folder = \"tmp/*\" }\ndecision = \"allow\"\nremember_secs = 60\n",
    )
    .unwrap();
    let call = Approval::new("t", Hints::DESTRUCTIVE)
        .with_arguments(args(serde_json::json!({"folder": "tmp/a", "n": 1})));
    assert_eq!(
        bound.binds(&call),
        Some(args(serde_json::json!({"folder": "tmp/a"})))
    );
}
