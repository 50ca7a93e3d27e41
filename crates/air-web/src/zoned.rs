//! The time in a time zone, from the browser's `Intl.DateTimeFormat` (it
//! carries the IANA database, so the bundle does not).

use air_tools::builtin::{Clock, ZonedTime};
use wasm_bindgen::JsValue;

/// [`Clock`] on `Date.now()` and `Intl`.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn zoned(&self, at_ms: f64, zone: Option<&str>) -> Result<ZonedTime, String> {
        zoned_time(at_ms, zone)
    }
}

/// `at_ms` in `zone` (the user's own when `None`); `Err` for a zone the
/// browser does not know (`Intl` throws a `RangeError`).
pub fn zoned_time(at_ms: f64, zone: Option<&str>) -> Result<ZonedTime, String> {
    let options = js_sys::Object::new();
    let set = |k: &str, v: &str| js_sys::Reflect::set(&options, &JsValue::from_str(k), &JsValue::from_str(v)).map(|_| ());
    let fields = [
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
    for (k, v) in fields {
        set(k, v).map_err(|e| format!("{e:?}"))?;
    }
    if let Some(z) = zone {
        set("timeZone", z).map_err(|e| format!("{e:?}"))?;
    }
    let locales = js_sys::Array::of1(&JsValue::from_str("en-US"));
    // `new Intl.DateTimeFormat` throws for an unknown zone; js-sys does not
    // surface that as a Result, so construct it through Reflect.
    let ctor: js_sys::Function = js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &js_sys::Object::new())
        .constructor();
    let args = js_sys::Array::of2(&locales, &options);
    let format = js_sys::Reflect::construct(&ctor, &args).map_err(|_| format!("unknown time zone {}", zone.unwrap_or("")))?;
    let format: js_sys::Intl::DateTimeFormat = wasm_bindgen::JsCast::unchecked_into(format);
    let parts = format.format_to_parts(&js_sys::Date::new(&JsValue::from_f64(at_ms)));
    let mut get = std::collections::HashMap::new();
    for part in parts.iter() {
        let field = |k: &str| js_sys::Reflect::get(&part, &JsValue::from_str(k)).ok().and_then(|v| v.as_string());
        if let (Some(t), Some(v)) = (field("type"), field("value")) {
            get.insert(t, v);
        }
    }
    let p = |k: &str| get.get(k).cloned().unwrap_or_default();
    let resolved = js_sys::Reflect::get(&format.resolved_options(), &JsValue::from_str("timeZone"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    let offset = p("timeZoneName");
    let offset = match offset.strip_prefix("GMT") {
        Some("") | None => "+00:00".to_owned(),
        Some(o) => o.to_owned(),
    };
    Ok(ZonedTime {
        zone: resolved,
        local: format!("{}-{}-{} {}:{}:{}", p("year"), p("month"), p("day"), p("hour"), p("minute"), p("second")),
        weekday: p("weekday"),
        utc_offset: offset,
    })
}
