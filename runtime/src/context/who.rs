//! [`Who`]: one entry of a list of callers (an approval rule's `callers`, a sign-in scope
//! restriction's `WHO`s), and whether a [`Caller`] is it. The one place that matching lives.

use super::Caller;

/// One entry of a list of callers, as written:
///
/// | entry | who |
/// |---|---|
/// | `anonymous` | the local user (no token); only among an approval rule's `callers` |
/// | `subject:PATTERN` | a token whose subject (`sub`) matches the glob (`subject:` alone: a token without one) |
/// | `email:LOCAL@DOMAIN` | a token whose verified email matches: LOCAL by glob, DOMAIN by glob without regard to case |
/// | `group:NAME` | a token whose `groups` claim holds NAME, exactly |
/// | `issuer:URL` | a token vouched for by URL, exactly ([`Caller::issuer`]: the upstream provider, else `iss`) |
/// | `PATTERN` (no kind) | among an approval rule's `callers` only: a glob of the subject, as `subject:PATTERN` |
///
/// The local user matches `anonymous` only: never a subject, email, group or issuer entry.
#[derive(Clone, Debug)]
pub(crate) enum Who {
    Local,
    Subject(glob::Pattern),
    Email {
        local: glob::Pattern,
        domain: glob::Pattern,
    },
    Group(String),
    Issuer(String),
}

/// The word that names the local user among an approval rule's `callers`.
const LOCAL: &str = "anonymous";

/// The kinds an entry may name, as the errors list them.
const KINDS: &str = "email:PATTERN, group:NAME, issuer:URL or subject:PATTERN";

impl Who {
    /// Reads one entry. With `bare_is_subject` (an approval rule's `callers`), `anonymous`
    /// is the local user and an entry that names no known kind is a subject pattern (so
    /// that a subject such as `github:42` keeps working); without it (a sign-in
    /// restriction), every entry names its kind.
    pub(crate) fn parse(entry: &str, bare_is_subject: bool) -> Result<Who, String> {
        let glob = |pattern: &str| {
            glob::Pattern::new(pattern).map_err(|err| format!("{entry:?}: pattern {err}"))
        };
        let kinded = entry.split_once(':').and_then(|(kind, value)| match kind {
            "subject" => Some(glob(value).map(Who::Subject)),
            "email" => Some(Who::email(entry, value)),
            "group" | "issuer" if value.is_empty() => {
                Some(Err(format!("{entry:?}: give the {kind} after `{kind}:`")))
            }
            "group" => Some(Ok(Who::Group(value.to_owned()))),
            "issuer" => Some(Ok(Who::Issuer(value.to_owned()))),
            _ => None,
        });
        match kinded {
            Some(who) => who,
            None if bare_is_subject && entry == LOCAL => Ok(Who::Local),
            None if bare_is_subject => glob(entry).map(Who::Subject),
            None => match entry.split_once(':') {
                Some((kind, _)) => Err(format!("{entry:?}: no kind `{kind}:`; give {KINDS}")),
                None => Err(format!("{entry:?} names no kind; give {KINDS}")),
            },
        }
    }

    /// `email:LOCAL@DOMAIN`, split at its last `@`.
    fn email(entry: &str, pattern: &str) -> Result<Who, String> {
        let Some((local, domain)) = pattern.rsplit_once('@') else {
            return Err(format!(
                "{entry:?}: an email pattern is LOCAL@DOMAIN, e.g. email:*@example.com"
            ));
        };
        if local.is_empty() || domain.is_empty() {
            return Err(format!(
                "{entry:?}: both sides of the `@` are needed, e.g. email:*@example.com"
            ));
        }
        let glob = |pattern: &str| {
            glob::Pattern::new(pattern).map_err(|err| format!("{entry:?}: pattern {err}"))
        };
        Ok(Who::Email {
            local: glob(local)?,
            domain: glob(domain)?,
        })
    }

    /// Whether `caller` is this entry.
    pub(crate) fn matches(&self, caller: &Caller) -> bool {
        // The local user is a caller of its own, never a token's subject (not even one that
        // says "anonymous"), email, group or issuer.
        let local = caller.is_anonymous();
        match self {
            Who::Local => local,
            _ if local => false,
            Who::Subject(pattern) => pattern.matches(caller.subject().unwrap_or("")),
            Who::Email {
                local: local_part,
                domain,
            } => caller
                .email()
                .and_then(|email| email.rsplit_once('@'))
                .is_some_and(|(user, host)| {
                    let anycase = glob::MatchOptions {
                        case_sensitive: false,
                        ..glob::MatchOptions::new()
                    };
                    local_part.matches(user) && domain.matches_with(host, anycase)
                }),
            Who::Group(name) => caller.groups().contains(&name.as_str()),
            Who::Issuer(url) => caller.issuer() == Some(url.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caller(sub: &str, claims: serde_json::Value) -> Caller {
        Caller::new(sub, ["tools:read"]).with_claims(claims.as_object().unwrap().clone())
    }

    fn who(entry: &str) -> Who {
        Who::parse(entry, false).unwrap()
    }

    #[test]
    fn an_email_entry_matches_the_verified_email_and_any_case_of_its_domain() {
        let domain = who("email:*@example.com");
        let alice = |email: &str, verified: serde_json::Value| {
            caller("a", json!({"email": email, "email_verified": verified}))
        };
        assert!(domain.matches(&alice("alice@example.com", json!(true))));
        assert!(domain.matches(&alice("alice@EXAMPLE.Com", json!(true))));
        assert!(domain.matches(&alice("alice@example.com", json!(null))));
        assert!(!domain.matches(&alice("alice@example.com", json!(false))));
        assert!(!domain.matches(&alice("alice@example.com", json!("false"))));
        assert!(!domain.matches(&alice("alice@example.com.evil.org", json!(true))));
        assert!(!domain.matches(&alice("alice@sub.example.com", json!(true))));
        assert!(!domain.matches(&alice("example.com", json!(true))));
        assert!(!domain.matches(&caller("a", json!({}))));
        // The part before the `@` keeps its case.
        let one = who("email:alice@example.com");
        assert!(one.matches(&alice("alice@Example.COM", json!(true))));
        assert!(!one.matches(&alice("Alice@example.com", json!(true))));
    }

    #[test]
    fn group_issuer_and_subject_entries_match_exactly_what_they_name() {
        let admin = caller(
            "alice",
            json!({"iss": "http://127.0.0.1:8123", "idp": "https://idp.example", "groups": ["admins", "ops"]}),
        );
        assert!(who("group:admins").matches(&admin));
        assert!(!who("group:admin").matches(&admin));
        assert!(!who("group:Admins").matches(&admin));
        assert!(who("issuer:https://idp.example").matches(&admin));
        assert!(!who("issuer:http://127.0.0.1:8123").matches(&admin));
        assert!(!who("issuer:https://idp.example/").matches(&admin));
        assert!(who("subject:ali*").matches(&admin));
        assert!(!who("subject:bob").matches(&admin));
    }

    #[test]
    fn the_local_user_is_anonymous_and_nothing_else() {
        let local = Caller::anonymous();
        assert!(Who::parse("anonymous", true).unwrap().matches(&local));
        for entry in ["*", "subject:*", "email:*@*", "group:", "issuer:x"] {
            if let Ok(entry) = Who::parse(entry, true) {
                assert!(!entry.matches(&local), "{entry:?}");
            }
        }
        let token = caller("anonymous", json!({}));
        assert!(!Who::parse("anonymous", true).unwrap().matches(&token));
    }

    #[test]
    fn an_entry_that_cannot_be_read_says_why() {
        let err = |entry: &str, bare| Who::parse(entry, bare).unwrap_err();
        assert!(err("alice", false).contains("names no kind"));
        assert!(err("anonymous", false).contains("names no kind"));
        assert!(err("role:admin", false).contains("no kind `role:`"));
        assert!(err("email:example.com", true).contains("LOCAL@DOMAIN"));
        assert!(err("email:@example.com", true).contains("both sides"));
        assert!(err("group:", true).contains("give the group"));
        assert!(err("issuer:", true).contains("give the issuer"));
        assert!(err("subject:[", true).contains("pattern"));
        assert!(err("[", true).contains("pattern"));
        // Among `callers`, an unknown kind is a subject pattern, as before.
        let github = Who::parse("github:42", true).unwrap();
        assert!(github.matches(&caller("github:42", json!({}))));
    }
}
