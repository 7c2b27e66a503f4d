//! Failed keys, counted per client address: after [`MAX_FAILURES`] within [`WINDOW`], a
//! failing key from that address gets 429 `/problems/too-many-failed-keys` with
//! `Retry-After` until the window ends. Only failures are counted and only failing requests
//! are refused, so a valid key is never slowed, from any address (also not from one an
//! attacker shares). An IPv6 client counts by its /64, which one host usually holds whole.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed keys an address may send per window before it is refused.
pub const MAX_FAILURES: u32 = 10;
/// The window failures are counted in.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Addresses tracked at most; beyond it windows that ended go first, then any.
const MAX_TRACKED: usize = 100_000;

#[derive(Default)]
pub struct Throttle {
    windows: Mutex<HashMap<Option<IpAddr>, Window>>,
}

struct Window {
    start: Instant,
    failures: u32,
}

impl Throttle {
    /// Counts a failed key from `addr` (`None`: the address is unknown, as for in-process
    /// requests); returns the seconds to wait when the address is over the limit.
    pub fn failed(&self, addr: Option<IpAddr>) -> Option<u64> {
        let addr = addr.map(bucket);
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= MAX_TRACKED && !windows.contains_key(&addr) {
            windows.retain(|_, w| w.start.elapsed() < WINDOW);
            if windows.len() >= MAX_TRACKED {
                windows.clear();
            }
        }
        let now = Instant::now();
        let w = windows.entry(addr).or_insert(Window {
            start: now,
            failures: 0,
        });
        if now.duration_since(w.start) >= WINDOW {
            *w = Window {
                start: now,
                failures: 0,
            };
        }
        w.failures += 1;
        (w.failures > MAX_FAILURES).then(|| {
            let left = WINDOW.saturating_sub(now.duration_since(w.start));
            (left.as_secs() + u64::from(left.subsec_nanos() > 0)).max(1)
        })
    }
}

/// The address failures are counted under: IPv4 whole, IPv6 by its /64.
fn bucket(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(_) => addr,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_refused_after_its_failures_and_others_are_not() {
        let t = Throttle::default();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        for _ in 0..MAX_FAILURES {
            assert_eq!(t.failed(Some(a)), None);
        }
        let wait = t.failed(Some(a)).expect("refused");
        assert!((1..=60).contains(&wait));
        assert_eq!(t.failed(Some(b)), None);
    }

    #[test]
    fn an_ipv6_host_counts_by_its_64() {
        let x: IpAddr = "2001:db8::1".parse().unwrap();
        let y: IpAddr = "2001:db8::2".parse().unwrap();
        assert_eq!(bucket(x), bucket(y));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(bucket(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }
}
