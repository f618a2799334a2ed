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

/// A signed-in caller as the sign-in's own tokens describe it.
fn signed_in(sub: &str, claims: serde_json::Value) -> crate::context::Caller {
    let mut all = args(serde_json::json!({"iss": "http://127.0.0.1:8123", "sub": sub}));
    all.extend(args(claims));
    crate::context::Caller::new(sub, ["tools:destructive"]).with_claims(all)
}

#[test]
fn callers_are_told_apart_by_email_group_and_issuer() {
    let rules = Rules::from_toml(
        "[[rule]]\ncallers = [\"email:*@example.com\", \"group:admins\"]\ndecision = \"allow\"\n\
         [[rule]]\ncallers = [\"issuer:https://accounts.google.com\"]\ndecision = \"ask\"\n\
         [[rule]]\ncallers = [\"*\", \"anonymous\"]\ndecision = \"deny\"\nreason = \"staff only\"\n",
    )
    .unwrap();
    let of =
        |caller| rules.decision(&Approval::new("drop", Hints::DESTRUCTIVE).with_caller(caller));
    let github = "https://github.com";
    // Same provider, same kind of token: the email or the groups decide.
    let ann = signed_in(
        "1",
        serde_json::json!({"idp": github, "email": "ann@Example.COM", "email_verified": true, "groups": ["staff"]}),
    );
    let bob = signed_in(
        "2",
        serde_json::json!({"idp": github, "email": "bob@other.org", "email_verified": true, "groups": ["staff"]}),
    );
    let root = signed_in(
        "3",
        serde_json::json!({"idp": github, "email": "root@other.org", "groups": ["admins"]}),
    );
    assert_eq!(of(ann), Decision::approve());
    assert_eq!(of(bob), Decision::deny("staff only"));
    assert_eq!(of(root), Decision::approve());
    // An email the provider did not verify is no email.
    let unverified = signed_in(
        "4",
        serde_json::json!({"idp": github, "email": "eve@example.com", "email_verified": false}),
    );
    assert_eq!(of(unverified), Decision::deny("staff only"));
    // The upstream provider (`idp`) is the issuer, not the sign-in that relayed it.
    let google = signed_in(
        "5",
        serde_json::json!({"idp": "https://accounts.google.com"}),
    );
    assert_eq!(of(google), Decision::Pass);
    // The local user is never an email, a group or an issuer.
    assert_eq!(
        of(crate::context::Caller::anonymous()),
        Decision::deny("staff only")
    );
}

#[test]
fn a_callers_entry_that_cannot_be_read_says_which_rule_and_why() {
    let err = |callers: &str| {
        Rules::from_toml(&format!(
            "[[rule]]\ndecision = \"allow\"\n[[rule]]\ncallers = [{callers}]\ndecision = \"allow\"\n"
        ))
        .unwrap_err()
        .to_string()
    };
    let why = err("\"email:example.com\"");
    assert!(
        why.starts_with("rule 2: callers \"email:example.com\"") && why.contains("LOCAL@DOMAIN"),
        "{why}"
    );
    assert!(err("\"group:\"").contains("give the group"));
    assert!(err("\"issuer:\"").contains("give the issuer"));
    assert!(err("\"[\"").contains("callers \"[\": pattern"));
    // `subject:` names a subject that looks like another kind.
    let rules =
        Rules::from_toml("[[rule]]\ncallers = [\"subject:email:*\"]\ndecision = \"allow\"\n")
            .unwrap();
    let odd = Approval::new("t", Hints::DESTRUCTIVE)
        .with_caller(crate::context::Caller::new("email:x", ["s"]));
    assert_eq!(rules.decision(&odd), Decision::approve());
}
