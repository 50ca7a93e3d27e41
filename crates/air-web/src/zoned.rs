//! The time in a time zone, from the browser's `Intl.DateTimeFormat` (it
//! carries the IANA database, so the bundle does not).

use air_tools::builtin::{Clock, ZonedTime};
use js_sys::{Array, Date, Function, Intl, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// [`Clock`] on `Date.now()` and `Intl`.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        Date::now()
    }

    fn zoned(&self, at_ms: f64, zone: Option<&str>) -> Result<ZonedTime, String> {
        zoned_time(at_ms, zone)
    }
}

/// `at_ms` in `zone` (the user's own when `None`); `Err` for a zone the
/// browser does not know (`Intl` throws a `RangeError`), with its message.
pub fn zoned_time(at_ms: f64, zone: Option<&str>) -> Result<ZonedTime, String> {
    // `formatToParts` throws for an invalid date, and js-sys does not catch
    // that; JavaScript dates end at ±8.64e15 ms.
    if !at_ms.is_finite() || at_ms.abs() > 8.64e15 {
        return Err(format!("{at_ms} is not a time JavaScript can represent"));
    }
    let options = Object::new();
    let mut fields = vec![
        ("hourCycle", "h23"),
        ("year", "numeric"),
        ("month", "2-digit"),
        ("day", "2-digit"),
        ("hour", "2-digit"),
        ("minute", "2-digit"),
        ("second", "2-digit"),
        ("weekday", "long"),
        ("timeZoneName", "longOffset"),
    ];
    if let Some(z) = zone {
        fields.push(("timeZone", z));
    }
    for (k, v) in fields {
        Reflect::set(&options, &JsValue::from_str(k), &JsValue::from_str(v)).map_err(|e| describe(&e))?;
    }
    let format = new_date_time_format(&options)?;
    let parts = format.format_to_parts(&Date::new(&JsValue::from_f64(at_ms)));
    let mut found: Vec<(String, String)> = Vec::new();
    for part in parts.iter() {
        let field = |k: &str| Reflect::get(&part, &JsValue::from_str(k)).ok().and_then(|v| v.as_string());
        if let (Some(t), Some(v)) = (field("type"), field("value")) {
            found.push((t, v));
        }
    }
    let part = |k: &str| found.iter().find(|(t, _)| t == k).map(|(_, v)| v.as_str()).ok_or_else(|| format!("Intl gave no {k} for this time"));
    let zone_name = Reflect::get(&format.resolved_options(), &JsValue::from_str("timeZone")).ok().and_then(|v| v.as_string()).ok_or_else(|| "Intl did not say which time zone it used".to_owned())?;
    Ok(ZonedTime {
        zone: zone_name,
        local: format!("{}-{}-{} {}:{}:{}", part("year")?, part("month")?, part("day")?, part("hour")?, part("minute")?, part("second")?),
        weekday: part("weekday")?.to_owned(),
        utc_offset: utc_offset(part("timeZoneName")?),
    })
}

/// `new Intl.DateTimeFormat("en-US", options)`, through `Reflect.construct`
/// because js-sys's constructor does not catch the `RangeError` an unknown
/// zone throws (an uncaught exception would unwind through the wasm).
fn new_date_time_format(options: &Object) -> Result<Intl::DateTimeFormat, String> {
    let intl = Reflect::get(&js_sys::global(), &JsValue::from_str("Intl")).map_err(|e| describe(&e))?;
    let constructor: Function = Reflect::get(&intl, &JsValue::from_str("DateTimeFormat")).map_err(|e| describe(&e))?.dyn_into().map_err(|_| "this browser has no Intl.DateTimeFormat".to_owned())?;
    let args = Array::of2(&JsValue::from_str("en-US"), options);
    let format = Reflect::construct(&constructor, &args).map_err(|e| describe(&e))?;
    Ok(format.unchecked_into())
}

/// `GMT+08:00` → `+08:00`; `GMT` (UTC itself) → `+00:00`.
fn utc_offset(name: &str) -> String {
    let offset = name.trim_start_matches("GMT").trim_start_matches("UTC").replace('\u{2212}', "-");
    if offset.is_empty() { "+00:00".to_owned() } else { offset }
}

/// A thrown JavaScript value as text (`RangeError: Invalid time zone
/// specified: Mars/Base`).
fn describe(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(error) => format!("{}: {}", String::from(error.name()), String::from(error.message())),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}
