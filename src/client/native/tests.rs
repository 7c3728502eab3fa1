use super::*;

#[test]
fn backoff_grows_and_is_capped() {
    let policy = ReconnectPolicy {
        initial_delay: Duration::from_millis(100),
        max_delay: Duration::from_millis(1000),
        multiplier: 3.0,
        max_attempts: None,
    };
    let ms: Vec<u128> = (1..=5).map(|a| policy.delay(a).as_millis()).collect();
    assert_eq!(ms, vec![100, 300, 900, 1000, 1000]);
    let flat = ReconnectPolicy {
        multiplier: 0.5, // below 1 means no growth, never shrinking
        ..policy
    };
    assert_eq!(flat.delay(4).as_millis(), 100);
    assert_eq!(ReconnectPolicy::never().max_attempts, Some(0));
}

#[test]
fn default_options_subscribe_to_root_and_use_websockets() {
    let options = ConnectOptions::default();
    assert_eq!(options.initial_subscriptions, vec!["ahp-root://"]);
    assert_eq!(options.request_timeout, Duration::from_secs(30));
    assert!(options.handlers.is_empty());
}
