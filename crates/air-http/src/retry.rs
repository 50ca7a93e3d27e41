//! When to send a failed request again, and after how long.

/// Retries for requests that may succeed later (rate limits, server
/// errors): honour `Retry-After` up to a limit, otherwise back off
/// exponentially from one second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Most attempts for one request, the first included.
    pub max_attempts: u32,
    /// The first backoff wait; each later one doubles.
    pub first_backoff_ms: u64,
    /// Longest wait honoured from `Retry-After`; a longer one is reported
    /// instead of waited for.
    pub max_wait_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { max_attempts: 4, first_backoff_ms: 1000, max_wait_ms: 60_000 }
    }
}

impl RetryPolicy {
    /// How long to wait before the next attempt after attempt number
    /// `attempt` (the first is 1) failed in a way that is `retryable`,
    /// given the server's `Retry-After` in seconds. `None` means: do not
    /// retry.
    pub fn delay_ms(&self, attempt: u32, retryable: bool, retry_after_s: Option<u64>) -> Option<u64> {
        if !retryable || attempt >= self.max_attempts {
            return None;
        }
        let ms = match retry_after_s {
            Some(s) => s.saturating_mul(1000),
            None => self.first_backoff_ms.saturating_mul(1u64 << attempt.saturating_sub(1).min(16)),
        };
        (ms <= self.max_wait_ms).then_some(ms)
    }
}

/// `Retry-After` in seconds. HTTP dates are not read (there is no clock
/// here); callers fall back to backoff.
pub fn parse_retry_after(value: &str) -> Option<u64> {
    let v = value.trim();
    v.parse::<u64>().ok().or_else(|| v.parse::<f64>().ok().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f.ceil() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_retry_after_wins_within_limits() {
        let p = RetryPolicy::default();
        assert_eq!([1, 2, 3, 4].map(|a| p.delay_ms(a, true, None)), [Some(1000), Some(2000), Some(4000), None]);
        assert_eq!(p.delay_ms(1, true, Some(3)), Some(3000));
        assert_eq!(p.delay_ms(1, true, Some(3600)), None, "too long to wait");
        assert_eq!(p.delay_ms(1, false, Some(1)), None);
    }

    #[test]
    fn retry_after_values() {
        assert_eq!(parse_retry_after(" 7 "), Some(7));
        assert_eq!(parse_retry_after("1.2"), Some(2));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }
}
