//! The built-in tools: `calculator` and `get_current_time`.
//!
//! Neither reads a clock itself: the time tool asks a [`Clock`], which the
//! browser implements with `Date.now()` and `Intl.DateTimeFormat` (so the
//! time zone database stays in the browser, not in the bundle) and tests
//! implement with a table.

pub mod calc;

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use crate::{Annotations, CallContext, Tool, ToolDef, ToolOutput, ToolSource};

/// Both built-ins only read, and give the same answer for the same input
/// (the time tool at the same moment), so they run without asking.
fn read_only() -> Annotations {
    Annotations { read_only_hint: Some(true), idempotent_hint: Some(true), ..Default::default() }
}

/// Evaluates arithmetic with a real parser ([`calc`]; no `eval`).
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
                description: "Evaluates an arithmetic expression. Supports numbers such as 2.5 and 1e3, + - * / % (remainder), ^ or ** (power), parentheses, unary minus, the functions sqrt sin cos tan (radians) log (base 10) ln abs min max (min and max take one or more arguments), and the constants pi and e. Use it for any calculation instead of computing in your head.".into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {"expression": {"type": "string", "description": "The expression, e.g. \"(2 + 3) * sqrt(16)\""}},
                    "required": ["expression"],
                    "additionalProperties": false
                }),
                annotations: read_only(),
                source: ToolSource::BuiltIn,
                mcp: None,
            },
        }
    }
}

impl Tool for Calculator {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        // Arguments arrive validated; this is for callers that skip that.
        let Some(expr) = args.get("expression").and_then(Value::as_str).map(str::to_owned) else {
            return Box::pin(async { ToolOutput::error("The calculator needs the expression as a string: {\"expression\": \"2 + 2\"}.") });
        };
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
    /// The IANA name actually used (the user's own zone resolved).
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
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> f64;
    /// `at_ms` in `zone`; `zone: None` is the user's own zone. `Err` means
    /// the zone is unknown (the text says why).
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
                mcp: None,
            },
            clock,
        }
    }
}

/// Letters, digits, `/ _ - +`, at most 64 characters: the shape of an IANA
/// name (`America/Argentina/Buenos_Aires`, `Etc/GMT+5`). Anything else is
/// refused before it reaches the clock.
fn plausible_zone(zone: &str) -> bool {
    !zone.is_empty() && zone.len() <= 64 && zone.chars().all(|c| c.is_ascii_alphanumeric() || "/_-+".contains(c))
}

impl Tool for CurrentTime {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        // An empty zone, or "local", is how models say "the user's own".
        let zone = args.get("timezone").and_then(Value::as_str).map(str::trim).filter(|z| !z.is_empty() && !z.eq_ignore_ascii_case("local")).map(str::to_owned);
        Box::pin(async move {
            let unknown = |z: &str| ToolOutput::error(format!("Unknown time zone \"{z}\": use an IANA name such as Europe/Paris or Asia/Tokyo."));
            if let Some(z) = zone.as_deref().filter(|z| !plausible_zone(z)) {
                return unknown(z);
            }
            let now = self.clock.now_ms();
            match (self.clock.zoned(now, zone.as_deref()), zone.as_deref()) {
                (Ok(t), _) => ToolOutput::text(format!("{} {} in {} (UTC{}); {} UTC", t.weekday, t.local, t.zone, t.utc_offset, iso_utc(now))),
                (Err(_), Some(z)) => unknown(z),
                // The user's own zone failing is not the model's mistake; the
                // UTC time is still worth giving.
                (Err(e), None) => ToolOutput::error(format!("The local time zone could not be read ({e}). The time in UTC is {}.", iso_utc(now))),
            }
        })
    }
}

/// `2026-11-22T10:31:05Z` for milliseconds since the Unix epoch (whole
/// seconds, rounded down). Outside JavaScript's date range (±8.64e15 ms,
/// about ±275,000 years) the nearest end of it is used.
pub fn iso_utc(ms: f64) -> String {
    const LIMIT_MS: f64 = 8.64e15;
    let ms = if ms.is_nan() { 0.0 } else { ms.clamp(-LIMIT_MS, LIMIT_MS) };
    let secs = (ms / 1000.0).floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// (year, month, day) of the proleptic Gregorian calendar for days since
/// 1970-01-01: Howard Hinnant's `civil_from_days`, which counts in 400-year
/// eras starting on March 1st so that the leap day ends each year.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The built-in tools.
pub fn builtins(clock: Rc<dyn Clock>) -> Vec<Rc<dyn Tool>> {
    vec![Rc::new(Calculator::new()), Rc::new(CurrentTime::new(clock))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Registry, schema};

    /// 2026-11-22T10:31:05Z, a Sunday.
    const NOW: f64 = 1_795_343_465_000.0;

    /// A clock with a few zones; the user lives in Paris. `broken_local`
    /// makes the user's own zone fail.
    struct FakeClock {
        broken_local: bool,
    }

    impl Clock for FakeClock {
        fn now_ms(&self) -> f64 {
            NOW
        }

        fn zoned(&self, at: f64, zone: Option<&str>) -> Result<ZonedTime, String> {
            assert_eq!(at, NOW, "the zone is asked about the same moment");
            let (zone, local, weekday, offset) = match zone {
                None if self.broken_local => return Err("Intl is not available".into()),
                None | Some("Europe/Paris") => ("Europe/Paris", "2026-11-22 11:31:05", "Sunday", "+01:00"),
                Some("Asia/Tokyo") => ("Asia/Tokyo", "2026-11-22 19:31:05", "Sunday", "+09:00"),
                Some("America/Los_Angeles") => ("America/Los_Angeles", "2026-11-22 02:31:05", "Sunday", "-08:00"),
                Some("Pacific/Kiritimati") => ("Pacific/Kiritimati", "2026-11-23 00:31:05", "Monday", "+14:00"),
                Some("UTC") => ("UTC", "2026-11-22 10:31:05", "Sunday", "+00:00"),
                Some("Etc/GMT+5") => ("Etc/GMT+5", "2026-11-22 05:31:05", "Sunday", "-05:00"),
                // Browsers resolve aliases to their canonical names.
                Some("Asia/Calcutta") => ("Asia/Kolkata", "2026-11-22 16:01:05", "Sunday", "+05:30"),
                Some(other) => return Err(format!("RangeError: Invalid time zone specified: {other}")),
            };
            Ok(ZonedTime { zone: zone.into(), local: local.into(), weekday: weekday.into(), utc_offset: offset.into() })
        }
    }

    fn clock() -> Rc<dyn Clock> {
        Rc::new(FakeClock { broken_local: false })
    }

    fn call(tool: &dyn Tool, args: Value) -> ToolOutput {
        let abort = air_http::Abort::new();
        pollster::block_on(tool.call(args, CallContext { abort: &abort, host: &crate::Unattended }))
    }

    #[test]
    fn calculator_tool() {
        let c = Calculator::new();
        let cases = [("2 + 3 * 4", "2 + 3 * 4 = 14"), ("  23*17 ", "23*17 = 391"), ("2^10", "2^10 = 1024"), ("1/3", "1/3 = 0.333333333333"), ("sqrt(2) * sqrt(2)", "sqrt(2) * sqrt(2) = 2")];
        for (expr, want) in cases {
            assert_eq!(call(&c, json!({"expression": expr})), ToolOutput::text(want), "{expr}");
        }
        let errors = [
            (json!({"expression": "2 +"}), "Could not evaluate \"2 +\": at character 4: expected a number or `(`, found the end"),
            (json!({"expression": "1/0"}), "Could not evaluate \"1/0\": at character 2: division by zero"),
            (json!({"expression": "sqrt(-1)"}), "Could not evaluate \"sqrt(-1)\": at character 1: the square root of a negative number (-1) is not a real number"),
            (json!({"expression": "hello"}), "Could not evaluate \"hello\": at character 1: unknown name `hello` (functions: sqrt sin cos tan log ln abs min max; constants: pi, e)"),
            (json!({}), "The calculator needs the expression as a string: {\"expression\": \"2 + 2\"}."),
            (json!({"expression": 4}), "The calculator needs the expression as a string: {\"expression\": \"2 + 2\"}."),
        ];
        for (args, want) in errors {
            assert_eq!(call(&c, args.clone()), ToolOutput::error(want), "{args}");
        }
    }

    #[test]
    fn time_tool_in_many_zones() {
        let t = CurrentTime::new(clock());
        let cases = [
            (json!({"timezone": "Asia/Tokyo"}), "Sunday 2026-11-22 19:31:05 in Asia/Tokyo (UTC+09:00); 2026-11-22T10:31:05Z UTC"),
            (json!({}), "Sunday 2026-11-22 11:31:05 in Europe/Paris (UTC+01:00); 2026-11-22T10:31:05Z UTC"),
            (json!({"timezone": ""}), "Sunday 2026-11-22 11:31:05 in Europe/Paris (UTC+01:00); 2026-11-22T10:31:05Z UTC"),
            (json!({"timezone": "local"}), "Sunday 2026-11-22 11:31:05 in Europe/Paris (UTC+01:00); 2026-11-22T10:31:05Z UTC"),
            (json!({"timezone": " UTC "}), "Sunday 2026-11-22 10:31:05 in UTC (UTC+00:00); 2026-11-22T10:31:05Z UTC"),
            (json!({"timezone": "America/Los_Angeles"}), "Sunday 2026-11-22 02:31:05 in America/Los_Angeles (UTC-08:00); 2026-11-22T10:31:05Z UTC"),
            (json!({"timezone": "Pacific/Kiritimati"}), "Monday 2026-11-23 00:31:05 in Pacific/Kiritimati (UTC+14:00); 2026-11-22T10:31:05Z UTC"),
            (json!({"timezone": "Etc/GMT+5"}), "Sunday 2026-11-22 05:31:05 in Etc/GMT+5 (UTC-05:00); 2026-11-22T10:31:05Z UTC"),
            (json!({"timezone": "Asia/Calcutta"}), "Sunday 2026-11-22 16:01:05 in Asia/Kolkata (UTC+05:30); 2026-11-22T10:31:05Z UTC"),
        ];
        for (args, want) in cases {
            assert_eq!(call(&t, args.clone()), ToolOutput::text(want), "{args}");
        }
    }

    #[test]
    fn unknown_zones_are_errors_the_model_can_fix() {
        let t = CurrentTime::new(clock());
        let long = "x".repeat(65);
        for bad in ["Mars/Base", "<script>", "Europe/Paris; DROP", "Asia/東京", long.as_str()] {
            assert_eq!(call(&t, json!({"timezone": bad})), ToolOutput::error(format!("Unknown time zone \"{bad}\": use an IANA name such as Europe/Paris or Asia/Tokyo.")), "{bad}");
        }
        assert!(plausible_zone(&"x".repeat(64)));
        let broken = CurrentTime::new(Rc::new(FakeClock { broken_local: true }));
        assert_eq!(call(&broken, json!({})), ToolOutput::error("The local time zone could not be read (Intl is not available). The time in UTC is 2026-11-22T10:31:05Z."));
    }

    #[test]
    fn definitions_and_registry() {
        let tools = builtins(clock());
        let mut registry = Registry::new();
        for tool in tools {
            assert_eq!(tool.def().source, ToolSource::BuiltIn);
            assert_eq!(tool.def().annotations.read_only_hint, Some(true));
            assert_eq!(tool.def().annotations.idempotent_hint, Some(true));
            assert!(registry.register(tool).is_none());
        }
        let names: Vec<&str> = registry.definitions().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["calculator", "get_current_time"]);
        let calc = registry.get("calculator").unwrap().def();
        assert_eq!(
            calc.input_schema,
            json!({"type":"object","properties":{"expression":{"type":"string","description":"The expression, e.g. \"(2 + 3) * sqrt(16)\""}},"required":["expression"],"additionalProperties":false})
        );
        assert_eq!(calc.to_openai()["function"]["name"], "calculator");
        // Their own schemas accept what they take and refuse what they don't.
        assert!(schema::validate(&calc.input_schema, &json!({"expression": "1"})).is_ok());
        assert!(schema::validate(&calc.input_schema, &json!({"expr": "1"})).is_err());
        let time = registry.get("get_current_time").unwrap().def();
        assert!(schema::validate(&time.input_schema, &json!({})).is_ok());
        assert!(schema::validate(&time.input_schema, &json!({"timezone": 9})).is_err());
    }

    #[test]
    fn iso_dates() {
        let cases = [
            (0.0, "1970-01-01T00:00:00Z"),
            (999.0, "1970-01-01T00:00:00Z"),
            (-1.0, "1969-12-31T23:59:59Z"),
            (-1000.0, "1969-12-31T23:59:59Z"),
            (NOW, "2026-11-22T10:31:05Z"),
            (951_782_400_000.0, "2000-02-29T00:00:00Z"),
            (951_868_799_000.0, "2000-02-29T23:59:59Z"),
            (951_868_800_000.0, "2000-03-01T00:00:00Z"),
            (4_107_542_399_000.0, "2100-02-28T23:59:59Z"),
            (4_107_542_400_000.0, "2100-03-01T00:00:00Z"),
            (1_704_067_199_000.0, "2023-12-31T23:59:59Z"),
            (1_709_164_800_000.0, "2024-02-29T00:00:00Z"),
            (253_402_300_799_000.0, "9999-12-31T23:59:59Z"),
            (-62_135_596_800_000.0, "0001-01-01T00:00:00Z"),
            (-2_208_988_800_000.0, "1900-01-01T00:00:00Z"),
        ];
        for (ms, want) in cases {
            assert_eq!(iso_utc(ms), want, "{ms}");
        }
        // Nothing a broken clock reports makes it panic.
        for ms in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, f64::MIN, 8.64e15, -8.64e15] {
            assert!(iso_utc(ms).ends_with('Z'), "{ms}");
        }
        assert_eq!(iso_utc(f64::NAN), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn civil_from_days_agrees_with_counting_day_by_day() {
        // Walk 1600-03-01 .. 2400-03-01 one day at a time with the simple
        // calendar rules, and compare.
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let month_len = |y: i64, m: i64| match m {
            2 if leap(y) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        let start = -135_080; // 1600-03-01
        assert_eq!(civil_from_days(start), (1600, 3, 1));
        let (mut y, mut m, mut d) = (1600, 3, 1);
        for days in start..start + 292_194 {
            assert_eq!(civil_from_days(days), (y, m, d), "{days}");
            d += 1;
            if d > month_len(y, m) {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        }
        assert_eq!((y, m, d), (2400, 3, 1));
    }
}
