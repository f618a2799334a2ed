use super::*;

fn limits() -> Limits {
    Limits {
        header: Duration::from_secs(10),
        idle: Duration::from_secs(60),
        max_connections: 1,
    }
}

#[tokio::test(start_paused = true)]
async fn a_connection_owes_a_head_then_waits_idle_between_requests() {
    let limits = limits();
    let clock = Arc::new(Clock::new(&limits));
    assert_eq!(clock.deadline(&limits), clock.opened + limits.header);
    let busy = Busy::start(clock.clone());
    tokio::time::advance(Duration::from_secs(100)).await;
    // While answering, no deadline has come.
    assert!(clock.deadline(&limits) > Instant::now());
    drop(busy);
    assert_eq!(clock.deadline(&limits), Instant::now() + limits.idle);
    tokio::time::advance(Duration::from_secs(5)).await;
    clock.read();
    assert_eq!(clock.deadline(&limits), Instant::now() + limits.header);
    // More bytes of the same head do not move its deadline.
    tokio::time::advance(Duration::from_secs(5)).await;
    clock.read();
    assert_eq!(
        clock.deadline(&limits),
        Instant::now() + Duration::from_secs(5)
    );
}

#[tokio::test(start_paused = true)]
async fn idle_time_counts_from_the_last_byte_written() {
    let limits = limits();
    let clock = Arc::new(Clock::new(&limits));
    drop(Busy::start(clock.clone()));
    // The response's last bytes leave 50 s after hyper let go of its body.
    tokio::time::advance(Duration::from_secs(50)).await;
    clock.wrote();
    assert_eq!(clock.deadline(&limits), Instant::now() + limits.idle);
    // A limit too long to add is no panic.
    let forever = Limits {
        idle: Duration::MAX,
        ..limits
    };
    assert!(clock.deadline(&forever) > Instant::now());
}

#[test]
fn the_default_cap_fits_the_file_descriptor_limit() {
    let cap = default_max_connections() as u64;
    assert!((16..=16_384).contains(&cap), "{cap}");
    assert!(cap < fd_limit(), "{cap}");
}
