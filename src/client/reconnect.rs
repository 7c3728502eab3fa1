//! When to retry a dropped connection: exponential backoff, shared by the native and the JS
//! client.

use std::time::Duration;

/// Reconnection backoff: `initial_delay * multiplier^(attempt - 1)`, capped at `max_delay`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReconnectPolicy {
    /// Delay before the first attempt.
    pub initial_delay: Duration,
    /// Upper bound of the delay.
    pub max_delay: Duration,
    /// Factor applied to the delay after each failed attempt (at least 1).
    pub multiplier: f64,
    /// Attempts before giving up (the client then closes); `None`: never give up.
    pub max_attempts: Option<u32>,
}

impl Default for ReconnectPolicy {
    /// 250 ms, doubling up to 30 s, forever.
    fn default() -> Self {
        ReconnectPolicy {
            initial_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(30),
            multiplier: 2.0,
            max_attempts: None,
        }
    }
}

impl ReconnectPolicy {
    /// Never reconnect.
    pub fn never() -> Self {
        ReconnectPolicy {
            max_attempts: Some(0),
            ..Default::default()
        }
    }

    /// Whether attempt `attempt` (1-based) is past `max_attempts`.
    pub fn gives_up(&self, attempt: u32) -> bool {
        self.max_attempts.is_some_and(|max| attempt > max)
    }

    /// The delay before attempt `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        Duration::from_secs_f64(self.delay_ms(attempt) / 1000.0)
    }

    /// [`delay`](Self::delay) in milliseconds (the JS client's clock unit).
    pub fn delay_ms(&self, attempt: u32) -> f64 {
        let factor = self
            .multiplier
            .max(1.0)
            .powi(attempt.saturating_sub(1) as i32);
        let initial = self.initial_delay.as_secs_f64() * 1000.0;
        let max = self.max_delay.as_secs_f64() * 1000.0;
        (initial * factor).min(max).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_the_cap_and_gives_up_when_told() {
        let policy = ReconnectPolicy {
            initial_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
            multiplier: 3.0,
            max_attempts: Some(4),
        };
        let ms: Vec<f64> = (1..=5).map(|a| policy.delay_ms(a)).collect();
        assert_eq!(ms, [100.0, 300.0, 900.0, 1000.0, 1000.0]);
        assert_eq!(policy.delay(2), Duration::from_millis(300));
        assert!(!policy.gives_up(4) && policy.gives_up(5));
        assert!(ReconnectPolicy::never().gives_up(1));
        assert!(!ReconnectPolicy::default().gives_up(u32::MAX));
    }
}
