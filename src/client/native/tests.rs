use super::*;

#[test]
fn default_options_subscribe_to_root_and_use_websockets() {
    let options = ConnectOptions::default();
    assert_eq!(options.initial_subscriptions, vec!["ahp-root://"]);
    assert_eq!(options.request_timeout, Duration::from_secs(30));
    assert!(options.handlers.is_empty());
}
