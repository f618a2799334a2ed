use std::collections::HashSet;

use super::*;

#[test]
fn a_budget_is_per_session_and_released_uris_free_it() {
    let mut inner = Inner::<()>::default();
    let holds = |inner: &mut Inner<()>, key: Key, uri: &str| inner.hold(key, uri, &());
    for n in 0..MAX_SUBSCRIPTIONS {
        let key = (1, (n % 3) as u64);
        assert_eq!(holds(&mut inner, key, &format!("x://{n}")), Ok(()));
    }
    assert_eq!(holds(&mut inner, (1, 7), "x://more"), Err(Refused::Full));
    assert_eq!(holds(&mut inner, (1, 0), "x://0"), Ok(()), "held already");
    assert_eq!(
        holds(&mut inner, (2, 0), "x://other"),
        Ok(()),
        "another session"
    );
    inner.release((1, 0), "x://0");
    assert_eq!(holds(&mut inner, (1, 7), "x://more"), Ok(()));
    let long = format!("x://{}", "a".repeat(MAX_SUBSCRIBED_URI));
    assert_eq!(holds(&mut inner, (2, 0), &long), Err(Refused::TooLong));
    inner.drop_listener((1, 1));
    assert_eq!(inner.counts[&1], MAX_SUBSCRIPTIONS - MAX_SUBSCRIPTIONS / 3);
    for key in [(1, 0), (1, 2), (1, 7)] {
        inner.drop_listener(key);
    }
    assert!(!inner.counts.contains_key(&1));
    assert!(inner.by_uri.keys().all(|uri| uri == "x://other"));
    assert_eq!(inner.total, 1);
}

#[test]
fn the_server_holds_at_most_its_total_over_all_sessions() {
    let mut inner = Inner::<()>::default();
    let per_session = MAX_SUBSCRIPTIONS;
    for n in 0..MAX_SUBSCRIPTIONS_TOTAL {
        let key = ((n / per_session) as u64, 0);
        assert_eq!(inner.hold(key, &format!("x://{n}"), &()), Ok(()), "{n}");
    }
    let fresh = (u64::MAX, 0);
    assert_eq!(
        inner.hold(fresh, "x://one-more", &()),
        Err(Refused::ServerFull)
    );
    inner.drop_listener((0, 0));
    assert_eq!(inner.total, MAX_SUBSCRIPTIONS_TOTAL - per_session);
    assert_eq!(inner.hold(fresh, "x://one-more", &()), Ok(()));
}

#[test]
fn a_session_that_ends_drops_all_it_holds_and_nothing_of_others() {
    let mut inner = Inner::<()>::default();
    for session in [1, 2, 3] {
        for stream in [0, 1, u64::MAX] {
            let key = (session, stream);
            assert_eq!(
                inner.hold(key, &format!("x://{session}/{stream}"), &()),
                Ok(())
            );
            inner.hold(key, "x://shared", &()).unwrap();
            inner.lists.insert(key, ());
            inner.prompt_lists.insert(key, ());
        }
        // One that only hears the tool list.
        inner.tool_lists.insert((session, 7), ());
    }
    inner.drop_session(2);
    let sessions = |keys: Vec<Key>| keys.into_iter().map(|key| key.0).collect::<HashSet<_>>();
    let others: HashSet<u64> = [1, 3].into();
    assert_eq!(sessions(inner.held.keys().copied().collect()), others);
    assert_eq!(sessions(inner.lists.keys().copied().collect()), others);
    assert_eq!(
        sessions(inner.prompt_lists.keys().copied().collect()),
        others
    );
    assert_eq!(sessions(inner.tool_lists.keys().copied().collect()), others);
    assert_eq!(
        sessions(inner.by_uri["x://shared"].keys().copied().collect()),
        others
    );
    assert!(!inner.by_uri.contains_key("x://2/0") && !inner.by_uri.contains_key("x://2/1"));
    assert!(!inner.counts.contains_key(&2));
    assert_eq!(
        inner.total,
        2 * 3 * 2,
        "two sessions, three listeners, two URIs each"
    );
}
