//! The one-line progress display of long commands (`concord import`, `concord sweep`): count,
//! rate, conflicts found and the time left, redrawn on stderr at most ten times a second
//! while stderr is a terminal, and nothing at all when it is not, so piped output and logs
//! stay clean for scripts.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often the line may be redrawn.
const REDRAW_EVERY: Duration = Duration::from_millis(100);

pub struct Progress {
    /// What is counted, e.g. `imported` or `compared`.
    verb: &'static str,
    total: Option<u64>,
    done: u64,
    conflicts: u64,
    started: Instant,
    drawn: Option<Instant>,
    live: bool,
}

impl Progress {
    /// A display of `verb` out of `total` (when known), shown only on a terminal.
    pub fn new(verb: &'static str, total: Option<u64>) -> Self {
        Self::with_terminal(verb, total, std::io::stderr().is_terminal())
    }

    fn with_terminal(verb: &'static str, total: Option<u64>, live: bool) -> Self {
        Self {
            verb,
            total,
            done: 0,
            conflicts: 0,
            started: Instant::now(),
            drawn: None,
            live,
        }
    }

    /// The total, once it is known (a sweep learns it from the server).
    pub fn set_total(&mut self, total: Option<u64>) {
        self.total = total;
    }

    /// `done` items so far, `conflicts` of them queued or found; redraws when due.
    pub fn set(&mut self, done: u64, conflicts: u64) {
        self.done = done;
        self.conflicts = conflicts;
        self.draw(false);
    }

    /// Draws the last figures and ends the line.
    pub fn finish(&mut self) {
        self.draw(true);
        if self.live && self.drawn.is_some() {
            eprintln!();
        }
    }

    fn draw(&mut self, force: bool) {
        if !self.live {
            return;
        }
        let now = Instant::now();
        if !force && self.drawn.is_some_and(|t| now - t < REDRAW_EVERY) {
            return;
        }
        self.drawn = Some(now);
        let line = render(
            self.verb,
            self.done,
            self.total,
            self.conflicts,
            now - self.started,
        );
        let mut err = std::io::stderr().lock();
        // `\r` and "erase to the end of the line": a shorter line leaves nothing behind.
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
    }
}

/// The progress line: `12,000 / 100,000 imported · 3,150/s · 42 conflicts · 28s left`.
pub fn render(
    verb: &str,
    done: u64,
    total: Option<u64>,
    conflicts: u64,
    elapsed: Duration,
) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
    let mut line = match total {
        Some(t) => format!("{} / {} {verb}", grouped(done), grouped(t)),
        None => format!("{} {verb}", grouped(done)),
    };
    line.push_str(&format!(" · {}/s", grouped(rate.round() as u64)));
    let noun = if conflicts == 1 {
        "conflict"
    } else {
        "conflicts"
    };
    line.push_str(&format!(" · {} {noun}", grouped(conflicts)));
    if let Some(t) = total
        && rate > 0.0
        && t > done
    {
        let left = Duration::from_secs_f64((t - done) as f64 / rate);
        line.push_str(&format!(" · {} left", duration(left)));
    }
    line
}

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A short duration: `42s`, `3m 05s`, `2h 10m`.
pub fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1234567), "1,234,567");
    }

    #[test]
    fn the_line_shows_count_rate_conflicts_and_time_left() {
        let line = render(
            "imported",
            12_000,
            Some(100_000),
            42,
            Duration::from_secs(4),
        );
        assert_eq!(
            line,
            "12,000 / 100,000 imported · 3,000/s · 42 conflicts · 29s left"
        );
        let line = render("compared", 10, None, 1, Duration::from_secs(10));
        assert_eq!(line, "10 compared · 1/s · 1 conflict");
    }

    #[test]
    fn durations_read_in_the_largest_units() {
        assert_eq!(duration(Duration::from_secs(42)), "42s");
        assert_eq!(duration(Duration::from_secs(185)), "3m 05s");
        assert_eq!(duration(Duration::from_secs(7800)), "2h 10m");
    }

    #[test]
    fn off_a_terminal_nothing_is_drawn() {
        let mut p = Progress::with_terminal("imported", Some(10), false);
        p.set(5, 1);
        p.finish();
        assert!(p.drawn.is_none());
        assert_eq!((p.done, p.conflicts), (5, 1));
    }
}
