//! The built-in tools: `calculator` and `get_current_time`.

pub mod calc;

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use crate::{Annotations, Tool, ToolDef, ToolOutput, ToolSource};

fn read_only() -> Annotations {
    Annotations { read_only_hint: Some(true), idempotent_hint: Some(true), ..Default::default() }
}

/// Evaluates arithmetic with a real parser (no `eval`).
pub struct Calculator {
    def: ToolDef,
}

impl Default for Calculator {
    fn default() -> Self {
        Self::new()
    }
}

impl Calculator {
    pub fn new() -> Self {
        Self {
            def: ToolDef {
                name: "calculator".into(),
                description: "Evaluates an arithmetic expression exactly. Supports + - * / % ^ (power), parentheses, unary minus, the functions sqrt sin cos tan log (base 10) ln abs min max, and the constants pi and e. Use it for any calculation instead of computing in your head.".into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {"expression": {"type": "string", "description": "The expression, e.g. \"(2 + 3) * sqrt(16)\""}},
                    "required": ["expression"],
                    "additionalProperties": false
                }),
                annotations: read_only(),
                source: ToolSource::BuiltIn,
            },
        }
    }
}

impl Tool for Calculator {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call(&self, args: Value) -> LocalBoxFuture<'_, ToolOutput> {
        let expr = args.get("expression").and_then(Value::as_str).unwrap_or_default().to_owned();
        Box::pin(async move {
            match calc::evaluate(&expr) {
                Ok(x) => ToolOutput::text(format!("{} = {}", expr.trim(), calc::format_number(x))),
                Err(e) => ToolOutput::error(format!("Could not evaluate \"{expr}\": {e}")),
            }
        })
    }
}

/// A moment in a time zone, as the clock reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ZonedTime {
    /// The IANA name actually used.
    pub zone: String,
    /// e.g. `2026-11-22 18:31:05`
    pub local: String,
    /// e.g. `Sunday`
    pub weekday: String,
    /// e.g. `+08:00`
    pub utc_offset: String,
}

/// The time, and what it is in a zone (the browser's `Intl`, or a fake).
pub trait Clock {
    fn now_ms(&self) -> f64;
    /// `zone: None` is the user's own zone; `Err` names an unknown zone.
    fn zoned(&self, at_ms: f64, zone: Option<&str>) -> Result<ZonedTime, String>;
}

/// Tells the current date and time, in the user's zone or another.
pub struct CurrentTime {
    def: ToolDef,
    clock: Rc<dyn Clock>,
}

impl CurrentTime {
    pub fn new(clock: Rc<dyn Clock>) -> Self {
        Self {
            def: ToolDef {
                name: "get_current_time".into(),
                description: "Returns the current date, time, weekday and UTC offset, in the user's time zone or in the given IANA time zone.".into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {"timezone": {"type": "string", "description": "IANA time zone, e.g. \"Asia/Tokyo\"; omit for the user's own"}},
                    "additionalProperties": false
                }),
                annotations: read_only(),
                source: ToolSource::BuiltIn,
            },
            clock,
        }
    }
}

/// Letters, digits, `/ _ - +`, at most 64 characters: the shape of an IANA name.
fn plausible_zone(zone: &str) -> bool {
    !zone.is_empty() && zone.len() <= 64 && zone.chars().all(|c| c.is_ascii_alphanumeric() || "/_-+".contains(c))
}

impl Tool for CurrentTime {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call(&self, args: Value) -> LocalBoxFuture<'_, ToolOutput> {
        let zone = args.get("timezone").and_then(Value::as_str).map(str::trim).filter(|z| !z.is_empty()).map(str::to_owned);
        Box::pin(async move {
            let unknown = |z: &str| {
                ToolOutput::error(format!("Unknown time zone \"{z}\": use an IANA name such as Europe/Paris or Asia/Tokyo."))
            };
            if let Some(z) = zone.as_deref().filter(|z| !plausible_zone(z)) {
                return unknown(z);
            }
            let now = self.clock.now_ms();
            match self.clock.zoned(now, zone.as_deref()) {
                Ok(t) => ToolOutput::text(format!(
                    "{} {} in {} (UTC{}); {} UTC",
                    t.weekday,
                    t.local,
                    t.zone,
                    t.utc_offset,
                    iso_utc(now)
                )),
                Err(_) => unknown(zone.as_deref().unwrap_or("local")),
            }
        })
    }
}

/// `2026-11-22T10:31:05Z` for milliseconds since the epoch.
pub fn iso_utc(ms: f64) -> String {
    let secs = (ms / 1000.0).floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The built-in tools.
pub fn builtins(clock: Rc<dyn Clock>) -> Vec<Rc<dyn Tool>> {
    vec![Rc::new(Calculator::new()), Rc::new(CurrentTime::new(clock))]
}

#[cfg(test)]
mod tests {
    use super::*;

    struct FakeClock;

    impl Clock for FakeClock {
        fn now_ms(&self) -> f64 {
            1_795_343_465_000.0
        }
        fn zoned(&self, _at: f64, zone: Option<&str>) -> Result<ZonedTime, String> {
            let (zone, local, offset) = match zone {
                None | Some("Europe/Paris") => ("Europe/Paris", "2026-11-22 11:31:05", "+01:00"),
                Some("Asia/Tokyo") => ("Asia/Tokyo", "2026-11-22 19:31:05", "+09:00"),
                Some(other) => return Err(format!("invalid time zone {other}")),
            };
            Ok(ZonedTime { zone: zone.into(), local: local.into(), weekday: "Sunday".into(), utc_offset: offset.into() })
        }
    }

    fn call(tool: &dyn Tool, args: Value) -> ToolOutput {
        pollster::block_on(tool.call(args))
    }

    #[test]
    fn calculator_tool() {
        let c = Calculator::new();
        assert_eq!(call(&c, json!({"expression": "2 + 3 * 4"})), ToolOutput::text("2 + 3 * 4 = 14"));
        let e = call(&c, json!({"expression": "2 +"}));
        assert!(e.is_error && e.model_text().contains("at character 4"), "{e:?}");
    }

    #[test]
    fn time_tool() {
        let t = CurrentTime::new(Rc::new(FakeClock));
        assert_eq!(
            call(&t, json!({"timezone": "Asia/Tokyo"})).model_text(),
            "Sunday 2026-11-22 19:31:05 in Asia/Tokyo (UTC+09:00); 2026-11-22T10:31:05Z UTC"
        );
        assert!(call(&t, json!({})).model_text().contains("Europe/Paris"));
        for bad in ["Mars/Base", "<script>", "x".repeat(80).as_str()] {
            let out = call(&t, json!({"timezone": bad}));
            assert!(out.is_error && out.model_text().starts_with("Unknown time zone"), "{bad}: {out:?}");
        }
    }

    #[test]
    fn iso_dates() {
        assert_eq!(iso_utc(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(951_782_400_000.0), "2000-02-29T00:00:00Z");
        assert_eq!(iso_utc(-1000.0), "1969-12-31T23:59:59Z");
        assert_eq!(iso_utc(4_107_542_399_000.0), "2100-02-28T23:59:59Z");
    }
}
